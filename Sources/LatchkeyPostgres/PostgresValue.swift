import CLibpq
import LatchkeyStorage

/// One column value as the store reads and writes it: the domain's `StoreValue` (the types the
/// tables use), so a row's values go to its record's `init(row:)` as they arrive.
typealias PostgresValue = StoreValue

extension StoreValue {
    /// The value in libpq's text format (nil: SQL NULL).
    ///
    /// The server infers each parameter's type from where it is used, so a text `"t"` lands in a boolean
    /// column as `true`.
    var parameter: String? {
        switch self {
        case .null: return nil
        case .text(let text): return text
        case .int(let number): return String(number)
        case .bool(let flag): return flag ? "t" : "f"
        case .bytes(let bytes): return "\\x" + Hex.encode(bytes)
        }
    }

    /// A result field in text format, read by its column type.
    static func field(_ text: UnsafePointer<CChar>, length: Int, type: UInt32) -> PostgresValue? {
        let raw = UnsafeRawBufferPointer(start: text, count: length)
        switch Int(type) {
        case Int(CLibpq_BOOLOID):
            return .bool(length > 0 && raw[0] == UInt8(ascii: "t"))
        case Int(CLibpq_INT8OID), Int(CLibpq_INT4OID), Int(CLibpq_INT2OID):
            return Int64(String(decoding: raw, as: UTF8.self)).map { .int($0) }
        case Int(CLibpq_BYTEAOID):
            // bytea_output = hex: "\x" then two digits a byte.
            guard length >= 2, raw[0] == UInt8(ascii: "\\"), raw[1] == UInt8(ascii: "x") else { return nil }
            return Hex.decode(UnsafeRawBufferPointer(rebasing: raw[2...])).map { .bytes($0) }
        default:
            return .text(String(decoding: raw, as: UTF8.self))
        }
    }
}

/// Lower-case hexadecimal, as bytea's text form writes it.
enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func decode(_ text: UnsafeRawBufferPointer) -> [UInt8]? {
        guard text.count % 2 == 0 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(text.count / 2)
        var index = 0
        while index < text.count {
            guard let high = nibble(text[index]), let low = nibble(text[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
