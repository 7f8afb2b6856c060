/// Unpadded base64url (RFC 4648 §5), as the contract writes tokens, keys and signatures.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Each character's value, 0xFF for a byte outside the alphabet.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, character) in alphabet.enumerated() { table[Int(character)] = UInt8(index) }
        return table
    }()

    public static func encode(_ bytes: [UInt8]) -> String {
        let alphabet = Self.alphabet
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= bytes.count {
            let n = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            out.append(alphabet[Int(n >> 6 & 63)])
            out.append(alphabet[Int(n & 63)])
            index += 3
        }
        let rest = bytes.count - index
        if rest > 0 {
            let n = UInt32(bytes[index]) << 16 | (rest == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            if rest == 2 { out.append(alphabet[Int(n >> 6 & 63)]) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes canonical unpadded base64url: no padding, no other alphabet, no whitespace, and the unused bits of the last character zero (so every
    /// byte string has one spelling).
    ///
    /// Nil otherwise.
    public static func decode(_ text: String) -> [UInt8]? {
        // A native string's bytes are read in place; a bridged one's are copied first.
        text.utf8.withContiguousStorageIfAvailable { decode($0) } ?? decode(Array(text.utf8))
    }

    /// Four characters at a time into three bytes; the last one, two or three characters into what they hold.
    private static func decode<Input: RandomAccessCollection<UInt8>>(_ input: Input) -> [UInt8]? where Input.Index == Int {
        let count = input.count
        guard count % 4 != 1 else { return nil }
        let values = Self.values
        var out: [UInt8] = []
        out.reserveCapacity(count * 3 / 4)
        var index = input.startIndex
        let whole = input.startIndex + count / 4 * 4
        while index < whole {
            let a = values[Int(input[index])]
            let b = values[Int(input[index + 1])]
            let c = values[Int(input[index + 2])]
            let d = values[Int(input[index + 3])]
            // 0xFF, a byte outside the alphabet, is the only value with its top bits set.
            guard (a | b | c | d) & 0xC0 == 0 else { return nil }
            let n = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
            out.append(UInt8(truncatingIfNeeded: n >> 16))
            out.append(UInt8(truncatingIfNeeded: n >> 8))
            out.append(UInt8(truncatingIfNeeded: n))
            index += 4
        }
        let rest = input.endIndex - index
        guard rest > 0 else { return out }
        let a = values[Int(input[index])]
        let b = values[Int(input[index + 1])]
        let c = rest == 3 ? values[Int(input[index + 2])] : 0
        guard (a | b | c) & 0xC0 == 0 else { return nil }
        let n = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6
        // The bits past the last whole byte must be zero (one spelling for every byte string).
        guard n & (rest == 2 ? 0xFFFF : 0xFF) == 0 else { return nil }
        out.append(UInt8(truncatingIfNeeded: n >> 16))
        if rest == 3 { out.append(UInt8(truncatingIfNeeded: n >> 8)) }
        return out
    }
}

/// Standard, padded base64 (RFC 4648 §4), as the Standard Webhooks specification writes secrets and signatures.
public enum Base64 {
    public static func encode(_ bytes: [UInt8]) -> String {
        let unpadded = Base64URL.encode(bytes).map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 }
        return String(unpadded) + String(repeating: "=", count: (4 - unpadded.count % 4) % 4)
    }

    /// Decodes canonical padded base64 (nil for anything else).
    ///
    /// A multiple of 4 characters, `=` only at the end, the unused bits zero.
    public static func decode(_ text: String) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard characters.count % 4 == 0 else { return nil }
        let padding = characters.reversed().prefix { $0 == UInt8(ascii: "=") }.count
        let body = characters.dropLast(padding)
        guard padding == (4 - body.count % 4) % 4 else { return nil }
        guard !body.contains(UInt8(ascii: "=")), !body.contains(UInt8(ascii: "-")), !body.contains(UInt8(ascii: "_")) else { return nil }
        let url = body.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: "-") : $0 == UInt8(ascii: "/") ? UInt8(ascii: "_") : $0 }
        return Base64URL.decode(String(decoding: url, as: UTF8.self))
    }
}
