/// PowerAuth's operation-data string, version A: what an operation's signature binds besides its
/// title and message, and what a phone formats for the user.
///
/// `A` and a template number (0–99), then at most 5 fields, each after a `*`: a type letter and
/// its value. `A` amount and ISO 4217 currency (`A1500.00EUR`), `I` IBAN (its mod-97 check holds)
/// optionally `,BIC`, `Q` account, `D` date (`YYYYMMDD`, a real date), `R` reference, `N` note,
/// `T` text. In values `\*`, `\\` and `\n` escape; at most 255 bytes, no character below U+0020.
///
/// The parser takes untrusted text: it is bounded (it looks at no more than 255 bytes) and answers
/// the first rule broken, never traps.
public struct OperationData: Sendable, Equatable {
    /// The template number: 0 generic, 1 payment, 2 login, and so on.
    public var template: Int
    public var fields: [Field]

    /// One field, its value unescaped.
    public enum Field: Sendable, Equatable {
        /// `A`: an amount (digits, at most one `.`) and its ISO 4217 currency.
        case amount(String, currency: String)
        /// `I`: an IBAN and, after `,`, a BIC.
        case iban(String, bic: String?)
        /// `Q`: an account.
        case account(String)
        /// `D`: a date.
        case date(year: Int, month: Int, day: Int)
        /// `R`: a reference.
        case reference(String)
        /// `N`: a note.
        case note(String)
        /// `T`: a text.
        case text(String)
    }

    /// The most bytes operation data may have.
    public static let maxBytes = 255
    /// The most fields it may have.
    public static let maxFields = 5

    public init(template: Int, fields: [Field]) {
        self.template = template
        self.fields = fields
    }

    /// Reads operation data.
    /// - Throws: `OperationDataError` naming the first rule the text breaks.
    public static func parse(_ text: String) throws(OperationDataError) -> OperationData {
        let bytes = Array(text.utf8)
        guard bytes.count <= maxBytes else { throw OperationDataError("is longer than \(maxBytes) bytes") }
        guard !bytes.contains(where: { $0 < 0x20 }) else { throw OperationDataError("holds a control character (below U+0020)") }
        guard bytes.first == UInt8(ascii: "A") else { throw OperationDataError("does not start with the version A") }
        let parts = try split(bytes.dropFirst())
        guard let number = parts.first, (1...2).contains(number.count), number.allSatisfy(isDigit), let template = Int(ascii(number)) else {
            throw OperationDataError("has no template number (0 to 99) after the version")
        }
        let raw = parts.dropFirst()
        guard raw.count <= maxFields else { throw OperationDataError("has more than \(maxFields) fields") }
        var fields: [Field] = []
        for part in raw {
            fields.append(try field(part))
        }
        return OperationData(template: template, fields: fields)
    }

