import CJansson

/// Why a document could not be parsed, with where (never what: the input is not quoted).
public struct JSONParseError: Error, Sendable, Equatable {
    public enum Kind: String, Sendable {
        case invalidSyntax, invalidUTF8, duplicateKey, tooDeep, numberOutOfRange, prematureEnd, trailingData, nullCharacter, nullInKey
    }
    public var kind: Kind
    public var line: Int
    public var column: Int

    /// A human sentence that names the problem without quoting the input.
    public var message: String {
        switch kind {
        case .invalidSyntax: return "Parse error: the message is not valid JSON"
        case .invalidUTF8: return "Parse error: the message is not valid UTF-8"
        case .duplicateKey: return "Parse error: an object has a duplicate key"
        case .tooDeep: return "Parse error: the message nests deeper than \(JSONParser.maxDepth) levels"
        case .numberOutOfRange: return "Parse error: a number is out of range"
        case .prematureEnd: return "Parse error: the message ends before the JSON value does"
        case .trailingData: return "Parse error: data follows the JSON value"
        case .nullCharacter: return "Parse error: the message has a NUL byte"
        case .nullInKey: return "Parse error: a member name holds U+0000 (NUL), which no member name may"
        }
    }
}

/// Parses JSON text through jansson into `JSON` values.
public enum JSONParser {
    /// The contract's nesting limit: deeper documents are parse errors.
    public static let maxDepth = 64

