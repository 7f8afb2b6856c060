import LatchkeyJSON
import Testing

@Suite("JSON and JSONObject values")
struct JSONValueTests {
    @Test("depth counts containers; scalars are 0")
    func depth() {
        #expect(JSON.int(1).depth == 0)
        #expect(JSON.array([]).depth == 1)
        #expect(JSON.object(JSONObject()).depth == 1)
        let value: JSON = ["a": [1, ["b": [[]]]]]
        #expect(value.depth == 5)
    }

    @Test("intValue accepts whole reals and refuses fractions")
    func intValue() {
        #expect(JSON.int(5).intValue == 5)
        #expect(JSON.double(3.0).intValue == 3)
        #expect(JSON.double(-3.0).intValue == -3)
        #expect(JSON.double(3.5).intValue == nil)
        #expect(JSON.double(1e300).intValue == nil)
        #expect(JSON.double(.nan).intValue == nil)
        #expect(JSON.string("3").intValue == nil)
    }

    @Test("accessors answer only for their own type")
    func accessors() {
        #expect(JSON.string("x").stringValue == "x")
        #expect(JSON.int(1).stringValue == nil)
        #expect(JSON.bool(true).boolValue == true)
        #expect(JSON.null.isNull)
        #expect(!JSON.bool(false).isNull)
        #expect(JSON.array([1]).arrayValue == [1])
        #expect(JSON.object(JSONObject()).objectValue?.isEmpty == true)
        let value: JSON = ["a": ["b": 2]]
        #expect(value["a"]?["b"] == 2)
        #expect(value["missing"] == nil)
        #expect(JSON.int(1)["a"] == nil)
    }

    @Test(
        "type names",
        arguments: [
            (JSON.null, "null"), (.bool(true), "boolean"), (.int(1), "integer"), (.double(1.5), "number"),
            (.string(""), "string"), (.array([]), "array"), (.object(JSONObject()), "object"),
        ] as [(JSON, String)])
    func typeNames(value: JSON, name: String) {
        #expect(value.typeName == name)
    }

    @Test("setting a member replaces it in place; setting nil removes it")
    func objectSubscript() {
        var object = JSONObject([("a", 1), ("b", 2), ("c", 3)])
        object["b"] = 20
        #expect(object.keys == ["a", "b", "c"])
        #expect(object["b"] == 20)
        object["a"] = nil
        #expect(object.keys == ["b", "c"])
        object["missing"] = nil
        #expect(object.count == 2)
        object["d"] = 4
        #expect(object.keys == ["b", "c", "d"])
    }

    @Test("member names match byte for byte, not by canonical equivalence")
    func membersMatchByBytes() throws {
        // The Kelvin sign (U+212A) decomposes to "K", and "é" to "e" + U+0301: Swift's == takes each pair for one string.
        let object = try #require(JSONParser.parse(#"{"iCloud\u212Aeychain": false, "caf\u00e9": 1}"#).objectValue)
        #expect(object["iCloudKeychain"] == nil)
        #expect(object["iCloud\u{212A}eychain"] == .bool(false))
        #expect(object["cafe\u{301}"] == nil)
        var replaced = object
        replaced["iCloudKeychain"] = .bool(true)
        #expect(replaced.count == 3)
        #expect(replaced["iCloud\u{212A}eychain"] == .bool(false))
        replaced["cafe\u{301}"] = nil
        #expect(replaced["caf\u{e9}"] == .int(1))
    }

    @Test("building from pairs with a repeated key keeps one member")
    func pairsWithRepeatedKey() {
        let object = JSONObject([("a", 1), ("b", 2), ("a", 3)])
        #expect(object.keys == ["a", "b"])
        #expect(object["a"] == 3)
    }

    @Test("object equality ignores member order")
    func objectEquality() {
        let one = JSONObject([("a", 1), ("b", 2)])
        let two = JSONObject([("b", 2), ("a", 1)])
        #expect(one == two)
        #expect(one != JSONObject([("a", 1)]))
        #expect(one != JSONObject([("a", 1), ("b", 3)]))
        #expect(one != JSONObject([("a", 1), ("c", 2)]))
    }

    @Test("integers and reals are different values")
    func intVersusDouble() {
        #expect(JSON.int(1) != JSON.double(1.0))
    }

    @Test("literals build the matching cases")
    func literals() {
        let value: JSON = ["s": "x", "i": 1, "d": 1.5, "b": true, "n": nil, "a": [1]]
        #expect(value["s"] == .string("x"))
        #expect(value["i"] == .int(1))
        #expect(value["d"] == .double(1.5))
        #expect(value["b"] == .bool(true))
        #expect(value["n"] == .null)
        #expect(value["a"] == .array([.int(1)]))
        #expect(value.objectValue?.keys == ["s", "i", "d", "b", "n", "a"])
        #expect(JSON.string(orNull: nil) == .null)
        #expect(JSON.string(orNull: "v") == "v")
        #expect(JSON.int(Int(7)) == .int(7))
        #expect(JSON.strings(["a", "b"]) == ["a", "b"])
    }
}