    /// Escapes a value so that it is one field's value: `\` → `\\`, `*` → `\*`, a newline → `\n`, code point by code point (a `*`
    /// or `\` that a neighbour joins into one character, a combining mark after it or a prepended sign before it, is escaped all the
    /// same), in time linear in the value.
    ///
    /// Over the UTF-8 bytes: the three are ASCII, and no byte of another code point's encoding is.
    public static func escape(_ value: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(value.utf8.count)
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\\"), UInt8(ascii: "*"):
                out.append(UInt8(ascii: "\\"))
                out.append(byte)
            case UInt8(ascii: "\n"):
                out.append(UInt8(ascii: "\\"))
                out.append(UInt8(ascii: "n"))
            default: out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The text split at every `*` that is not escaped, each part unescaped (escapes checked).
    private static func split(_ bytes: ArraySlice<UInt8>) throws(OperationDataError) -> [[UInt8]] {
        var parts: [[UInt8]] = [[]]
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\\") {
                let next = bytes.index(after: index)
                guard next < bytes.endIndex else { throw OperationDataError("ends with a lone backslash") }
                switch bytes[next] {
                case UInt8(ascii: "*"): parts[parts.count - 1].append(UInt8(ascii: "*"))
                case UInt8(ascii: "\\"): parts[parts.count - 1].append(UInt8(ascii: "\\"))
                case UInt8(ascii: "n"): parts[parts.count - 1].append(0x0A)
                default: throw OperationDataError("has a backslash that escapes neither *, \\ nor n")
                }
                index = bytes.index(after: next)
                continue
            }
            if byte == UInt8(ascii: "*") {
                parts.append([])
            } else {
                parts[parts.count - 1].append(byte)
            }
            index = bytes.index(after: index)
        }
        return parts
    }

    /// One field from its unescaped bytes.
    private static func field(_ part: [UInt8]) throws(OperationDataError) -> Field {
        guard let letter = part.first else { throw OperationDataError("has an empty field") }
        let value = Array(part.dropFirst())
        switch letter {
        case UInt8(ascii: "A"): return try amount(value)
        case UInt8(ascii: "I"): return try iban(value)
        case UInt8(ascii: "Q"):
            guard !value.isEmpty else { throw OperationDataError("has an empty account (Q)") }
            return .account(text(value))
        case UInt8(ascii: "D"): return try date(value)
        case UInt8(ascii: "R"): return .reference(text(value))
        case UInt8(ascii: "N"): return .note(text(value))
        case UInt8(ascii: "T"): return .text(text(value))
        default: throw OperationDataError("has a field of an unknown type (not A, I, Q, D, R, N or T)")
        }
    }

    /// `A`: digits with at most one `.`, then three capital letters.
    private static func amount(_ value: [UInt8]) throws(OperationDataError) -> Field {
        guard value.count > 3 else { throw OperationDataError("has an amount (A) without digits and a three-letter currency") }
        let number = value.dropLast(3)
        let currency = value.suffix(3)
        guard isCurrency(currency) else { throw OperationDataError("has an amount (A) whose currency is not three capital letters") }
        guard isAmount(number) else { throw OperationDataError("has an amount (A) that is not digits with at most one dot") }
        return .amount(ascii(Array(number)), currency: ascii(Array(currency)))
    }

    /// Whether `bytes` are an amount's number: digits with at most one `.`, at least one digit.
    public static func isAmount(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.contains(where: isDigit) && bytes.allSatisfy { isDigit($0) || $0 == UInt8(ascii: ".") }
            && bytes.lazy.filter { $0 == UInt8(ascii: ".") }.count <= 1
    }

    /// Whether `bytes` are an ISO 4217 currency as operation data writes it: three capital letters.
    public static func isCurrency(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.count == 3 && bytes.allSatisfy { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }
    }

    /// `I`: an IBAN whose mod-97 check holds, optionally `,BIC`.
    private static func iban(_ value: [UInt8]) throws(OperationDataError) -> Field {
        let pieces = value.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
        guard pieces.count <= 2, let account = pieces.first else { throw OperationDataError("has an IBAN (I) with more than one BIC") }
        if let problem = IBAN.problem(Array(account)) { throw OperationDataError("has an IBAN (I) \(problem)") }
        var bic: String?
        if pieces.count == 2 {
            let code = pieces[1]
            guard code.count == 8 || code.count == 11, code.allSatisfy({ isDigit($0) || ($0 >= 65 && $0 <= 90) }),
                code.prefix(6).dropFirst(4).allSatisfy({ $0 >= 65 && $0 <= 90 })
            else { throw OperationDataError("has a BIC after the IBAN (I) that is not 8 or 11 capital letters and digits") }
            bic = ascii(Array(code))
        }
        return .iban(ascii(Array(account)), bic: bic)
    }

    /// `D`: `YYYYMMDD`, a real date.
    private static func date(_ value: [UInt8]) throws(OperationDataError) -> Field {
        guard value.count == 8, value.allSatisfy(isDigit), let year = Int(ascii(Array(value[0..<4]))),
            let month = Int(ascii(Array(value[4..<6]))), let day = Int(ascii(Array(value[6..<8])))
        else { throw OperationDataError("has a date (D) that is not YYYYMMDD") }
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year) else {
            throw OperationDataError("has a date (D) that does not exist")
        }
        return .date(year: year, month: month, day: day)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
    private static func ascii(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
    private static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    /// A fuzz entry point: reads any bytes as operation data; never traps.
    public static func fuzz(_ bytes: [UInt8]) {
        guard let text = String(validating: bytes, as: UTF8.self), let data = try? parse(text) else { return }
        _ = data.fields.count
    }
}

/// Why text is not operation data: the rule it breaks, as human text ("has an amount (A) …").
public struct OperationDataError: Error, Sendable, Equatable, CustomStringConvertible {
    public let rule: String
    public init(_ rule: String) { self.rule = rule }
    public var description: String { rule }
}

/// International bank account numbers (ISO 13616): the mod-97 check.
public enum IBAN {
    /// Two capital letters, two check digits, then 11 to 30 capital letters and digits (15 to 34 in all),
    /// whose number (letters as 10–35, the first four characters moved to the end) is 1 modulo 97.
    public static func isValid(_ bytes: [UInt8]) -> Bool { problem(bytes) == nil }

    /// The rule of ISO 13616 that `bytes` break ("whose mod-97 check fails"), or nil for a valid IBAN.
    public static func problem(_ bytes: [UInt8]) -> String? {
        guard (15...34).contains(bytes.count) else { return "of \(bytes.count) characters (an IBAN has 15 to 34)" }
        let upper = { (byte: UInt8) in byte >= 65 && byte <= 90 }
        let digit = { (byte: UInt8) in byte >= 48 && byte <= 57 }
        guard upper(bytes[0]), upper(bytes[1]), digit(bytes[2]), digit(bytes[3]) else {
            return "that does not start with a two-letter country code and two check digits"
        }
        guard bytes.allSatisfy({ upper($0) || digit($0) }) else { return "that holds other than capital letters and digits" }
        var remainder = 0
        for byte in bytes[4...] + bytes[..<4] {
            let value = digit(byte) ? Int(byte - 48) : Int(byte - 55)
            remainder = value >= 10 ? (remainder * 100 + value) % 97 : (remainder * 10 + value) % 97
        }
        return remainder == 1 ? nil : "whose mod-97 check fails"
    }
}
