import Testing

@testable import LatchkeyJSON

/// The parse error for `bytes`, or nil when they parse.
private func parseFailure(_ bytes: [UInt8]) -> JSONParseError? {
    do throws(JSONParseError) {
        _ = try JSONParser.parse(bytes)
        return nil
    } catch {
        return error
    }
}

private func parseFailure(_ text: String) -> JSONParseError? {
    parseFailure(Array(text.utf8))
}

/// `depth` nested arrays around `1`.
private func nestedArrays(_ depth: Int) -> String {
    String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth)
}

/// `depth` nested objects `{"a":{"a":…1…}}`.
private func nestedObjects(_ depth: Int) -> String {
    String(repeating: "{\"a\":", count: depth) + "1" + String(repeating: "}", count: depth)
}

@Suite("JSONParser")
struct JSONParserTests {
    // MARK: values

    @Test("scalars parse at the top level")
    func topLevelScalars() throws {
        #expect(try JSONParser.parse("null") == .null)
        #expect(try JSONParser.parse("true") == .bool(true))
        #expect(try JSONParser.parse("false") == .bool(false))
        #expect(try JSONParser.parse("42") == .int(42))
        #expect(try JSONParser.parse("-1.5") == .double(-1.5))
        #expect(try JSONParser.parse("\"x\"") == .string("x"))
    }

    @Test("surrounding whitespace is allowed")
    func surroundingWhitespace() throws {
        #expect(try JSONParser.parse(" \t\r\n{}\r\n ") == .object(JSONObject()))
    }

    @Test("an integer with no fraction stays an integer; 1.0 stays a real")
    func integerVersusReal() throws {
        #expect(try JSONParser.parse("1") == .int(1))
        #expect(try JSONParser.parse("1.0") == .double(1.0))
        #expect(try JSONParser.parse("1e2") == .double(100))
    }

