import CJansson

/// Writes `JSON` values as compact JSON text through jansson (never a raw newline).
public enum JSONSerializer {
    /// Serializes `value` compactly; members keep their insertion order.
    public static func serialize(_ value: JSON) -> [UInt8] {
        var output: [UInt8] = []
        serialize(value, into: &output)
        return output
    }

    /// Serializes `value` and appends the text to `output`.
    ///
    /// Every real is written in the fewest digits that read back exactly: one `json_dumpb` of the whole
    /// tree when all reals need the same precision (nearly always: most documents have none), else each
    /// scalar dumped by jansson with its own precision and the punctuation between them written here.
    public static func serialize(_ value: JSON, into output: inout [UInt8]) {
        var precisions = Set<Int>()
        collectPrecisions(value, into: &precisions)
        if precisions.count <= 1 {
            dump(value, precision: precisions.first ?? 1, into: &output)
        } else {
            writeMixed(value, into: &output)
        }
    }

    /// One `json_dumpb` of the whole value straight into the array's new tail (a second one
    /// only when the first guess of the size was short).
    private static func dump(_ value: JSON, precision: Int, into output: inout [UInt8]) {
        guard let node = build(value) else { return }
        defer { json_decref(node) }
        let flags = CJansson_dump_flags(Int32(precision))
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

    /// Containers written here, every scalar and key dumped by jansson on its own.
    private static func writeMixed(_ value: JSON, into output: inout [UInt8]) {
        switch value {
        case .array(let items):
            output.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                writeMixed(item, into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            for (index, entry) in object.entries.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                dump(.string(entry.key), precision: 1, into: &output)
                output.append(UInt8(ascii: ":"))
                writeMixed(entry.value, into: &output)
            }
            output.append(UInt8(ascii: "}"))
        case .double(let number):
            dump(value, precision: digitsNeeded(number), into: &output)
        default:
            dump(value, precision: 1, into: &output)
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

    /// The precision each real in `value` needs to read back exactly (jansson's default of 17
    /// prints 0.1 as 0.10000000000000001).
    private static func collectPrecisions(_ value: JSON, into precisions: inout Set<Int>) {
        switch value {
        case .double(let number): precisions.insert(digitsNeeded(number))
        case .array(let items): for item in items { collectPrecisions(item, into: &precisions) }
        case .object(let object): for entry in object.entries { collectPrecisions(entry.value, into: &precisions) }
        default: return
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
