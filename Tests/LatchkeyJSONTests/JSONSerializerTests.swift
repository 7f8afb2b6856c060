import LatchkeyJSON
import Testing

/// Parses `text` and serializes the result again.
private func reserialize(_ text: String) throws -> String {
    JSONSerializer.string(try JSONParser.parse(text))
}

@Suite("JSONSerializer")
struct JSONSerializerTests {
    @Test(
        "compact output round-trips byte for byte",
        arguments: [
            #"{"jsonrpc":"2.0","id":1,"result":{"echo":[1,"two",null,true,false,{}]}}"#,
            #"{"z":1,"a":{"y":2,"b":3},"m":[]}"#,
            #"[]"#, #"{}"#, #"[[[]]]"#, #""""#, "0", "-1", "null", "true",
            #"{"":""}"#,
        ])
    func roundTrip(text: String) throws {
        #expect(try reserialize(text) == text)
    }

    @Test("whitespace is dropped")
    func compact() throws {
        #expect(try reserialize("{ \"a\" : [ 1 , 2 ] ,\n \"b\" : { } }") == #"{"a":[1,2],"b":{}}"#)
    }

    @Test("members are written in insertion order")
    func insertionOrder() {
        var object = JSONObject()
        object["zeta"] = 1
        object["alpha"] = 2
        object["mid"] = 3
        #expect(JSONSerializer.string(.object(object)) == #"{"zeta":1,"alpha":2,"mid":3}"#)
        object["zeta"] = 9
        #expect(JSONSerializer.string(.object(object)) == #"{"zeta":9,"alpha":2,"mid":3}"#)
    }

    @Test("an object with many members keeps their order")
    func manyMembersOrder() throws {
        let keys = (0..<300).map { "k\(($0 * 7919) % 1000)" }
        let object = JSONObject(keys.map { ($0, JSON.int(1)) })
        let text = JSONSerializer.string(.object(object))
        #expect(try JSONParser.parse(text).objectValue?.keys == keys)
    }

    // MARK: strings

    @Test("escapes are written as JSON escapes, never a raw newline")
    func escapes() {
        let text = JSONSerializer.string(.string("q\"b\\s/\u{08}\u{0C}\n\r\t\u{01}\u{1F}"))
        #expect(text == #""q\"b\\s/\b\f\n\r\t\u0001\u001F""#)
        #expect(!text.utf8.contains(0x0A))
        #expect(!text.utf8.contains(0x0D))
    }

    @Test("non-ASCII text is written as UTF-8")
    func unicode() throws {
        let value = JSON.string("héllo ☃ 😀 日本")
        #expect(JSONSerializer.string(value) == "\"héllo ☃ 😀 日本\"")
        #expect(try reserialize(#""\u00e9\ud83d\ude00""#) == "\"é😀\"")
    }

    @Test("U+2028 and U+2029 survive a round trip")
    func lineSeparators() throws {
        let value = JSON.string("a\u{2028}b\u{2029}c")
        #expect(try JSONParser.parse(JSONSerializer.serialize(value)) == value)
    }

    @Test("\\u0000 inside a string round-trips")
    func nulInString() throws {
        let value = JSON.string("a\u{0}b")
        let text = JSONSerializer.string(value)
        #expect(text == #""a\u0000b""#)
        #expect(try JSONParser.parse(text) == value)
        #expect(try reserialize(#"{"k":"\u0000"}"#) == #"{"k":"\u0000"}"#)
    }

    @Test("keys are escaped like values")
    func keyEscapes() throws {
        let value = JSON.object(JSONObject([("line\nbreak", 1), ("quote\"", 2), ("é", 3)]))
        let text = JSONSerializer.string(value)
        #expect(text == #"{"line\nbreak":1,"quote\"":2,"é":3}"#)
        #expect(try JSONParser.parse(text) == value)
    }

    // MARK: integers

    @Test("integers are written exactly", arguments: [Int64.max, Int64.min, 0, -1, 1 << 53, (1 << 53) + 1] as [Int64])
    func integers(value: Int64) throws {
        let text = JSONSerializer.string(.int(value))
        #expect(text == String(value))
        #expect(try JSONParser.parse(text) == .int(value))
    }