    @Test("object members keep their order")
    func keyOrderKept() throws {
        let value = try JSONParser.parse(#"{"zeta":1,"alpha":2,"mid":3}"#)
        #expect(value.objectValue?.keys == ["zeta", "alpha", "mid"])
    }

    @Test("escapes decode to the characters they name")
    func escapes() throws {
        let value = try JSONParser.parse(#""\"\\\/\b\f\n\r\t\u00e9\u2603""#)
        #expect(value == .string("\"\\/\u{08}\u{0C}\n\r\t\u{E9}\u{2603}"))
    }

    @Test("a surrogate pair decodes to one scalar")
    func surrogatePair() throws {
        #expect(try JSONParser.parse(#""\ud83d\ude00""#) == .string("😀"))
    }

    @Test("a lone surrogate escape is rejected")
    func loneSurrogate() {
        #expect(parseFailure(#""\ud800""#) != nil)
        #expect(parseFailure(#""\udc00x""#) != nil)
    }

    @Test("raw UTF-8 text decodes unchanged")
    func rawUnicode() throws {
        #expect(try JSONParser.parse("\"héllo ☃ 😀 日本\"") == .string("héllo ☃ 😀 日本"))
    }

    @Test("\\u0000 inside a string value is kept")
    func nulEscapeInString() throws {
        let value = try JSONParser.parse(#""a\u0000b""#)
        #expect(value == .string("a\u{0}b"))
        #expect(value.stringValue?.unicodeScalars.count == 3)
    }

    @Test("\\u0000 inside an object key is rejected")
    func nulEscapeInKey() {
        #expect(parseFailure(#"{"a\u0000b":1}"#)?.kind == .nullInKey)
    }

    @Test("a raw control character inside a string is rejected")
    func rawControlCharacter() {
        #expect(parseFailure([0x22, 0x61, 0x00, 0x62, 0x22]) != nil)
        #expect(parseFailure([0x22, 0x61, 0x0A, 0x62, 0x22]) != nil)
    }

    // MARK: numbers

    @Test("Int64 extremes parse exactly")
    func int64Extremes() throws {
        #expect(try JSONParser.parse("9223372036854775807") == .int(Int64.max))
        #expect(try JSONParser.parse("-9223372036854775808") == .int(Int64.min))
        #expect(try JSONParser.parse("0") == .int(0))
        #expect(try JSONParser.parse("-0") == .int(0))
    }

    @Test(
        "integers beyond Int64 are a numberOutOfRange error",
        arguments: [
            "9223372036854775808", "-9223372036854775809", "100000000000000000000000", "[1,99999999999999999999]",
        ])
    func integerOverflow(text: String) {
        #expect(parseFailure(text)?.kind == .numberOutOfRange)
    }

    @Test("a real beyond Double is a numberOutOfRange error")
    func realOverflow() {
        #expect(parseFailure("1e400")?.kind == .numberOutOfRange)
    }

    @Test("small and large reals parse exactly")
    func reals() throws {
        #expect(try JSONParser.parse("0.1") == .double(0.1))
        #expect(try JSONParser.parse("1e300") == .double(1e300))
        #expect(try JSONParser.parse("5e-324") == .double(.leastNonzeroMagnitude))
        #expect(try JSONParser.parse("1.7976931348623157e308") == .double(.greatestFiniteMagnitude))
    }

    @Test("JSON number syntax is enforced", arguments: ["01", "+1", ".5", "1.", "0x10", "NaN", "Infinity", "-"])
    func badNumbers(text: String) {
        #expect(parseFailure(text) != nil)
    }

    // MARK: rejections

    @Test("duplicate keys are rejected, at any depth")
    func duplicateKeys() {
        #expect(parseFailure(#"{"a":1,"a":2}"#)?.kind == .duplicateKey)
        #expect(parseFailure(#"{"a":1,"a":1}"#)?.kind == .duplicateKey)
        #expect(parseFailure(#"{"x":[{"k":1,"b":2,"k":3}]}"#)?.kind == .duplicateKey)
    }

    @Test("keys that differ only by case or escape spelling")
    func keysDistinctOrEscapedDuplicates() throws {
        #expect(try JSONParser.parse(#"{"a":1,"A":2}"#).objectValue?.count == 2)
        // "\u0061" is "a": the same key spelled two ways is still a duplicate.
        #expect(parseFailure(#"{"a":1,"\u0061":2}"#)?.kind == .duplicateKey)
    }

    @Test(
        "invalid UTF-8 is rejected",
        arguments: [
            [0x22, 0xFF, 0x22],  // never valid
            [0x22, 0xC0, 0xAF, 0x22],  // overlong "/"
            [0x22, 0xED, 0xA0, 0x80, 0x22],  // encoded surrogate
            [0x22, 0xE2, 0x98, 0x22],  // truncated sequence
            [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],  // above U+10FFFF
            [0x7B, 0x22, 0xFE, 0x22, 0x3A, 0x31, 0x7D],  // in a key
        ] as [[UInt8]])
    func invalidUTF8(bytes: [UInt8]) {
        #expect(parseFailure(bytes)?.kind == .invalidUTF8)
    }

    @Test("nesting 64 deep parses")
    func depth64() throws {
        let arrays = try JSONParser.parse(nestedArrays(64))
        #expect(arrays.depth == 64)
        let objects = try JSONParser.parse(nestedObjects(64))
        #expect(objects.depth == 64)
    }

    @Test("nesting 65 deep is a tooDeep error", arguments: [65, 66, 200, 2047, 2048, 5000])
    func tooDeep(depth: Int) {
        #expect(parseFailure(nestedArrays(depth))?.kind == .tooDeep)
        #expect(parseFailure(nestedObjects(depth))?.kind == .tooDeep)
    }

    @Test("a tooDeep error is at the bracket that opens level 65, however deep the text goes", arguments: [65, 2048, 2049, 5000])
    func tooDeepPosition(depth: Int) {
        let arrays = parseFailure(nestedArrays(depth))
        #expect(arrays?.line == 1 && arrays?.column == 65)
        // Lines and characters as jansson counts them: brackets in a string do not count, "é" is one column.
        let wide = #"{"é[":"[{","k":"# + String(repeating: "[", count: 64) + String(repeating: "]", count: 64) + "}"
        let onWide = parseFailure(wide)
        #expect(onWide?.kind == .tooDeep && onWide?.line == 1 && onWide?.column == 79)
        let tall = #"{"k":"# + "\n" + String(repeating: "[", count: 63) + "\n [" + String(repeating: "]", count: 64) + "}"
        let onTall = parseFailure(tall)
        #expect(onTall?.kind == .tooDeep && onTall?.line == 3 && onTall?.column == 2)
    }

    @Test("depth counts containers mixed and in any branch")
    func mixedDepth() {
        // 63 arrays then an object holding an array: 65 containers on one path.
        let deep = String(repeating: "[", count: 63) + #"{"k":[1]}"# + String(repeating: "]", count: 63)
        #expect(parseFailure(deep)?.kind == .tooDeep)
        // The deep branch is the second element of a shallow array.
        let late = "[1," + nestedArrays(64) + "]"
        #expect(parseFailure(late)?.kind == .tooDeep)
        let fine = "[1," + nestedArrays(63) + "]"
        #expect(parseFailure(fine) == nil)
    }

    @Test("truncated input is prematureEnd")
    func prematureEnd() {
        #expect(parseFailure("{")?.kind == .prematureEnd)
        #expect(parseFailure(#"{"a":"#)?.kind == .prematureEnd)
        #expect(parseFailure(#"["abc"#)?.kind == .prematureEnd)
    }

    @Test("text after the value is trailingData")
    func trailingData() {
        #expect(parseFailure("{} {}")?.kind == .trailingData)
        #expect(parseFailure("1 2")?.kind == .trailingData)
    }

    @Test("empty input and bare words fail")
    func emptyAndBareWords() {
        #expect(parseFailure("") != nil)
        #expect(parseFailure("   ") != nil)
        #expect(parseFailure("nul") != nil)
        #expect(parseFailure("{a:1}") != nil)
        #expect(parseFailure("[1,]") != nil)
        #expect(parseFailure("{\"a\":1,}") != nil)
        #expect(parseFailure("'a'") != nil)
    }

    @Test("a UTF-8 byte order mark is not JSON (the splitter strips one at stream start)")
    func byteOrderMark() {
        #expect(parseFailure([0xEF, 0xBB, 0xBF, 0x7B, 0x7D]) != nil)
    }

    // MARK: error positions and messages

    @Test("the error names the line and column")
    func errorPosition() {
        let error = parseFailure("{\n  \"a\": tru\n}")
        #expect(error?.kind == .invalidSyntax)
        #expect(error?.line == 2)
        #expect(error?.column == 10)  // the last character of the bad token
    }

    @Test("an error on the first line")
    func errorPositionFirstLine() {
        let error = parseFailure(#"{"a":1 "b":2}"#)
        #expect(error?.line == 1)
        #expect(error?.column == 10)
    }

    @Test("line and column are never below 1")
    func positionsAtLeastOne() {
        for text in ["", "{", "\n\n", "]", nestedArrays(65)] {
            let error = parseFailure(text)
            #expect((error?.line ?? 0) >= 1)
            #expect((error?.column ?? 0) >= 1)
        }
    }

    @Test("the message never quotes the input")
    func messageDoesNotQuoteInput() {
        let inputs = [
            #"{"pin":"hunter2" oops}"#, #"{"pin":"hunter2","pin":"hunter2"}"#, #"["hunter2",hunter2]"#,
            #"{"hunter2":99999999999999999999999}"#,
        ]
        for text in inputs {
            let error = parseFailure(text)
            #expect(error != nil)
            #expect(error.map { !$0.message.contains("hunter2") } == true)
        }
    }

    @Test(
        "every kind has its own message",
        arguments: [
            JSONParseError.Kind.invalidSyntax, .invalidUTF8, .duplicateKey, .tooDeep, .numberOutOfRange, .prematureEnd,
            .trailingData, .nullCharacter, .nullInKey,
        ])
    func messages(kind: JSONParseError.Kind) {
        let message = JSONParseError(kind: kind, line: 1, column: 1).message
        #expect(message.hasPrefix("Parse error: "))
        #expect(!message.contains("\n"))
    }

    @Test("the tooDeep message names the limit")
    func tooDeepMessage() {
        #expect(parseFailure(nestedArrays(65))?.message.contains("64") == true)
    }

    @Test("the three entry points agree")
    func entryPoints() throws {
        let text = #"{"a":[1,2.5,"x",null,true]}"#
        let fromString = try JSONParser.parse(text)
        let fromBytes = try JSONParser.parse(Array(text.utf8))
        let fromBuffer = try Array(text.utf8).withUnsafeBytes { buffer throws(JSONParseError) in
            try JSONParser.parse(buffer)
        }
        #expect(fromString == fromBytes)
        #expect(fromBytes == fromBuffer)
    }
}
