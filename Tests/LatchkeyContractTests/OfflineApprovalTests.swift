import Crypto
import Testing

@testable import LatchkeyContract

/// The offline code: RFC 4226's truncation checked on its own test vectors; both halves derive the same part from the two sides of one
/// key agreement; the QR payload reads back what was written, and refuses every flaw.
@Suite struct OfflineApprovalTests {
    @Test("RFC 4226 appendix D: HOTP of the test secret for counters 0–9")
    func rfc4226Vectors() {
        let secret = SymmetricKey(data: Array("12345678901234567890".utf8))
        let expected = ["755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489"]
        for (counter, hotp) in expected.enumerated() {
            var message = [UInt8](repeating: 0, count: 8)
            message[7] = UInt8(counter)
            let mac = Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: secret))
            #expect(OfflineCode.truncate(mac, digits: 6) == hotp, "counter \(counter)")
        }
        // The 8-digit form keeps leading zeros: counter 0's truncated value is 1284755224.
        var zero = [UInt8](repeating: 0, count: 8)
        zero[7] = 0
        #expect(OfflineCode.truncate(Array(HMAC<Insecure.SHA1>.authenticationCode(for: zero, using: secret))) == "84755224")
        #expect(OfflineCode.truncate([UInt8](repeating: 0, count: 31) + [0x00]) == "00000000")
    }

    @Test("the phone's part and the server's part agree; another role, nonce or registration differs")
    func bothHalvesAgree() throws {
        let phone = P256.KeyAgreement.PrivateKey()
        let server = P256.KeyAgreement.PrivateKey()
        let phonePublic = try #require(PublicKey(sec1: Array(phone.publicKey.x963Representation)))
        let serverPublic = try #require(PublicKey(sec1: Array(server.publicKey.x963Representation)))
        let onPhone = try OfflineCode.sharedSecret(privateKey: Array(phone.rawRepresentation), publicKey: serverPublic)
        let onServer = try OfflineCode.sharedSecret(privateKey: Array(server.rawRepresentation), publicKey: phonePublic)
        #expect(onPhone == onServer)
        #expect(onPhone.count == 32)
        let part = { (role: KeyRole, registration: String, nonce: String) in
            OfflineCode.part(sharedSecret: onPhone, role: role, registrationId: registration, operationId: "op", operationHash: "h", nonce: nonce)
        }
        #expect(part(.pin, "reg", "n").count == 8)
        #expect(part(.pin, "reg", "n").allSatisfy { $0.isNumber })
        #expect(part(.pin, "reg", "n") != part(.device, "reg", "n"))
        #expect(part(.pin, "reg", "n") != part(.pin, "reg2", "n"))
        #expect(part(.pin, "reg", "n") != part(.pin, "reg", "m"))
        #expect(OfflineCode.isWellFormed("01234567-89012345"))
        for wrong in ["0123456789012345", "0123456-789012345", "0123456a-89012345", "01234567-8901234", " 1234567-89012345"] {
            #expect(!OfflineCode.isWellFormed(wrong), "\(wrong)")
        }
    }

    private func signed(_ key: P256.Signing.PrivateKey, title: String = "Pay\\me", message: String = "line one\nline two") throws -> String {
        let text = QRPayload.signedText(
            operationId: "op-1", title: title, message: message, data: "A1*A10.00EUR", biometric: true, nonce: Base64URL.encode(Array(0..<16)))
        return text + "\n" + Base64URL.encode(Array(try key.signature(for: Array(text.utf8)).derRepresentation))
    }

    @Test("a payload reads back what was written, escapes undone, signature checked")
    func payloadRoundTrip() throws {
        let key = P256.Signing.PrivateKey()
        let publicKey = try #require(PublicKey(sec1: Array(key.publicKey.x963Representation)))
        let payload = try QRPayload.parse(try signed(key), verifyingWith: publicKey)
        #expect(payload.title == "Pay\\me")
        #expect(payload.message == "line one\nline two")
        #expect(payload.biometric)
        #expect(payload.operationHash == OperationHash.of(operationId: "op-1", title: "Pay\\me", message: "line one\nline two", data: "A1*A10.00EUR"))
        let other = try #require(PublicKey(sec1: Array(P256.Signing.PrivateKey().publicKey.x963Representation)))
        #expect(throws: QRPayloadError.self) { try QRPayload.parse(try signed(key), verifyingWith: other) }
    }

    @Test(
        "escaping works scalar by scalar: a backslash or newline next to what combines with it reads back as it was, two texts never share a line",
        arguments: [
            ("Pay\u{0600}\\nto Mallory", "Pay\u{0600}\nto Mallory"), ("Pay\n\u{0301}to Mallory", "Pay\\n\u{0301}to Mallory"),
            ("\u{0600}\\", "\u{0600}\n"),
        ])
    func escapingIsByScalars(_ first: String, _ second: String) throws {
        let key = P256.Signing.PrivateKey()
        let publicKey = try #require(PublicKey(sec1: Array(key.publicKey.x963Representation)))
        #expect(QRPayload.escape(first) != QRPayload.escape(second))
        for message in [first, second] {
            #expect(
                try QRPayload.parse(try signed(key, message: message), verifyingWith: publicKey).message.unicodeScalars.elementsEqual(
                    message.unicodeScalars))
        }
    }

    @Test("a line missing, one too many, a changed line, a bad nonce or flags: refused")
    func payloadFlaws() throws {
        let key = P256.Signing.PrivateKey()
        let publicKey = try #require(PublicKey(sec1: Array(key.publicKey.x963Representation)))
        let good = try signed(key)
        var lines = good.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let flawed: [String] = [
            lines.dropLast().joined(separator: "\n"), good + "\n", lines.enumerated().map { $0 == 4 ? "A1*A99.00EUR" : $1 }.joined(separator: "\n"),
            lines.enumerated().map { $0 == 5 ? "X" : $1 }.joined(separator: "\n"),
            lines.enumerated().map { $0 == 6 ? "AAAA" : $1 }.joined(separator: "\n"),
            lines.enumerated().map { $0 == 0 ? "LATCHKEY-QR-V2" : $1 }.joined(separator: "\n"), String(repeating: "x", count: 5000),
        ]
        for text in flawed {
            #expect(throws: QRPayloadError.self, "\(text.prefix(60))") { try QRPayload.parse(text, verifyingWith: publicKey) }
        }
        lines[2] = "bad\\escape"
        #expect(throws: QRPayloadError.self) { try QRPayload.parse(lines.joined(separator: "\n")) }
    }

    @Test("the QR fuzz entry takes any bytes")
    func fuzz() {
        let random = SeededRandomSource(seed: 40)
        for length in 0..<1500 { QRPayload.fuzz(Array("LATCHKEY-QR-V1\n".utf8) + random.bytes(length % 120)) }
    }

    @Test("standard base64: padded, canonical")
    func base64() {
        #expect(Base64.encode([0xFB, 0xFF]) == "+/8=")
        #expect(Base64.decode("+/8=") == [0xFB, 0xFF])
        for bad in ["+/8", "+/9=", "-_8=", "+/8==", "=+/8", "+/ 8="] { #expect(Base64.decode(bad) == nil, "\(bad)") }
        #expect(Base64.decode("") == [])
    }
}