    // MARK: reals

    @Test(
        "reals print in their shortest form",
        arguments: [
            (0.1, "0.1"), (1e300, "1e300"), (1.5, "1.5"), (-2.25, "-2.25"), (100.0, "100.0"), (1.0, "1.0"),
            (0.0, "0.0"), (-0.0, "-0.0"), (Double.leastNonzeroMagnitude, "5e-324"), (1e-7, "1e-7"), (2.5e-5, "2.5e-5"), (1e16, "1e16"),
            (1e22, "1e22"), (123456.7, "123456.7"), (0.001, "0.001"), (0.000123, "0.000123"),
            (3.141592653589793, "3.141592653589793"), (0.30000000000000004, "0.30000000000000004"),
            (1.7976931348623157e308, "1.7976931348623157e308"), (9007199254740992.0, "9007199254740992.0"),
            (1000000000000000.5, "1000000000000000.5"), (1234567.0, "1234567.0"),
        ] as [(Double, String)])
    func shortestReals(value: Double, expected: String) throws {
        let text = JSONSerializer.string(.double(value))
        #expect(text == expected)
        let back = try JSONParser.parse(text)
        #expect(back == .double(value))
        #expect(back.intValue == nil || value.rounded() == value)
    }

    @Test("every real reads back to the same bits")
    func realsRoundTripExactly() throws {
        var generator = SplitMix(seed: 7)
        for _ in 0..<2000 {
            let value = Double(bitPattern: generator.next())
            guard value.isFinite else { continue }
            let text = JSONSerializer.string(.double(value))
            guard case .double(let back) = try JSONParser.parse(text) else {
                Issue.record("\(text) did not read back as a real")
                continue
            }
            #expect(back.bitPattern == value.bitPattern, "\(value) printed as \(text)")
        }
    }

    @Test("a real keeps its shortest form next to a real that needs 17 digits")
    func shortestRealsInOneDocument() {
        let value: JSON = [0.1, 0.30000000000000004, 1e300]
        #expect(JSONSerializer.string(value) == "[0.1,0.30000000000000004,1e300]")
        let nested: JSON = ["a\"b": [0.1, ["x": 0.30000000000000004, "s": "t\n", "n": nil, "t": true]], "i": 7]
        #expect(JSONSerializer.string(nested) == #"{"a\"b":[0.1,{"x":0.30000000000000004,"s":"t\n","n":null,"t":true}],"i":7}"#)
    }

    @Test("a mixed document still reads back exactly")
    func mixedDocumentRoundTrips() throws {
        let value: JSON = ["a": [0.1, 0.30000000000000004, 1e300, 2.5], "b": 7]
        #expect(try JSONParser.parse(JSONSerializer.serialize(value)) == value)
    }

    @Test("NaN and infinities, which JSON cannot hold, are written as null")
    func nonFinite() {
        #expect(JSONSerializer.string(.double(.nan)) == "null")
        #expect(JSONSerializer.string(.double(.infinity)) == "null")
        #expect(JSONSerializer.string([.double(-.infinity), 1]) == "[null,1]")
    }

    // MARK: buffers

    @Test("serialize(into:) appends")
    func appends() {
        var output = Array("x".utf8)
        JSONSerializer.serialize(["a": 1], into: &output)
        JSONSerializer.serialize([2], into: &output)
        #expect(String(decoding: output, as: UTF8.self) == #"x{"a":1}[2]"#)
    }

    @Test("a large document is written whole")
    func largeDocument() throws {
        let big = String(repeating: "abcdefgh", count: 200_000)
        let value: JSON = ["data": .string(big), "n": [1, 2, 3]]
        let bytes = JSONSerializer.serialize(value)
        #expect(bytes.count == big.utf8.count + #"{"data":"","n":[1,2,3]}"#.utf8.count)
        #expect(try JSONParser.parse(bytes) == value)
    }
}

/// A small deterministic generator for property checks.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
