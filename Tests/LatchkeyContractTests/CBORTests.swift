import Testing

@testable import LatchkeyContract

/// The strict CBOR codec: RFC 8949 items round-trip canonically; everything the contract refuses
/// is refused with its error, never a trap or a huge allocation.
@Suite struct CBORTests {
    func decode(_ bytes: [UInt8]) throws(CBORError) -> CBOR { try CBORDecoder.decode(bytes) }

    func refused(_ bytes: [UInt8]) -> CBORError? {
        do {
            _ = try decode(bytes)
            return nil
        } catch {
            return error
        }
    }

    @Test("RFC 8949 appendix A examples decode")
    func appendixA() throws {
        #expect(try decode([0x00]) == .unsigned(0))
        #expect(try decode([0x17]) == .unsigned(23))
        #expect(try decode([0x18, 0x18]) == .unsigned(24))
        #expect(try decode([0x19, 0x03, 0xE8]) == .unsigned(1000))
        #expect(try decode([0x1B, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]) == .unsigned(.max))
        #expect(try decode([0x20]) == .int(-1))
        #expect(try decode([0x38, 0x63]) == .int(-100))
        #expect(try decode([0x39, 0x01, 0x00]) == .int(-257))
        // −2⁶⁴: below Int64.min, kept as its raw argument.
        let lowest = try decode([0x3B, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        #expect(lowest == .negative(.max))
        #expect(lowest.int64Value == nil)
        #expect(try decode([0x3B, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]).int64Value == .min)
        #expect(try decode([0x44, 1, 2, 3, 4]) == .bytes([1, 2, 3, 4]))
        #expect(try decode([0x62, 0xC3, 0xBC]) == .text("ü"))
        #expect(
            try decode([0x83, 0x01, 0x82, 0x02, 0x03, 0x81, 0x04])
                == .array([.unsigned(1), .array([.unsigned(2), .unsigned(3)]), .array([.unsigned(4)])]))
        #expect(
            try decode([0xA2, 0x01, 0x02, 0x03, 0x04])
                == .map([CBORMapEntry(.unsigned(1), .unsigned(2)), CBORMapEntry(.unsigned(3), .unsigned(4))]))
        #expect(try decode([0xF4]) == .bool(false))
        #expect(try decode([0xF5]) == .bool(true))
        #expect(try decode([0xF6]) == .null)
        #expect(try decode([0xF7]) == .undefined)
        #expect(try decode([0xF9, 0x3C, 0x00]) == .float(1.0))
        #expect(try decode([0xF9, 0x00, 0x01]) == .float(5.960464477539063e-8))
        #expect(try decode([0xF9, 0x7B, 0xFF]) == .float(65504.0))
        #expect(try decode([0xF9, 0xC4, 0x00]) == .float(-4.0))
        #expect(try decode([0xF9, 0x7C, 0x00]) == .float(.infinity))
        #expect(try decode([0xFA, 0x47, 0xC3, 0x50, 0x00]) == .float(100000.0))
        #expect(try decode([0xFB, 0x3F, 0xF1, 0x99, 0x99, 0x99, 0x99, 0x99, 0x9A]) == .float(1.1))
        // A non-shortest argument is read (the contract does not ask for canonical input).
        #expect(try decode([0x18, 0x01]) == .unsigned(1))
    }

    @Test("a map keeps the order read, and the helpers find integer and text keys")
    func mapOrderAndLookup() throws {
        let value = try decode([0xA3, 0x63, 0x66, 0x6D, 0x74, 0x64, 0x6E, 0x6F, 0x6E, 0x65, 0x03, 0x26, 0x01, 0x02])
        #expect(value.mapValue?.map(\.key) == [.text("fmt"), .unsigned(3), .unsigned(1)])
        #expect(value["fmt"] == .text("none"))
        #expect(value[3] == .int(-7))
        #expect(value[1]?.int64Value == 2)
        #expect(value[-1] == nil)
        #expect(CBOR.unsigned(1)["x"] == nil)
    }

