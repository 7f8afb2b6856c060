/// A CBOR data item (RFC 8949) as WebAuthn uses it: integers, byte and text strings, arrays, maps, simple values and floats.
///
/// No tags and no indefinite lengths: the strict decoder refuses both.
public indirect enum CBOR: Sendable, Hashable {
    /// Major type 0: an unsigned integer.
    case unsigned(UInt64)
    /// Major type 1: the integer −1 − `n`, kept as `n` (so every 64-bit argument decodes, even
    /// below `Int64.min`).
    case negative(UInt64)
    /// Major type 2.
    case bytes([UInt8])
    /// Major type 3: valid UTF-8.
    case text(String)
    /// Major type 4.
    case array([CBOR])
    /// Major type 5: the entries in the order read (or written).
    case map([CBORMapEntry])
    case bool(Bool)
    case null
    case undefined
    /// A half, single or double precision float, widened to `Double`.
    case float(Double)

    /// An integer of either sign.
    public static func int(_ value: Int64) -> CBOR {
        value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-(value + 1)))
    }

    /// The integer, when it is one that fits `Int64`.
    public var int64Value: Int64? {
        switch self {
        case .unsigned(let value): return value <= UInt64(Int64.max) ? Int64(value) : nil
        case .negative(let value): return value <= UInt64(Int64.max) ? -Int64(value) - 1 : nil
        default: return nil
        }
    }

    public var bytesValue: [UInt8]? {
        if case .bytes(let value) = self { return value }
        return nil
    }

    public var textValue: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    public var mapValue: [CBORMapEntry]? {
        if case .map(let value) = self { return value }
        return nil
    }

    /// A map's value under an integer key (COSE labels); nil when this is not a map or has no such key.
    public subscript(key: Int64) -> CBOR? {
        mapValue?.first { $0.key == .int(key) }?.value
    }

    /// A map's value under a text key (compared byte for byte, as duplicate keys are).
    public subscript(key: String) -> CBOR? {
        mapValue?.first { $0.key.textValue?.utf8.elementsEqual(key.utf8) == true }?.value
    }
}

/// One key–value pair of a CBOR map.
public struct CBORMapEntry: Sendable, Hashable {
    public var key: CBOR
    public var value: CBOR

    public init(_ key: CBOR, _ value: CBOR) {
        self.key = key
        self.value = value
    }
}

/// Why bytes are not one strict CBOR item.
public enum CBORError: Error, Sendable, Equatable {
    /// The input ends inside an item (a head, a string, or an array's or map's elements).
    case truncated
    /// A declared length or element count is more than the bytes left could hold.
    case lengthExceedsInput
    /// Bytes remain after the item.
    case trailingBytes
    /// An indefinite length, or a break code (additional information 31).
    case indefiniteLength
    /// Major type 6.
    case tag
    /// Additional information 28, 29 or 30.
    case reservedAdditionalInfo
    /// A simple value other than false, true, null and undefined.
    case unsupportedSimpleValue
    /// A map holds one key twice (compared by canonical encoding: text by its bytes, a float by its bits).
    case duplicateKey
    /// Arrays and maps nested more than `CBORDecoder.maxDepth` deep.
    case tooDeep
    /// A text string that is not valid UTF-8.
    case invalidUTF8
}

extension CBORError: CustomStringConvertible {
    /// What was wrong, as human text (messages never name a type or a case).
    public var description: String {
        switch self {
        case .truncated: "the CBOR ends inside an item"
        case .lengthExceedsInput: "a CBOR length is more than the bytes left"
        case .trailingBytes: "bytes remain after the CBOR item"
        case .indefiniteLength: "an indefinite CBOR length"
        case .tag: "a CBOR tag"
        case .reservedAdditionalInfo: "a reserved CBOR additional information value"
        case .unsupportedSimpleValue: "an unsupported CBOR simple value"
        case .duplicateKey: "a CBOR map with a key twice"
        case .tooDeep: "CBOR nested more than 16 levels"
        case .invalidUTF8: "a CBOR text string that is not UTF-8"
        }
    }
}

/// The strict, bounded CBOR decoder: definite lengths only, no tags, no duplicate map keys, at most 16 levels of arrays and maps, integers within 64
/// bits, text in valid UTF-8.
///
/// Every declared length and count is checked against the bytes left before anything is allocated.
/// Integer arguments need not be in their shortest form.
public enum CBORDecoder {
    /// The deepest nesting of arrays and maps accepted (a top-level array is depth 1).
    public static let maxDepth = 16

