import LatchkeyContract

/// What operations of one kind look like (`admin/configureOperationTemplate`): `title`, `message`,
/// `data` and the attributes' texts hold `${param}` placeholders that `admin/createOperation` fills.
public struct OperationTemplate: Sendable, Equatable {
    public var applicationId: String
    /// 1–64 of `A–Z a–z 0–9 _ . -`.
    public var name: String
    public var title: String
    public var message: String
    public var data: String
    /// What the phone lists; a placeholder used here must also occur in `data`.
    public var attributes: [OperationAttribute]
    /// 1–10.
    public var maxFailureCount: Int
    /// 30–86 400.
    public var ttlSeconds: Int64
    /// What may approve (never empty).
    public var allowedMethods: [OperationApproval]

    public init(
        applicationId: String, name: String, title: String, message: String, data: String, attributes: [OperationAttribute],
        maxFailureCount: Int, ttlSeconds: Int64, allowedMethods: [OperationApproval]
    ) {
        self.applicationId = applicationId
        self.name = name
        self.title = title
        self.message = message
        self.data = data
        self.attributes = attributes
        self.maxFailureCount = maxFailureCount
        self.ttlSeconds = ttlSeconds
        self.allowedMethods = allowedMethods
    }

    /// The contract's defaults.
    public static let defaultMaxFailureCount = 5
    public static let defaultTtlSeconds: Int64 = 300
    public static let defaultAllowedMethods: [OperationApproval] = [.pin, .touchId, .faceId, .offline]

    /// Whether `name` is 1–64 of `A–Z a–z 0–9 _ . -`.
    public static func isValidName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count)
            && name.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
            }
    }

    /// Every text with placeholders: title, message, data, then each attribute's.
    var texts: [String] { [title, message, data] + attributes.flatMap(\.texts) }
}

extension OperationAttribute {
    /// The texts of the attribute (its label, and what it renders).
    var texts: [String] {
        switch self {
        case .amount(let label, let amount, let currency): [label, amount, currency]
        case .keyValue(let label, let value): [label, value]
        case .note(let label, let note): [label, note]
        case .heading(let label): [label]
        }
    }

    /// Whether what the attribute renders (its label aside) is one of `fields`, a template's data fields (`fields(of:)`) after the
    /// first (`A` and the template number), as they read unescaped (a literal `a*b` renders data's `Na\*b`; `a\*b` renders nothing).
    ///
    /// An amount and its currency are an amount field `A<amount><currency>`; a value or a note is a field's value after its letter,
    /// or one of its comma-separated parts (an IBAN, its BIC). Never text the signed data does not carry, nor a field glued to more
    /// or repeated.
    func rendersWholeField(of fields: ArraySlice<String>) -> Bool {
        switch self {
        case .amount(_, let amount, let currency):
            return !amount.isEmpty && !currency.isEmpty
                && fields.contains { $0.unicodeScalars.elementsEqual(("A" + amount + currency).unicodeScalars) }
        case .keyValue(_, let text), .note(_, let text):
            return !text.isEmpty && fields.contains { Self.field($0, isValue: text) || Self.field($0, hasPart: text) }
        case .heading:
            return true
        }
    }

    /// Whether a data field's value (what follows its one-scalar type letter) is `text`, code point by code point: String's `==`
    /// takes canonically equivalent text for the same, and the phone lists the very code points.
    static func field(_ field: String, isValue text: String) -> Bool {
        field.unicodeScalars.dropFirst().elementsEqual(text.unicodeScalars)
    }

    /// Whether one of a data field's value's comma-separated parts is `text`, split and compared code point by code point (a comma
    /// that a mark joins into one character still separates).
    static func field(_ field: String, hasPart text: String) -> Bool {
        field.unicodeScalars.dropFirst().split(separator: ",").contains { $0.elementsEqual(text.unicodeScalars) }
    }

    /// A data text's fields, split at each `*` that no backslash escapes, each as it reads once unescaped (`\*` → `*`, `\\` → `\`,
    /// `\n` → a newline): what the phone would list of it.
    static func fields(of data: String) -> [String] {
        var fields = [""]
        var escaping = false
        for scalar in data.unicodeScalars {
            if escaping {
                escaping = false
                fields[fields.count - 1].unicodeScalars.append(scalar == "n" ? "\n" : scalar)
            } else if scalar == "\\" {
                escaping = true
            } else if scalar == "*" {
                fields.append("")
            } else {
                fields[fields.count - 1].unicodeScalars.append(scalar)
            }
        }
        if escaping { fields[fields.count - 1].unicodeScalars.append("\\") }
        return fields
    }