    @Test("the encoder is canonical: shortest heads, keys by major type, then length, then bytes; round trips")
    func canonicalEncoding() throws {
        #expect(CBOR.unsigned(23).encoded == [0x17])
        #expect(CBOR.unsigned(24).encoded == [0x18, 0x18])
        #expect(CBOR.unsigned(256).encoded == [0x19, 0x01, 0x00])
        #expect(CBOR.unsigned(65536).encoded == [0x1A, 0x00, 0x01, 0x00, 0x00])
        #expect(CBOR.unsigned(1 << 32).encoded == [0x1B, 0, 0, 0, 1, 0, 0, 0, 0])
        #expect(CBOR.int(-257).encoded == [0x39, 0x01, 0x00])
        let map = CBOR.map([
            CBORMapEntry(.text("authData"), .bytes([1])), CBORMapEntry(.int(-1), .unsigned(1)),
            CBORMapEntry(.text("fmt"), .text("none")), CBORMapEntry(.unsigned(300), .null), CBORMapEntry(.unsigned(3), .bool(true)),
        ])
        let encoded = map.encoded
        let decoded = try CBORDecoder.decode(encoded)
        #expect(decoded.mapValue?.map(\.key) == [.unsigned(3), .unsigned(300), .int(-1), .text("fmt"), .text("authData")])
        #expect(decoded.encoded == encoded)
        let nested = CBOR.array([.bytes([UInt8](repeating: 7, count: 300)), .text(String(repeating: "é", count: 20)), .float(-2.5), .undefined])
        #expect(try CBORDecoder.decode(nested.encoded) == nested)
    }

    @Test("indefinite lengths and break codes are refused in every major type")
    func indefiniteLengths() {
        for initial: UInt8 in [0x5F, 0x7F, 0x9F, 0xBF] {
            #expect(refused([initial, 0xFF]) == .indefiniteLength)
        }
        #expect(refused([0x1F]) == .indefiniteLength)
        #expect(refused([0xFF]) == .indefiniteLength)
        #expect(refused([0x82, 0x01, 0xFF]) == .indefiniteLength)
    }

    @Test("tags are refused, even a standard one around a valid item")
    func tags() {
        #expect(refused([0xC1, 0x1A, 0x51, 0x4B, 0x67, 0xB0]) == .tag)
        #expect(refused([0xD8, 0x18, 0x41, 0x00]) == .tag)
        #expect(refused([0x81, 0xC0, 0x60]) == .tag)
    }

    @Test("reserved additional information and unassigned simple values are refused")
    func reserved() {
        for info: UInt8 in [28, 29, 30] {
            #expect(refused([info]) == .reservedAdditionalInfo)
            #expect(refused([0xE0 | info]) == .reservedAdditionalInfo)
        }
        #expect(refused([0xE0]) == .unsupportedSimpleValue)
        #expect(refused([0xF8, 0x20]) == .unsupportedSimpleValue)
    }

    @Test("duplicate map keys are refused, compared by canonical encoding (texts by bytes, floats by bits)")
    func duplicateKeys() {
        #expect(refused([0xA2, 0x01, 0x00, 0x01, 0x00]) == .duplicateKey)
        #expect(refused([0xA2, 0x61, 0x61, 0x00, 0x61, 0x61, 0x01]) == .duplicateKey)
        // The same key in two spellings (a non-shortest head) is the same key.
        #expect(refused([0xA2, 0x01, 0x00, 0x18, 0x01, 0x00]) == .duplicateKey)
        #expect(refused([0xA1, 0x81, 0xA2, 0x20, 0x00, 0x20, 0x00]) == .duplicateKey)
        #expect(refused([0xA2, 0x01, 0x00, 0x02, 0x00]) == nil)
        // A NaN twice (byte for byte) is a key twice, though NaN != NaN.
        #expect(refused([0xA2, 0xF9, 0x7E, 0x00, 0x01, 0xF9, 0x7E, 0x00, 0x02]) == .duplicateKey)
        // Texts are compared by their bytes: "é" precomposed and "e" + U+0301, "K" and U+212A KELVIN SIGN are two keys.
        #expect(refused([0xA2, 0x62, 0xC3, 0xA9, 0x01, 0x63, 0x65, 0xCC, 0x81, 0x02]) == nil)
        #expect(refused([0xA2, 0x61, 0x4B, 0x01, 0x63, 0xE2, 0x84, 0xAA, 0x02]) == nil)
    }

    @Test("16 levels of nesting read; 17 are refused")
    func depth() {
        let sixteen = [UInt8](repeating: 0x81, count: 15) + [0x80]
        #expect(refused(sixteen) == nil)
        let seventeen = [UInt8](repeating: 0x81, count: 16) + [0x80]
        #expect(refused(seventeen) == .tooDeep)
        let maps: [UInt8] = Array([[UInt8]](repeating: [0xA1, 0x00], count: 16).joined()) + [0xA0]
        #expect(refused(maps) == .tooDeep)
        #expect(refused(Array(maps.dropFirst(2))) == nil)
        #expect(refused([UInt8](repeating: 0x81, count: 100_000)) == .tooDeep)
    }

