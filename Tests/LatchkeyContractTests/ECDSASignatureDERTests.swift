import Crypto
import Testing

@testable import LatchkeyContract

/// The strict DER reader of ECDSA signatures against swift-crypto's, on real signatures and on mutated ones.
@Suite struct ECDSASignatureDERTests {
    @Test("a real signature reads as swift-crypto reads it (short r or s included), and verifies")
    func realSignatures() throws {
        let key = P256.Signing.PrivateKey()
        let cose = COSEKey(key.publicKey)
        for index in 0..<300 {
            let message = Array("message \(index)".utf8)
            let der = Array(try key.signature(for: message).derRepresentation)
            let theirs = try P256.Signing.ECDSASignature(derRepresentation: der).rawRepresentation
            #expect(ECDSASignatureDER.rawP256(der) == Array(theirs))
            #expect(cose.verify(signature: der, over: message))
            #expect(!cose.verify(signature: der, over: message + [0]))
        }
    }

    @Test("what swift-crypto refuses is refused; what both read, both read alike", arguments: 0..<4)
    func mutations(seed: UInt64) throws {
        var generator = Draws(source: SeededRandomSource(seed: seed))
        let key = P256.Signing.PrivateKey()
        for index in 0..<2_000 {
            var der = Array(try key.signature(for: Array("m\(index)".utf8)).derRepresentation)
            for _ in 0...Int(generator.next() % 3) { Self.mutate(&der, &generator) }
            let ours = ECDSASignatureDER.rawP256(der)
            let theirs = (try? P256.Signing.ECDSASignature(derRepresentation: der)).map { Array($0.rawRepresentation) }
            if theirs == nil { #expect(ours == nil, "read where swift-crypto refuses: \(der)") }
            if let ours, let theirs { #expect(ours == theirs, "\(der)") }
        }
    }

    @Test("forms that are not DER are refused")
    func notDER() {
        let r = [UInt8](repeating: 0x11, count: 32)
        let s = [UInt8](repeating: 0x22, count: 32)
        func sequence(_ body: [UInt8]) -> [UInt8] { [0x30, UInt8(body.count)] + body }
        func integer(_ value: [UInt8]) -> [UInt8] { [0x02, UInt8(value.count)] + value }
        let good = sequence(integer(r) + integer(s))
        #expect(ECDSASignatureDER.rawP256(good) == r + s)
        #expect(ECDSASignatureDER.rawP256(sequence(integer([0x00] + r) + integer(s))) == nil, "a needless leading zero")
        #expect(ECDSASignatureDER.rawP256(sequence(integer([0x80] + r.dropFirst()) + integer(s))) == nil, "a negative r")
        #expect(ECDSASignatureDER.rawP256(sequence(integer([0x01] + r) + integer(s))) == nil, "33 bytes of value")
        #expect(ECDSASignatureDER.rawP256(good + [0]) == nil, "a byte after the sequence")
        #expect(ECDSASignatureDER.rawP256([0x30, 0x81, 68] + integer(r) + integer(s)) == nil, "a long-form length under 128")
        #expect(ECDSASignatureDER.rawP256(sequence(integer(r))) == nil, "one integer")
        #expect(ECDSASignatureDER.rawP256(sequence(integer(r) + integer(s) + integer([1]))) == nil, "three integers")
        #expect(ECDSASignatureDER.rawP256(sequence(integer([]) + integer(s))) == nil, "an empty integer")
        let high = [0x80] + [UInt8](repeating: 0, count: 31)
        #expect(ECDSASignatureDER.rawP256(sequence(integer([0x00] + high) + integer([0x05]))) == high + [UInt8](repeating: 0, count: 31) + [5])
    }

    private static func mutate(_ bytes: inout [UInt8], _ generator: inout Draws) {
        let position = bytes.isEmpty ? 0 : Int(generator.next() % UInt64(bytes.count))
        switch generator.next() % 6 {
        case 0 where !bytes.isEmpty: bytes[position] ^= UInt8(1 << (generator.next() % 8))
        case 1 where !bytes.isEmpty: bytes[position] = UInt8(truncatingIfNeeded: generator.next())
        case 2 where !bytes.isEmpty: bytes.remove(at: position)
        case 3: bytes.insert(UInt8(truncatingIfNeeded: generator.next()), at: position)
        case 4: bytes = Array(bytes.prefix(position))
        default: if bytes.count > 3 { bytes[[1, 3][Int(generator.next() % 2)]] &+= UInt8(truncatingIfNeeded: generator.next() % 3) &- 1 }
        }
    }

    /// Numbers for the mutations, from the seeded generator.
    struct Draws {
        let source: SeededRandomSource
        mutating func next() -> UInt64 { source.bytes(8).reduce(0) { $0 << 8 | UInt64($1) } }
    }
}