    /// Parses one JSON document (any value at the top, duplicate keys rejected).
    /// - Throws: `JSONParseError` with the line and column of the problem.
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONParseError) -> JSON {
        let root = try load(bytes)
        defer { json_decref(root) }
        guard let value = convert(root, depth: 1) else { throw tooDeep(bytes) }
        return value
    }

    /// Parses one document and lends it to `body` still in jansson's tree, so that `body` converts
    /// only the members it reads (a message's envelope need not become Swift values).
    ///
    /// The whole document is held to `maxDepth` before `body` runs, members it never reads included.
    /// - Throws: `JSONParseError`, as `parse(_:)` does.
    public static func withDocument(_ bytes: UnsafeRawBufferPointer, _ body: (borrowing JSONDocument) -> Void) throws(JSONParseError) {
        let root = try load(bytes)
        defer { json_decref(root) }
        guard !mayNestTooDeep(bytes) || fitsDepth(root, depth: 1) else { throw tooDeep(bytes) }
        body(JSONDocument(root: root))
    }

    /// Parses a byte array; see `parse(_:)`.
    public static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSON {
        let result: Result<JSON, JSONParseError> = bytes.withUnsafeBytes { buffer in
            do throws(JSONParseError) { return .success(try parse(buffer)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Parses a string; see `parse(_:)`.
    public static func parse(_ text: String) throws(JSONParseError) -> JSON {
        try parse(Array(text.utf8))
    }

    /// jansson's tree for one document; the caller releases it.
    private static func load(_ bytes: UnsafeRawBufferPointer) throws(JSONParseError) -> UnsafeMutablePointer<json_t> {
        var error = json_error_t()
        let loaded: UnsafeMutablePointer<json_t>?
        if let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self) {
            loaded = json_loadb(base, bytes.count, CJansson_parse_flags(), &error)
        } else {
            loaded = json_loadb("", 0, CJansson_parse_flags(), &error)
        }
        guard let root = loaded else {
            let made = makeError(&error)
            // jansson's own limit is far deeper than ours: the error is at our limit.
            throw made.kind == .tooDeep ? tooDeep(bytes) : made
        }
        return root
    }

    /// The error for text that nests deeper than `maxDepth`, at the bracket that opens the level one too deep.
    private static func tooDeep(_ bytes: UnsafeRawBufferPointer) -> JSONParseError {
        let (line, column) = deepestAllowedExceeded(bytes) ?? (1, 1)
        return JSONParseError(kind: .tooDeep, line: line, column: column)
    }

    /// Where the first bracket outside a string opens level `maxDepth + 1`: its line and its column in characters, as jansson
    /// counts them (both from 1).
    private static func deepestAllowedExceeded(_ bytes: UnsafeRawBufferPointer) -> (line: Int, column: Int)? {
        var depth = 0
        var line = 1
        var column = 0
        var inString = false
        var escaped = false
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 0
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > maxDepth { return (line, column) }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return nil
    }

    private static func makeError(_ error: inout json_error_t) -> JSONParseError {
        let line = Int(max(CJansson_error_line(&error), 1))
        let column = Int(max(CJansson_error_column(&error), 1))
        let kind: JSONParseError.Kind
        switch UInt32(CJansson_error_code(&error)) {
        case json_error_invalid_utf8.rawValue: kind = .invalidUTF8
        case json_error_duplicate_key.rawValue: kind = .duplicateKey
        case json_error_stack_overflow.rawValue: kind = .tooDeep
        case json_error_numeric_overflow.rawValue: kind = .numberOutOfRange
        case json_error_premature_end_of_input.rawValue: kind = .prematureEnd
        case json_error_end_of_input_expected.rawValue: kind = .trailingData
        case json_error_null_character.rawValue: kind = .nullCharacter
        case json_error_null_byte_in_key.rawValue: kind = .nullInKey
        default: kind = .invalidSyntax
        }
        return JSONParseError(kind: kind, line: line, column: column)
    }

    /// A string from UTF-8 that jansson has validated.
    ///
    /// Written into the string's own storage: a short ASCII one is then made in place with no
    /// further check, where `String(decoding:as:)` validates it again through a general path.
    private static func string(_ pointer: UnsafePointer<CChar>, _ length: Int) -> String {
        String(unsafeUninitializedCapacity: length) { buffer in
            guard let base = buffer.baseAddress else { return 0 }
            pointer.withMemoryRebound(to: UInt8.self, capacity: length) { base.initialize(from: $0, count: length) }
            return length
        }
    }

    /// Whether text could nest deeper than `maxDepth`: only if it holds more opening brackets than
    /// that (those inside strings counted too), so most messages need no walk of their tree.
    private static func mayNestTooDeep(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count > 2 * maxDepth else { return false }
        var openings = 0
        for byte in bytes where byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") { openings += 1 }
        return openings > maxDepth
    }

    /// Whether a jansson tree nests no deeper than `maxDepth` (`node` being at `depth`).
    private static func fitsDepth(_ node: UnsafeMutablePointer<json_t>, depth: Int) -> Bool {
        switch CJansson_typeof(node) {
        case Int32(JSON_OBJECT.rawValue):
            guard depth <= maxDepth else { return false }
            var iterator = json_object_iter(node)
            while let current = iterator {
                if let child = json_object_iter_value(current), !fitsDepth(child, depth: depth + 1) { return false }
                iterator = json_object_iter_next(node, current)
            }
            return true
        case Int32(JSON_ARRAY.rawValue):
            guard depth <= maxDepth else { return false }
            for index in 0..<json_array_size(node) {
                if let child = json_array_get(node, index), !fitsDepth(child, depth: depth + 1) { return false }
            }
            return true
        default:
            return true
        }
    }

    /// Converts a jansson tree; nil when it nests deeper than `maxDepth`.
    fileprivate static func convert(_ node: UnsafeMutablePointer<json_t>, depth: Int) -> JSON? {
        switch CJansson_typeof(node) {
        case Int32(JSON_OBJECT.rawValue):
            guard depth <= maxDepth else { return nil }
            // The keys are distinct: the parser rejects duplicates.
            var entries: [JSONObject.Entry] = []
            entries.reserveCapacity(json_object_size(node))
            var iterator = json_object_iter(node)
            while let current = iterator {
                guard let keyPointer = json_object_iter_key(current),
                    let child = json_object_iter_value(current),
                    let value = convert(child, depth: depth + 1)
                else { return nil }
                let key = string(keyPointer, json_object_iter_key_len(current))
                entries.append(JSONObject.Entry(key: key, value: value))
                iterator = json_object_iter_next(node, current)
            }
            return .object(JSONObject(uniqueEntries: entries))
        case Int32(JSON_ARRAY.rawValue):
            guard depth <= maxDepth else { return nil }
            let count = json_array_size(node)
            var items: [JSON] = []
            items.reserveCapacity(count)
            for index in 0..<count {
                guard let child = json_array_get(node, index), let value = convert(child, depth: depth + 1) else {
                    return nil
                }
                items.append(value)
            }
            return .array(items)
        case Int32(JSON_STRING.rawValue):
            guard let pointer = json_string_value(node) else { return .string("") }
            return .string(string(pointer, json_string_length(node)))
        case Int32(JSON_INTEGER.rawValue):
            return .int(Int64(json_integer_value(node)))
        case Int32(JSON_REAL.rawValue):
            return .double(json_real_value(node))
        case Int32(JSON_TRUE.rawValue):
            return .bool(true)
        case Int32(JSON_FALSE.rawValue):
            return .bool(false)
        default:
            return .null
        }
    }
}

/// A parsed document still in jansson's tree, lent to the closure of `JSONParser.withDocument`
/// (it cannot outlive it): reading a member of its top-level object converts that member alone.
public struct JSONDocument: ~Copyable {
    private let root: UnsafeMutablePointer<json_t>

    fileprivate init(root: UnsafeMutablePointer<json_t>) {
        self.root = root
    }

    /// Whether the document is an object, whose members `member(_:)` reads.
    public var isObject: Bool { CJansson_typeof(root) == Int32(JSON_OBJECT.rawValue) }

    /// The member named `key` of the top-level object; nil when there is none, or the document
    /// is not an object.
    public func member(_ key: String) -> JSON? {
        var key = key
        let child = key.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                guard let base = chars.baseAddress else { return json_object_getn(root, "", 0) }
                return json_object_getn(root, base, chars.count)
            }
        }
        // Depth was checked for the whole document, so the conversion cannot fail here.
        return child.flatMap { JSONParser.convert($0, depth: 2) }
    }

    /// The whole document as a `JSON` value.
    public var value: JSON { JSONParser.convert(root, depth: 1) ?? .null }
}