    /// The attribute with each text mapped.
    func mapTexts(_ transform: (String) throws -> String) rethrows -> OperationAttribute {
        switch self {
        case .amount(let label, let amount, let currency):
            .amount(label: try transform(label), amount: try transform(amount), currency: try transform(currency))
        case .keyValue(let label, let value): .keyValue(label: try transform(label), value: try transform(value))
        case .note(let label, let note): .note(label: try transform(label), note: try transform(note))
        case .heading(let label): .heading(label: try transform(label))
        }
    }
}

/// `${param}` placeholders: a name of `A–Z a–z 0–9 _ . -`; a `$` not followed by `{` is itself.
enum Placeholders {
    /// One piece of a text: as it is, or a placeholder's name.
    enum Piece: Equatable {
        case literal(String)
        case placeholder(String)

        /// Whether the piece is literal text with a backslash that does not begin `\*`, `\\` or `\n` within it.
        var hasLoneBackslash: Bool {
            guard case .literal(let text) = self else { return false }
            var escaping = false
            for scalar in text.unicodeScalars {
                if escaping {
                    guard scalar == "*" || scalar == "\\" || scalar == "n" else { return true }
                    escaping = false
                } else {
                    escaping = scalar == "\\"
                }
            }
            return escaping
        }
    }

    /// The pieces of `text`.
    ///
    /// Read scalar by scalar: a `$` that a neighbour joins into one character (a prepended sign before it, a mark after its `}`)
    /// still begins or ends a placeholder.
    /// - Returns: nil when a `${` is not closed or names no valid parameter.
    static func pieces(_ text: String) -> [Piece]? {
        var pieces: [Piece] = []
        var literal = String.UnicodeScalarView()
        var scalars = Array(text.unicodeScalars)[...]
        while let first = scalars.first {
            guard first == "$", scalars.dropFirst().first == "{" else {
                literal.append(first)
                scalars = scalars.dropFirst()
                continue
            }
            let after = scalars.dropFirst(2)
            guard let close = after.firstIndex(of: "}") else { return nil }
            let name = String(String.UnicodeScalarView(after[..<close]))
            guard OperationTemplate.isValidName(name) else { return nil }
            if !literal.isEmpty { pieces.append(.literal(String(literal))) }
            literal = String.UnicodeScalarView()
            pieces.append(.placeholder(name))
            scalars = after[after.index(after: close)...]
        }
        if !literal.isEmpty { pieces.append(.literal(String(literal))) }
        return pieces
    }

    /// The placeholder names of `text`, in order (nil: malformed).
    static func names(_ text: String) -> [String]? {
        pieces(text)?.compactMap { if case .placeholder(let name) = $0 { name } else { nil } }
    }

    /// `text` with each placeholder filled by `value(name)`.
    static func fill(_ text: String, _ value: (String) throws -> String) throws -> String {
        guard let pieces = pieces(text) else { return text }
        var out = ""
        for piece in pieces {
            switch piece {
            case .literal(let literal): out += literal
            case .placeholder(let name): out += try value(name)
            }
        }
        return out
    }
}

/// The attributes as the store keeps them: a CBOR array of `[type, label, first, second]` arrays
/// (written by the server, read back strictly).
enum OperationAttributes {
    static func encode(_ attributes: [OperationAttribute]) -> [UInt8] {
        CBOR.array(attributes.map { attribute in .array([.text(attribute.type)] + attribute.texts.map(CBOR.text)) }).encoded
    }

    /// - Throws: `StoreDamaged`-like `CryptoFailure`-free error: bytes no version of Latchkey wrote.
    static func decode(_ bytes: [UInt8]) throws -> [OperationAttribute] {
        guard case .array(let items) = try CBORDecoder.decode(bytes) else { throw DamagedRow("operation attributes") }
        return try items.map { item in
            guard case .array(let parts) = item, let type = parts.first?.textValue else { throw DamagedRow("operation attribute") }
            let texts = parts.dropFirst().compactMap(\.textValue)
            switch (type, texts.count) {
            case ("amount", 3): return .amount(label: texts[0], amount: texts[1], currency: texts[2])
            case ("keyValue", 2): return .keyValue(label: texts[0], value: texts[1])
            case ("note", 2): return .note(label: texts[0], note: texts[1])
            case ("heading", 1): return .heading(label: texts[0])
            default: throw DamagedRow("operation attribute")
            }
        }
    }
}

