import LatchkeyContract
import Testing

@testable import LatchkeyCore

@Suite struct EnvironmentTests {
    @Test func timestampsRoundTrip() {
        #expect(Timestamp.format(1_767_225_600) == "2026-01-01T00:00:00Z")
        #expect(Timestamp.parse("2026-01-04T00:00:00Z") == Int64(1_767_484_800))
        #expect(Timestamp.parse("2026-01-01T01:00:00+01:00") == 1_767_225_600)
        #expect(Timestamp.parse("2026-13-01T00:00:00Z") == nil)
        #expect(Timestamp.parse("2026-02-30T00:00:00Z") == nil, "a day February does not have")
        #expect(Timestamp.parse("2023-02-29T00:00:00Z") == nil, "not a leap year")
        #expect(Timestamp.parse("2024-02-29T00:00:00Z") == 1_709_164_800)
        #expect(Timestamp.parse("2026-01-01T00:00:60Z") == nil, "no leap seconds here")
        #expect(Timestamp.format(Timestamp.writable.upperBound) == "9999-12-31T23:59:59Z")
        #expect(Timestamp.format(Timestamp.writable.lowerBound) == "0000-01-01T00:00:00Z")
        #expect(Timestamp.format(0) == "1970-01-01T00:00:00Z")
        #expect(Timestamp.format(951_782_400) == "2000-02-29T00:00:00Z")
        #expect(Timestamp.isValidDate("2000-02-29"))
        #expect(!Timestamp.isValidDate("2001-02-29"))
    }

    @Test func seededGeneratorReplaysAndSeedsDiffer() {
        let a = SeededRandomSource(seed: 1)
        let b = SeededRandomSource(seed: 1)
        let c = SeededRandomSource(seed: 2)
        let first = a.bytes(100)
        #expect(first == b.bytes(100))
        #expect(first != c.bytes(100))
        #expect(a.bytes(7) + a.bytes(9) == b.bytes(16))
    }

    @Test func uniformStaysInRangeAndDigitsAreDigits() {
        let random = SeededRandomSource(seed: 3)
        for _ in 0..<1000 { #expect(random.uniform(10) < 10) }
        #expect(random.digits(8).allSatisfy { $0.isNumber })
        #expect(random.secret(byteCount: 16).count == 22)
    }

    @Test func base64URLIsUnpadded() {
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
        #expect(Base64URL.encode(Array("any carnal pleasure".utf8)) == "YW55IGNhcm5hbCBwbGVhc3VyZQ")
    }

    @Test func manualClockMovesOnlyWhenTold() throws {
        let clock = ManualClock(start: 100)
        #expect(clock.now == 100)
        try clock.advance(by: 5)
        #expect(clock.now == 105)
        #expect(throws: DomainError.self) { try SystemClock().advance(by: 1) }
    }

    @Test func queryParametersAreEncodedBeforeTheFragment() {
        #expect(
            URLQuery.appending([("verification_code", "123456"), ("email", "a+b@x.com")], to: "app://r?x=1#top")
                == "app://r?x=1&verification_code=123456&email=a%2Bb%40x.com#top")
        #expect(URLQuery.appending([("c", "1")], to: "app://r") == "app://r?c=1")
    }
}
