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
        var precisions = RealPrecisions.none
        guard let node = build(value, &precisions) else { return }
        defer { json_decref(node) }
        write(node, precisions, into: &output)
    }

    /// Serializes an object whose members `members` adds, straight into jansson's tree (no
    /// `JSONObject` is built for it), and appends the text to `output`.
    public static func serializeObject(into output: inout [UInt8], _ members: (inout JSONMembers) -> Void) {
        guard let node = json_object() else { return }
        defer { json_decref(node) }
        var object = JSONMembers(node: node)
        members(&object)
        write(node, object.precisions, into: &output)
    }

    /// Writes a finished tree whose reals need `precisions`.
    private static func write(_ node: UnsafeMutablePointer<json_t>, _ precisions: RealPrecisions, into output: inout [UInt8]) {
        switch precisions {
        case .none: dump(node, precision: 1, into: &output)
        case .one(let precision): dump(node, precision: precision, into: &output)
        case .several: writeMixed(node, into: &output)
        }
    }

    /// The precisions the reals of a document need: none, one shared by all, or more than one.
    enum RealPrecisions: Equatable {
        case none
        case one(Int)
        case several

        mutating func add(_ precision: Int) {
            switch self {
            case .none: self = .one(precision)
            case .one(let known) where known != precision: self = .several
            default: break
            }
        }
    }

    /// Bytes dumped on the stack before they are copied out (the most Swift allocates on the
    /// stack for `withUnsafeTemporaryAllocation`); a longer text is dumped again into the output.
    private static let scratchBytes = 1024

    /// One `json_dumpb` of the whole tree, through a scratch buffer on the stack (a second one
    /// straight into the output only when the text is longer than the scratch buffer).
    private static func dump(_ node: UnsafeMutablePointer<json_t>, precision: Int, into output: inout [UInt8]) {
        let flags = CJansson_dump_flags(Int32(precision))
        let needed = withUnsafeTemporaryAllocation(of: CChar.self, capacity: scratchBytes) { scratch -> Int in
            guard let base = scratch.baseAddress else { return 0 }
            let needed = json_dumpb(node, base, scratch.count, flags)
            if needed <= scratch.count { output.append(contentsOf: UnsafeRawBufferPointer(start: base, count: needed)) }
            return needed
        }
        guard needed > scratchBytes else { return }
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: needed))
        let written = output.withUnsafeMutableBytes { raw -> Int in
            guard let base = raw.baseAddress else { return 0 }
            return json_dumpb(node, (base + start).assumingMemoryBound(to: CChar.self), needed, flags)
        }
        if written != needed { output.removeLast(output.count - start) }
    }

    /// Containers written here, every scalar and key dumped by jansson on its own with the precision
    /// its real needs (members in insertion order, as `json_dumpb` writes them).
    private static func writeMixed(_ node: UnsafeMutablePointer<json_t>, into output: inout [UInt8]) {
        switch CJansson_typeof(node) {
        case Int32(JSON_ARRAY.rawValue):
            output.append(UInt8(ascii: "["))
            for index in 0..<json_array_size(node) {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                if let item = json_array_get(node, index) { writeMixed(item, into: &output) }
            }
            output.append(UInt8(ascii: "]"))
        case Int32(JSON_OBJECT.rawValue):
            output.append(UInt8(ascii: "{"))
            var iterator = json_object_iter(node)
            var first = true
            while let current = iterator {
                if let key = json_object_iter_key(current), let value = json_object_iter_value(current),
                    let keyNode = json_stringn_nocheck(key, json_object_iter_key_len(current))
                {
                    if !first { output.append(UInt8(ascii: ",")) }
                    first = false
                    dump(keyNode, precision: 1, into: &output)
                    json_decref(keyNode)
                    output.append(UInt8(ascii: ":"))
                    writeMixed(value, into: &output)
                }
                iterator = json_object_iter_next(node, current)
            }
            output.append(UInt8(ascii: "}"))
        case Int32(JSON_REAL.rawValue):
            dump(node, precision: digitsNeeded(json_real_value(node)), into: &output)
        default:
            dump(node, precision: 1, into: &output)
        }
    }

    /// Serializes to a `String` (tests and logs).
    public static func string(_ value: JSON) -> String {
        String(decoding: serialize(value), as: UTF8.self)
    }

    /// jansson's tree for `value`, noting the precision each real needs to read back exactly
    /// (jansson's default of 17 prints 0.1 as 0.10000000000000001).
    fileprivate static func build(_ value: JSON, _ precisions: inout RealPrecisions) -> UnsafeMutablePointer<json_t>? {
        switch value {
        case .null: return json_null()
        case .bool(let flag): return CJansson_boolean(flag ? 1 : 0)
        case .int(let number): return json_integer(json_int_t(number))
        case .double(let number):
            // JSON has no NaN or infinity; jansson refuses them, so they become null.
            guard number.isFinite else { return json_null() }
            precisions.add(digitsNeeded(number))
            return json_real(number)
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
                if let child = build(item, &precisions) { json_array_append_new(array, child) }
            }
            return array
        case .object(let object):
            guard let node = json_object() else { return nil }
            for entry in object.entries {
                guard let child = build(entry.value, &precisions) else { continue }
                setMember(node, entry.key, child)
            }
            return node
        }
    }

    /// Sets (or replaces, in place) the member `key` of `node`, which takes over `child`.
    fileprivate static func setMember(_ node: UnsafeMutablePointer<json_t>, _ key: String, _ child: UnsafeMutablePointer<json_t>) {
        var key = key
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

    fileprivate static func digitsNeeded(_ number: Double) -> Int {
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

/// The members of an object being serialized, added straight into jansson's tree; lent to the
/// closure of `JSONSerializer.serializeObject`.
public struct JSONMembers: ~Copyable {
    private let node: UnsafeMutablePointer<json_t>
    /// What the reals added so far need.
    fileprivate private(set) var precisions = JSONSerializer.RealPrecisions.none

    fileprivate init(node: UnsafeMutablePointer<json_t>) {
        self.node = node
    }

    /// Adds a member; a key added twice keeps its first place and its last value, as in `JSONObject`.
    public mutating func append(_ key: String, _ value: JSON) {
        guard let child = JSONSerializer.build(value, &precisions) else { return }
        JSONSerializer.setMember(node, key, child)
    }
}