/// A row holds what no version of Latchkey wrote (`internalError`; never a guess in its place).
struct DamagedRow: Error, CustomStringConvertible {
    let what: String
    init(_ what: String) { self.what = what }
    var description: String { "a damaged \(what)" }
}

extension OperationTemplateRecord {
    static func id(applicationId: String, name: String) -> String { applicationId + "/" + name }

    init(_ template: OperationTemplate, at time: UnixTime) {
        self.init(
            id: Self.id(applicationId: template.applicationId, name: template.name), applicationId: template.applicationId,
            name: template.name, title: template.title, message: template.message, data: template.data,
            attributes: OperationAttributes.encode(template.attributes), maxFailureCount: template.maxFailureCount,
            ttlSeconds: template.ttlSeconds, allowedMethods: template.allowedMethods.map(\.rawValue).joined(separator: "\n"),
            createdAt: time)
    }

    func template() throws -> OperationTemplate {
        OperationTemplate(
            applicationId: applicationId, name: name, title: title, message: message, data: data,
            attributes: try OperationAttributes.decode(attributes), maxFailureCount: maxFailureCount, ttlSeconds: ttlSeconds,
            allowedMethods: allowedMethods.split(separator: "\n").compactMap { OperationApproval(rawValue: String($0)) })
    }
}

extension Latchkey {
    /// Creates or replaces the template of that name in the application.
    /// - Throws: `invalidParams` (a malformed placeholder, an attribute that renders what `data` does not hold), `notFound` (application).
    public func configureOperationTemplate(_ template: OperationTemplate) throws -> OperationTemplate {
        for (member, text) in [("title", template.title), ("message", template.message), ("data", template.data)] {
            guard Placeholders.names(text) != nil else {
                throw DomainError.invalid(.templateText(member), "has a ${ that is not a placeholder ${name} (name: A–Z a–z 0–9 _ . -)")
            }
        }
        // A backslash escapes within the template's own text, never the value a placeholder brings (that value is escaped as
        // it goes in, and a `\` before it would pair with its escape: a parameter could then add a field).
        if let pieces = Placeholders.pieces(template.data), pieces.contains(where: \.hasLoneBackslash) {
            throw DomainError.invalid(
                .templateText("data"),
                "has a backslash that escapes neither *, \\ nor n in the template's own text (a value is escaped as it goes in)")
        }
        let inData = Set(Placeholders.names(template.data) ?? [])
        let dataFields = OperationAttribute.fields(of: template.data).dropFirst()
        for (index, attribute) in template.attributes.enumerated() {
            for text in attribute.texts {
                guard let pieces = Placeholders.pieces(text) else {
                    throw DomainError.invalid(.templateAttribute(index: index), "has a ${ that is not a placeholder ${name}")
                }
                for case .placeholder(let name) in pieces where !inData.contains(name) {
                    throw DomainError.invalid(
                        .templateAttribute(index: index),
                        "uses a placeholder that data does not hold: attributes render data and add nothing to it")
                }
            }
            // What it renders (a label aside) is a whole field of data (security property 8).
            guard attribute.rendersWholeField(of: dataFields) else {
                throw DomainError.invalid(
                    .templateAttribute(index: index),
                    "renders what is not a whole field of data: attributes render data and add nothing to it (an amount ${p} and "
                        + "currency ${q} as data's A${p}${q}, a value or note as a field's ${p})")
            }
        }
        return try transact { tx, effects in
            tx.willRead([.row(ApplicationRecord.self, id: template.applicationId)])
            _ = try application(tx, template.applicationId)
            try tx.save(OperationTemplateRecord(template, at: now))
            try audit(
                tx, effects, .operationTemplateConfigured,
                detail: OperationTemplateRecord.id(applicationId: template.applicationId, name: template.name))
            return template
        }
    }

    /// A template by application and name.
    /// - Throws: `notFound` (`operationTemplate`).
    func operationTemplate(_ tx: StoreTransaction, applicationId: String, name: String) throws -> OperationTemplate {
        guard let record = try tx.fetch(OperationTemplateRecord.self, id: OperationTemplateRecord.id(applicationId: applicationId, name: name)) else {
            throw DomainError.notFound("operationTemplate")
        }
        return try record.template()
    }
}