    /// Decodes the item at the start of `bytes` and says how many bytes it took; what follows is
    /// the caller's.
    /// - Throws: `CBORError` for anything but one strict item.
    public static func decodePrefix(_ bytes: ArraySlice<UInt8>) throws(CBORError) -> (value: CBOR, consumed: Int) {
        var reader = Reader(bytes: bytes)
        let value = try reader.item(depth: 0)
        return (value, reader.index - bytes.startIndex)
    }

    /// Decodes exactly one item: nothing may follow it.
    /// - Throws: `CBORError`, `.trailingBytes` when bytes remain.
    public static func decode(_ bytes: ArraySlice<UInt8>) throws(CBORError) -> CBOR {
        let (value, consumed) = try decodePrefix(bytes)
        guard consumed == bytes.count else { throw .trailingBytes }
        return value
    }

    /// Decodes exactly one item from an array.
    public static func decode(_ bytes: [UInt8]) throws(CBORError) -> CBOR {
        try decode(bytes[...])
    }

    /// A fuzz entry point: decodes anything, never traps.
    public static func fuzz(_ bytes: [UInt8]) {
        if let value = try? decode(bytes) { _ = value.encoded }
    }

    private struct Reader {
        let bytes: ArraySlice<UInt8>
        var index: Int

        init(bytes: ArraySlice<UInt8>) {
            self.bytes = bytes
            index = bytes.startIndex
        }

        var remaining: Int { bytes.endIndex - index }

        mutating func byte() throws(CBORError) -> UInt8 {
            guard index < bytes.endIndex else { throw .truncated }
            defer { index += 1 }
            return bytes[index]
        }

        /// A big-endian unsigned integer of `count` bytes (1, 2, 4 or 8).
        mutating func argument(_ count: Int) throws(CBORError) -> UInt64 {
            guard remaining >= count else { throw .truncated }
            var value: UInt64 = 0
            for offset in 0..<count { value = value << 8 | UInt64(bytes[index + offset]) }
            index += count
            return value
        }

        /// `count` bytes, checked against what is left first.
        mutating func take(_ count: UInt64) throws(CBORError) -> ArraySlice<UInt8> {
            guard count <= UInt64(remaining) else { throw .lengthExceedsInput }
            let end = index + Int(count)
            defer { index = end }
            return bytes[index..<end]
        }

        mutating func item(depth: Int) throws(CBORError) -> CBOR {
            let initial = try byte()
            let major = initial >> 5
            let info = initial & 0x1F
            if major == 6 { throw .tag }
            let argument: UInt64
            switch info {
            case 0..<24: argument = UInt64(info)
            case 24: argument = try self.argument(1)
            case 25: argument = try self.argument(2)
            case 26: argument = try self.argument(4)
            case 27: argument = try self.argument(8)
            case 28, 29, 30: throw .reservedAdditionalInfo
            default: throw .indefiniteLength
            }
            switch major {
            case 0: return .unsigned(argument)
            case 1: return .negative(argument)
            case 2: return .bytes(Array(try take(argument)))
            case 3:
                let raw = try take(argument)
                guard let text = String(validating: raw, as: UTF8.self) else { throw .invalidUTF8 }
                return .text(text)
            case 4:
                // Each element takes at least one byte.
                guard argument <= UInt64(remaining) else { throw .lengthExceedsInput }
                guard depth < CBORDecoder.maxDepth else { throw .tooDeep }
                var items: [CBOR] = []
                items.reserveCapacity(Int(argument))
                for _ in 0..<Int(argument) { items.append(try item(depth: depth + 1)) }
                return .array(items)
            case 5:
                // Each entry takes at least two bytes.
                guard argument <= UInt64(remaining / 2) else { throw .lengthExceedsInput }
                guard depth < CBORDecoder.maxDepth else { throw .tooDeep }
                var entries: [CBORMapEntry] = []
                entries.reserveCapacity(Int(argument))
                // Keys compared by their canonical encoding: a text by its bytes (not by Unicode canonical equivalence, as `String`
                // compares), a float by its bits (a NaN twice is a key twice), an integer whatever the length of its argument.
                var keys: Set<[UInt8]> = []
                for _ in 0..<Int(argument) {
                    let key = try item(depth: depth + 1)
                    guard keys.insert(key.encoded).inserted else { throw .duplicateKey }
                    entries.append(CBORMapEntry(key, try item(depth: depth + 1)))
                }
                return .map(entries)
            default:
                return try simple(info: info, argument: argument)
            }
        }