    @Test("a declared length or count beyond the input is refused before any allocation")
    func hugeLengths() {
        let huge: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        for major: UInt8 in [0x5B, 0x7B, 0x9B, 0xBB] {
            #expect(refused([major] + huge) == .lengthExceedsInput)
            #expect(refused([major, 0x80, 0, 0, 0, 0, 0, 0, 0]) == .lengthExceedsInput, "2⁶³")
        }
        #expect(refused([0x44, 1, 2, 3]) == .lengthExceedsInput)
        #expect(refused([0x83, 0x01, 0x02]) == .lengthExceedsInput, "three elements, two bytes left")
        #expect(refused([0xA2, 0x01, 0x02, 0x03]) == .lengthExceedsInput, "two entries need four bytes")
    }

    @Test("truncated input is refused at every cut")
    func truncated() {
        let whole = CBOR.map([
            CBORMapEntry(.int(1), .int(2)), CBORMapEntry(.int(-2), .bytes([UInt8](repeating: 9, count: 32))),
            CBORMapEntry(.text("k"), .array([.unsigned(70000), .float(1.5)])),
        ]).encoded
        for cut in 0..<whole.count {
            #expect(refused(Array(whole.prefix(cut))) != nil, "cut at \(cut)")
        }
        #expect(refused([]) == .truncated)
        #expect(refused([0x19, 0x01]) == .truncated)
        #expect(refused(whole) == nil)
    }

    @Test("trailing bytes are refused by decode and handed back by decodePrefix")
    func trailing() throws {
        #expect(refused([0x01, 0x02]) == .trailingBytes)
        let bytes: [UInt8] = [0xA1, 0x01, 0x02, 0xFF, 0xEE]
        let (value, consumed) = try CBORDecoder.decodePrefix(bytes[...])
        #expect(value == .map([CBORMapEntry(.unsigned(1), .unsigned(2))]))
        #expect(consumed == 3)
        // A slice that does not start at zero.
        let (inner, innerConsumed) = try CBORDecoder.decodePrefix(bytes[1...])
        #expect(inner == .unsigned(1) && innerConsumed == 1)
    }

    @Test("text must be valid UTF-8: overlong forms, surrogates, stray continuation bytes are refused")
    func invalidUTF8() {
        #expect(refused([0x62, 0xC0, 0xAF]) == .invalidUTF8)
        #expect(refused([0x63, 0xED, 0xA0, 0x80]) == .invalidUTF8)
        #expect(refused([0x61, 0x80]) == .invalidUTF8)
        #expect(refused([0x61, 0xFF]) == .invalidUTF8)
        #expect(refused([0x62, 0xC3]) == .lengthExceedsInput)
        #expect(refused([0x42, 0xC0, 0xAF]) == nil, "a byte string is any bytes")
    }

    @Test("any bytes: the fuzz entry point returns, and what decodes re-encodes to an item that decodes to itself")
    func fuzzEntry() throws {
        // Seeded, so a failure replays: random bytes, and well-formed items with one byte changed.
        let random = SeededRandomSource(seed: 35)
        var decoded = 0
        var refused = 0
        for round in 0..<3000 {
            var bytes = round % 2 == 0 ? random.bytes(round % 48) : Self.item(random, depth: 0).encoded
            if round % 4 == 1, !bytes.isEmpty {
                let at = Int(random.uniform(UInt64(bytes.count)))
                bytes[at] ^= random.bytes(1)[0]
            }
            CBORDecoder.fuzz(bytes)
            do {
                let value = try decode(bytes)
                #expect(try decode(value.encoded) == value, "round trip of \(bytes)")
                decoded += 1
            } catch {
                refused += 1
            }
        }
        #expect(decoded > 50, "the generator reached too few well-formed items (\(decoded))")
        #expect(refused > 50, "the generator reached too few malformed items (\(refused))")
    }

    /// A random well-formed item, at most three levels deep.
    private static func item(_ random: RandomSource, depth: Int) -> CBOR {
        switch random.uniform(depth < 3 ? 7 : 5) {
        case 0: return .unsigned(random.uniform(1 << 40))
        case 1: return .int(-1 - Int64(random.uniform(1 << 20)))
        case 2: return .bytes(random.bytes(Int(random.uniform(40))))
        case 3: return .text(random.string(count: Int(random.uniform(12)), alphabet: Array("aé☃z0")))
        case 4: return [.bool(true), .bool(false), .null][Int(random.uniform(3))]
        case 5: return .array((0..<random.uniform(4)).map { _ in item(random, depth: depth + 1) })
        default:
            return .map((0..<random.uniform(4)).map { n in CBORMapEntry(.unsigned(n), item(random, depth: depth + 1)) })
        }
    }
}
