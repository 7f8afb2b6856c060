import CJansson

/// Writes `JSON` values as compact JSON text through jansson (never a raw newline).
public enum JSONSerializer {
    /// Serializes `value` compactly; members keep their insertion order.
    public static func serialize(_ value: JSON) -> [UInt8] {
        var output: [UInt8] = []
        serialize(value, into: &output)
        return output
    }

    /// Serializes `value` and appends the text to `output`: one `json_dumpb` straight into the
    /// array's new tail (a second one only when the first guess of the size was short).
    public static func serialize(_ value: JSON, into output: inout [UInt8]) {
        guard let node = build(value) else { return }
        defer { json_decref(node) }
        let flags = CJansson_dump_flags(Int32(realPrecision(value)))
        let start = output.count
        var room = 512
        while true {
            output.append(contentsOf: repeatElement(0, count: room))
            let needed = output.withUnsafeMutableBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return json_dumpb(node, (base + start).assumingMemoryBound(to: CChar.self), room, flags)
            }
            if needed <= room {
                output.removeLast(room - needed)
                return
            }
            output.removeLast(room)
            room = needed
        }
    }

    /// Serializes to a `String` (tests and logs).
    public static func string(_ value: JSON) -> String {
        String(decoding: serialize(value), as: UTF8.self)
    }

    private static func build(_ value: JSON) -> UnsafeMutablePointer<json_t>? {
        switch value {
        case .null: return json_null()
        case .bool(let flag): return CJansson_boolean(flag ? 1 : 0)
        case .int(let number): return json_integer(json_int_t(number))
        case .double(let number):
            // JSON has no NaN or infinity; jansson refuses them, so they become null.
            return number.isFinite ? json_real(number) : json_null()
        case .string(let text):
            var text = text
            return text.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) { chars in
                    guard let base = chars.baseAddress else { return json_stringn_nocheck("", 0) }
                    return json_stringn_nocheck(base, chars.count)
                }
            }
        case .array(let items):
            guard let array = json_array() else { return nil }
            for item in items {
                if let child = build(item) { json_array_append_new(array, child) }
            }
            return array
        case .object(let object):
            guard let node = json_object() else { return nil }
            for entry in object.entries {
                guard let child = build(entry.value) else { continue }
                var key = entry.key
                key.withUTF8 { bytes in
                    bytes.withMemoryRebound(to: CChar.self) { chars in
                        if let base = chars.baseAddress {
                            _ = json_object_setn_new_nocheck(node, base, chars.count, child)
                        } else {
                            _ = json_object_setn_new_nocheck(node, "", 0, child)
                        }
                    }
                }
            }
            return node
        }
    }

    /// The fewest significant digits that print every real in `value` so it reads back exactly
    /// (jansson's default of 17 prints 0.1 as 0.10000000000000001).
    static func realPrecision(_ value: JSON) -> Int {
        switch value {
        case .double(let number): return digitsNeeded(number)
        case .array(let items): return items.reduce(1) { max($0, realPrecision($1)) }
        case .object(let object): return object.entries.reduce(1) { max($0, realPrecision($1.value)) }
        default: return 1
        }
    }

    private static func digitsNeeded(_ number: Double) -> Int {
        guard number.isFinite else { return 1 }
        let text = number.magnitude.description
        let mantissa = text.split(separator: "e", maxSplits: 1).first ?? Substring(text)
        let parts = mantissa.split(separator: ".", omittingEmptySubsequences: false)
        let integerPart = parts.first.map(String.init) ?? ""
        let fraction = parts.count > 1 ? String(parts[1]) : ""
        var digits = Array(integerPart + fraction).drop { $0 == "0" }
        while digits.last == "0" { digits.removeLast() }
        var needed = max(digits.count, 1)
        if !text.contains("e"), integerPart != "0" { needed = max(needed, integerPart.count) }
        return min(max(needed, 1), 17)
    }
}
