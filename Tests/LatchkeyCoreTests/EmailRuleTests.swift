import Testing

@testable import LatchkeyCore

/// An ASCII address is checked byte by byte (`Identifiers.isASCIIEmail`); it must answer as the
/// character-by-character rule does, and every other text still goes by characters.
@Suite struct EmailRuleTests {
    static let samples: [String] = [
        "user@example.com", "a@b.c", "first.last+tag@sub.example.co.uk", "user@example.com.", "user@.example.com", "@example.com",
        "user@example", "user@@example.com", "us@er@example.com", "user@exa mple.com", " user@example.com", "user@example.com\n",
        "user@example.com\r\n", "user\r@example.com", "user\u{0B}@example.com", "user\u{0C}@example.com", "user\t@example.com", "",
        "@", "@.", "a@.", "a@b.", ".@a.b", "a@b..c", "a@b.c@", String(repeating: "a", count: 242) + "@example.com",
        String(repeating: "a", count: 243) + "@example.com", String(repeating: "a", count: 300) + "@example.com",
    ]

    @Test(arguments: samples) func asciiAnswersAsCharactersDo(_ text: String) {
        #expect(Identifiers.isASCIIEmail(text.utf8) == Identifiers.isEmailByCharacters(text))
        #expect(Identifiers.isEmail(text) == Identifiers.isEmailByCharacters(text))
    }

    @Test func theRuleItself() {
        #expect(Identifiers.isEmail("user@example.com"))
        #expect(Identifiers.isEmail(String(repeating: "a", count: 242) + "@example.com"))  // 254
        #expect(!Identifiers.isEmail(String(repeating: "a", count: 243) + "@example.com"))  // 255
        #expect(!Identifiers.isEmail("user@example.com\r\n"))
        #expect(!Identifiers.isEmail("user@example"))
    }

    @Test func otherTextGoesByCharacters() {
        #expect(Identifiers.isEmail("josé@exämple.com"))
        #expect(!Identifiers.isEmail("josé@exämple.com\u{2028}"))  // a line separator
        #expect(!Identifiers.isEmail("josé@exämple.com\u{85}"))  // next line
        // 254 characters of which one is two bytes: still 254 characters.
        #expect(Identifiers.isEmail("é" + String(repeating: "a", count: 241) + "@example.com"))
    }
}
