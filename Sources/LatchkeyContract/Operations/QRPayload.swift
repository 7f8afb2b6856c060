import Crypto

/// What a QR code carries for offline approval: eight lines joined by `\n`.
///
///     LATCHKEY-QR-V1
///     <operationId>
///     <title>        with "\" written "\\" and a newline "\n"
///     <message>      the same
///     <data>
///     <flags>        "B" when touchId or faceId may approve, else empty
///     <nonce>        16 random bytes, unpadded base64url
///     <signature>    ECDSA P-256 / SHA-256 over the seven lines above joined by \n, DER, unpadded base64url,
///                    by the application's operation-signing key
///
/// The phone parses untrusted text: the parser is bounded and answers `qrInvalid`, never traps.
public struct QRPayload: Sendable, Equatable {
    public static let header = "LATCHKEY-QR-V1"
    /// The most bytes a payload may have (the longest title, message and data escaped, with room to spare).
    public static let maxBytes = 4096

    public var operationId: String
    public var title: String
    public var message: String
    public var data: String
    /// Whether touchId or faceId may approve (the flags line `B`).
    public var biometric: Bool
    /// Unpadded base64url of 16 random bytes.
    public var nonce: String
    /// DER.
    public var signature: [UInt8]

    public init(operationId: String, title: String, message: String, data: String, biometric: Bool, nonce: String, signature: [UInt8]) {
        self.operationId = operationId
        self.title = title
        self.message = message
        self.data = data
        self.biometric = biometric
        self.nonce = nonce
        self.signature = signature
    }

    /// The seven lines the signature covers, joined by `\n`.
    public static func signedText(operationId: String, title: String, message: String, data: String, biometric: Bool, nonce: String) -> String {
        [header, operationId, escape(title), escape(message), data, biometric ? "B" : "", nonce].joined(separator: "\n")
    }

    public var signedText: String {
        Self.signedText(operationId: operationId, title: title, message: message, data: data, biometric: biometric, nonce: nonce)
    }

    /// The payload's text.
    public var text: String { signedText + "\n" + Base64URL.encode(signature) }

    /// The operation's hash, from what the payload shows.
    public var operationHash: String { OperationHash.of(operationId: operationId, title: title, message: message, data: data) }

    /// Reads a payload and checks its signature with `key` (the operation-signing key the phone keeps).
    /// - Throws: `QRPayloadError` naming what is wrong (the phone answers `qrInvalid`).
    public static func parse(_ text: String, verifyingWith key: PublicKey) throws(QRPayloadError) -> QRPayload {
        let payload = try parse(text)
        guard let signature = try? P256.Signing.ECDSASignature(derRepresentation: payload.signature),
            let verifier = try? P256.Signing.PublicKey(x963Representation: key.sec1),
            verifier.isValidSignature(signature, for: Array(payload.signedText.utf8))
        else { throw QRPayloadError("its signature is not the application's operation-signing key's") }
        return payload
    }

    /// Reads a payload's form (the signature unchecked).
    /// - Throws: `QRPayloadError`.
    public static func parse(_ text: String) throws(QRPayloadError) -> QRPayload {
        guard text.utf8.count <= maxBytes else { throw QRPayloadError("it is longer than \(maxBytes) bytes") }
        // Lines, header and flags by their bytes: a Character holds a newline or a backslash together with what combines with
        // it, and compares by canonical equivalence.
        let lines = text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map { Substring($0) }
        guard lines.count == 8 else { throw QRPayloadError("it does not have eight lines") }
        guard lines[0].utf8.elementsEqual(header.utf8) else { throw QRPayloadError("it does not start with \(header)") }
        let operationId = String(lines[1])
        guard (1...128).contains(operationId.utf8.count), operationId.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw QRPayloadError("its operation id is not printable ASCII")
        }
        let title = try unescape(lines[2], "title")
        let message = try unescape(lines[3], "message")
        let data = String(lines[4])
        do { _ = try OperationData.parse(data) } catch { throw QRPayloadError("its data is not operation data: it \(error.rule)") }
        guard lines[5].isEmpty || lines[5].utf8.elementsEqual("B".utf8) else { throw QRPayloadError("its flags are neither empty nor B") }
        guard let nonce = Base64URL.decode(String(lines[6])), nonce.count == 16 else {
            throw QRPayloadError("its nonce is not 16 bytes of unpadded base64url")
        }
        guard let signature = Base64URL.decode(String(lines[7])), !signature.isEmpty, signature.count <= 72 else {
            throw QRPayloadError("its signature is not DER in unpadded base64url")
        }
        return QRPayload(
            operationId: operationId, title: title, message: message, data: data, biometric: lines[5] == "B",
            nonce: String(lines[6]), signature: signature)
    }

    /// `\` → `\\`, a newline → `\n`, scalar by scalar (a backslash or newline is escaped whatever combines with it).
    public static func escape(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out.append(contentsOf: "\\\\".unicodeScalars)
            case "\n": out.append(contentsOf: "\\n".unicodeScalars)
            default: out.append(scalar)
            }
        }
        return String(out)
    }

    private static func unescape(_ line: Substring, _ what: String) throws(QRPayloadError) -> String {
        var out = String.UnicodeScalarView()
        var escaping = false
        for scalar in line.unicodeScalars {
            if escaping {
                switch scalar {
                case "\\": out.append("\\")
                case "n": out.append("\n")
                default: throw QRPayloadError("its \(what) has a backslash that escapes neither \\ nor n")
                }
                escaping = false
            } else if scalar == "\\" {
                escaping = true
            } else {
                guard scalar.value >= 0x20 else { throw QRPayloadError("its \(what) holds a control character") }
                out.append(scalar)
            }
        }
        guard !escaping else { throw QRPayloadError("its \(what) ends with a lone backslash") }
        return String(out)
    }

    /// A fuzz entry point: reads any bytes as a payload (verifying with a fixed key); never traps.
    public static func fuzz(_ bytes: [UInt8]) {
        guard let text = String(validating: bytes, as: UTF8.self), let payload = try? parse(text) else { return }
        _ = payload.text
        if let key = fuzzKey { _ = try? parse(text, verifyingWith: key) }
    }

    private static let fuzzKey: PublicKey? = {
        guard let key = try? P256.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 7, count: 32)) else { return nil }
        return PublicKey(sec1: Array(key.publicKey.x963Representation))
    }()
}

/// Why a QR payload was refused (human text: "its signature is not …").
public struct QRPayloadError: Error, Sendable, Equatable, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}
