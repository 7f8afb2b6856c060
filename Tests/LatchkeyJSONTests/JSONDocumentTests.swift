import Testing

@testable import LatchkeyJSON

/// What `JSONParser.withDocument` lends for `text`, read through `read`; the parse error instead when
/// there is one.
private func readDocument<T>(_ text: String, _ read: (borrowing JSONDocument) -> T) -> Result<T, JSONParseError> {
    Array(text.utf8).withUnsafeBytes { raw in
        var found: T?
        do throws(JSONParseError) {
            try JSONParser.withDocument(raw) { found = read($0) }
        } catch {
            return .failure(error)
        }
        guard let found else { preconditionFailure("withDocument returned without calling its body") }
        return .success(found)
    }
}

@Suite("JSONDocument and JSONSerializer.serializeObject")
struct JSONDocumentTests {
    // MARK: members read one at a time

    @Test("a member reads as parse would read it; an absent one is nil")
    func members() throws {
        let text = #"{"jsonrpc":"2.0","id":7,"params":{"echo":[1,0.5,"x",null,{"k":true}]}}"#
        let whole = try JSONParser.parse(text)
        let read = readDocument(text) { document in
            [document.member("jsonrpc"), document.member("id"), document.member("params"), document.member("method")]
        }
        #expect(try read.get() == [whole["jsonrpc"], whole["id"], whole["params"], nil])
        #expect(try readDocument(text) { $0.isObject }.get())
        #expect(try readDocument(text) { $0.value }.get() == whole)
    }

    @Test("a document that is no object has no members, and its value is whole", arguments: ["[1,{}]", "3", #""s""#, "null"])
    func notAnObject(text: String) throws {
        #expect(try readDocument(text) { $0.isObject }.get() == false)
        #expect(try readDocument(text) { $0.member("a") }.get() == nil)
        #expect(try readDocument(text) { $0.value }.get() == JSONParser.parse(text))
    }

    @Test("a key with escapes and a NUL-free key of many bytes are found")
    func unusualKeys() throws {
        let text = #"{"a\"b":1,"é😀":2,"\#(String(repeating: "k", count: 300))":3}"#
        #expect(try readDocument(text) { $0.member("a\"b") }.get() == 1)
        #expect(try readDocument(text) { $0.member("é😀") }.get() == 2)
        #expect(try readDocument(text) { $0.member(String(repeating: "k", count: 300)) }.get() == 3)
        #expect(try readDocument(text) { $0.member("") }.get() == nil)
    }

    // MARK: the contract's depth, members never read included

    @Test("nesting 65 deep is tooDeep even in a member that is never read; 64 is not")
    func depthOfUnreadMembers() throws {
        let deep = #"{"id":1,"extra":"# + String(repeating: "[", count: 64) + String(repeating: "]", count: 64) + "}"
        // At the bracket that opens level 65: 16 characters, then the 64th bracket.
        #expect(throws: JSONParseError(kind: .tooDeep, line: 1, column: 80)) { try readDocument(deep) { $0.member("id") }.get() }
        let fine = #"{"id":1,"extra":"# + String(repeating: "[", count: 63) + String(repeating: "]", count: 63) + "}"
        #expect(try readDocument(fine) { $0.member("id") }.get() == 1)
        let objects = String(repeating: #"{"a":"#, count: 65) + "1" + String(repeating: "}", count: 65)
        #expect(throws: JSONParseError(kind: .tooDeep, line: 1, column: 321)) { try readDocument(objects) { $0.isObject }.get() }
    }

    @Test("brackets inside strings do not count toward the depth")
    func bracketsInStrings() throws {
        let text = #"{"id":1,"s":""# + String(repeating: "[{", count: 200) + #""}"#
        #expect(try readDocument(text) { $0.member("id") }.get() == 1)
    }

    @Test("syntax errors are the errors parse reports", arguments: ["{", #"{"a":1,"a":2}"#, "[1,]", ""])
    func syntaxErrors(text: String) {
        var expected: JSONParseError?
        do throws(JSONParseError) { _ = try JSONParser.parse(text) } catch { expected = error }
        #expect(expected != nil)
        guard case .failure(let error) = readDocument(text, { $0.isObject }) else {
            Issue.record("\(text) was lent as a document")
            return
        }
        #expect(error == expected)
    }

    // MARK: serializeObject

    /// `serializeObject` with these members, as text.
    private func serializedObject(_ members: [(String, JSON)]) -> String {
        var output: [UInt8] = []
        JSONSerializer.serializeObject(into: &output) { object in
            for (key, value) in members { object.append(key, value) }
        }
        return String(decoding: output, as: UTF8.self)
    }

    @Test("serializeObject writes what serialize writes for the same members")
    func serializeObjectMatchesSerialize() {
        let cases: [[(String, JSON)]] = [
            [],
            [("jsonrpc", "2.0"), ("id", 1), ("result", ["echo": "hello"])],
            [("a", 0.1), ("b", [0.5, 2.25])],
            // Reals that need different precisions: each keeps its shortest form.
            [("x", 0.1), ("y", 0.30000000000000004), ("z", ["n": [1e300, .double(.nan)], "k\n\"": "v"])],
            [("deep", [[["s": "t\u{0}u"]]]), ("empty", [:]), ("list", [])],
        ]
        for members in cases {
            #expect(serializedObject(members) == JSONSerializer.string(.object(JSONObject(members))))
        }
        #expect(serializedObject([("x", 0.1), ("y", 0.30000000000000004)]) == #"{"x":0.1,"y":0.30000000000000004}"#)
    }

    @Test("a key added twice keeps its first place and its last value, as JSONObject does")
    func duplicateKeys() {
        let members: [(String, JSON)] = [("a", 1), ("b", 2), ("a", 3)]
        #expect(serializedObject(members) == #"{"a":3,"b":2}"#)
        #expect(JSONSerializer.string(.object(JSONObject(members))) == #"{"a":3,"b":2}"#)
    }

    @Test("texts just under, at and over the stack scratch buffer are written whole", arguments: [1000, 1015, 1016, 1017, 1030, 5000])
    func aroundTheScratchBuffer(length: Int) throws {
        let value: JSON = ["s": .string(String(repeating: "x", count: length))]
        let bytes = JSONSerializer.serialize(value)
        #expect(bytes.count == length + #"{"s":""}"#.utf8.count)
        #expect(try JSONParser.parse(bytes) == value)
        var output = Array("prefix".utf8)
        JSONSerializer.serializeObject(into: &output) { $0.append("s", value["s"] ?? .null) }
        #expect(output == Array("prefix".utf8) + bytes)
    }

    @Test("JSONObject(uniqueEntries:) keeps its members in order and grows as any object")
    func uniqueEntries() {
        var object = JSONObject(uniqueEntries: [.init(key: "b", value: 1), .init(key: "a", value: 2)])
        #expect(object.keys == ["b", "a"])
        #expect(JSON.object(object) == ["a": 2, "b": 1])
        for index in 0..<3 { object.appendUnchecked("k\(index)", .int(index)) }
        object["a"] = 3
        #expect(object.keys == ["b", "a", "k0", "k1", "k2"])
        #expect(object["a"] == 3)
        #expect(JSONObject(uniqueEntries: []).isEmpty)
    }
}
