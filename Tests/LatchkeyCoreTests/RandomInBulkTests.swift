import Synchronization
import Testing

@testable import LatchkeyContract

/// Strings drawn in bulk are the strings a draw a character gave, from the same seed (so every
/// golden transcript keeps its bytes); the system source serves each byte of its pool once.
@Suite struct RandomInBulkTests {
    /// What `string(count:alphabet:)` drew before it drew in bulk: `uniform` a character.
    private func characterByCharacter(_ random: RandomSource, _ count: Int, _ alphabet: [Character]) -> String {
        String((0..<count).map { _ in alphabet[Int(random.uniform(UInt64(alphabet.count)))] })
    }

    @Test func aStringDrawnInBulkIsTheStringDrawnACharacterAtATime() {
        let bulk = SeededRandomSource(seed: 37)
        let oneByOne = SeededRandomSource(seed: 37)
        for (count, alphabet) in [(16, Array("abcdefghijklmnopqrstuvwxyz234567")), (8, Array("0123456789")), (1, Array("ab")), (40, Array("ABC"))] {
            #expect(bulk.string(count: count, alphabet: alphabet) == characterByCharacter(oneByOne, count, alphabet))
            // What follows is drawn from the same place in the stream too.
            #expect(bulk.bytes(5) == oneByOne.bytes(5))
        }
        #expect(bulk.identifier("evt") == "evt_" + characterByCharacter(oneByOne, 16, Array("abcdefghijklmnopqrstuvwxyz234567")))
    }

    @Test func aUUIDIsVersionFourLowerCase() {
        let random = SeededRandomSource(seed: 38)
        let raw = SeededRandomSource(seed: 38).bytes(16)
        let uuid = random.uuid()
        #expect(uuid.count == 36)
        #expect(Array(uuid.utf8).enumerated().filter { $0.element == UInt8(ascii: "-") }.map(\.offset) == [8, 13, 18, 23])
        #expect(uuid.hasPrefix(raw.prefix(4).map { String($0 >> 4, radix: 16) + String($0 & 15, radix: 16) }.joined()))
        #expect(Array(uuid)[14] == "4")
    }

    @Test func theSystemSourceServesItsPoolOnceAndRefillsIt() {
        let random = SystemRandomSource()
        let first = random.bytes(SystemRandomSource.poolSize - 8)
        let across = random.bytes(64)
        let again = random.bytes(32)
        #expect(first.count == SystemRandomSource.poolSize - 8 && across.count == 64 && again.count == 32)
        #expect(across != again && Set([first.prefix(32), across.prefix(32), again.prefix(32)]).count == 3)
        #expect(random.bytes(SystemRandomSource.poolSize * 2).count == SystemRandomSource.poolSize * 2)
    }

    @Test func thePoolIsFilledByOneDrawAPool() {
        let fills = Mutex(0)
        let random = SystemRandomSource { bytes in
            fills.withLock { $0 += 1 }
            SystemRandomSource.systemFill(&bytes)
        }
        _ = random.bytes(1)
        #expect(fills.withLock { $0 } == 1)
        for _ in 0..<(SystemRandomSource.poolSize / 32 - 1) { _ = random.bytes(32) }
        #expect(fills.withLock { $0 } == 1, "4 095 bytes are left after the first, 127 draws of 32 take 4 064")
        _ = random.bytes(64)
        #expect(fills.withLock { $0 } == 2)
    }

    @Test func theSystemFillFillsEveryByte() {
        // 64 KiB: a zero run of 64 bytes in random bytes has probability about 2^-512.
        var bytes = [UInt8](repeating: 0, count: 65_536)
        SystemRandomSource.systemFill(&bytes)
        for start in stride(from: 0, to: bytes.count, by: 64) {
            #expect(bytes[start..<start + 64].contains { $0 != 0 }, "bytes \(start)..<\(start + 64) were left zero")
        }
    }
}