        func simple(info: UInt8, argument: UInt64) throws(CBORError) -> CBOR {
            switch info {
            case 20: return .bool(false)
            case 21: return .bool(true)
            case 22: return .null
            case 23: return .undefined
            case 25: return .float(CBOR.halfToDouble(UInt16(truncatingIfNeeded: argument)))
            case 26: return .float(Double(Float(bitPattern: UInt32(truncatingIfNeeded: argument))))
            case 27: return .float(Double(bitPattern: argument))
            default: throw .unsupportedSimpleValue
            }
        }
    }
}

extension CBOR {
    /// IEEE 754 binary16 widened to a double.
    static func halfToDouble(_ half: UInt16) -> Double {
        let negative = half & 0x8000 != 0
        let exponent = Int(half >> 10 & 0x1F)
        let mantissa = Int(half & 0x3FF)
        let magnitude: Double
        if exponent == 0 {
            magnitude = Double(sign: .plus, exponent: -24, significand: Double(mantissa))
        } else if exponent == 31 {
            magnitude = mantissa == 0 ? .infinity : .nan
        } else {
            magnitude = Double(sign: .plus, exponent: exponent - 25, significand: Double(mantissa + 1024))
        }
        return negative ? -magnitude : magnitude
    }

    /// The canonical encoding (CTAP2 §8 canonical CBOR): integer arguments and lengths in their shortest form, definite lengths, map keys sorted by
    /// major type, then encoded length, then bytewise.
    ///
    /// Floats are written as doubles. Entries are written as given: a map built with a key twice encodes it
    /// twice.
    public var encoded: [UInt8] {
        var out: [UInt8] = []
        encode(into: &out)
        return out
    }

    private static func head(_ major: UInt8, _ argument: UInt64, into out: inout [UInt8]) {
        let type = major << 5
        switch argument {
        case 0..<24: out.append(type | UInt8(argument))
        case 24...0xFF: out += [type | 24, UInt8(argument)]
        case 0x100...0xFFFF: out += [type | 25, UInt8(argument >> 8), UInt8(truncatingIfNeeded: argument)]
        case 0x1_0000...0xFFFF_FFFF:
            out.append(type | 26)
            for shift in stride(from: 24, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: argument >> UInt64(shift))) }
        default:
            out.append(type | 27)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: argument >> UInt64(shift))) }
        }
    }

    private func encode(into out: inout [UInt8]) {
        switch self {
        case .unsigned(let value): Self.head(0, value, into: &out)
        case .negative(let value): Self.head(1, value, into: &out)
        case .bytes(let value):
            Self.head(2, UInt64(value.count), into: &out)
            out += value
        case .text(let value):
            Self.head(3, UInt64(value.utf8.count), into: &out)
            out += value.utf8
        case .array(let items):
            Self.head(4, UInt64(items.count), into: &out)
            for item in items { item.encode(into: &out) }
        case .map(let entries):
            Self.head(5, UInt64(entries.count), into: &out)
            let encodedEntries = entries.map { (key: $0.key.encoded, value: $0.value.encoded) }
            for entry in encodedEntries.sorted(by: { Self.canonicalOrder($0.key, $1.key) }) {
                out += entry.key
                out += entry.value
            }
        case .bool(let value): out.append(value ? 0xF5 : 0xF4)
        case .null: out.append(0xF6)
        case .undefined: out.append(0xF7)
        case .float(let value):
            out.append(0xFB)
            let bits = value.bitPattern
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        }
    }

    /// CTAP2's key order: lower major type first, then the shorter encoding, then bytewise.
    static func canonicalOrder(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        let lhsMajor = (lhs.first ?? 0) >> 5
        let rhsMajor = (rhs.first ?? 0) >> 5
        if lhsMajor != rhsMajor { return lhsMajor < rhsMajor }
        if lhs.count != rhs.count { return lhs.count < rhs.count }
        return lhs.lexicographicallyPrecedes(rhs)
    }
}
