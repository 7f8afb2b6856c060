import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

// What `credential.toJSON()` gives (WebAuthn Level 3 §5.8: `RegistrationResponseJSON`,
// `AuthenticationResponseJSON`), read strictly — a member missing or of another type, bytes that
// are not canonical base64url, `id` ≠ `rawId`, `type` ≠ `public-key` answer `invalidParams` naming
// the member — and written for the simulated phone's answers. `clientDataJSON` is parsed here,
// with jansson, for the Relying Party's first check.

/// The members both kinds of credential share, read.
private struct CredentialEnvelope {
    var rawId: [UInt8]
    var response: JSONObject
    var attachment: String?
}

private func readEnvelope(_ json: JSON, _ path: String, _ problems: inout [ParamProblem]) -> CredentialEnvelope? {
    guard let object = json.object(at: path, into: &problems) else { return nil }
    let before = problems.count
    func required(_ name: String) -> JSON? {
        guard let value = object[name] else {
            problems.append(ParamProblem("\(path).\(name)", "is required"))
            return nil
        }
        return value
    }
    let id = required("id").flatMap { Codec<[UInt8]>.credentialId.read($0, "\(path).id", &problems) }
    let rawId = required("rawId").flatMap { Codec<[UInt8]>.credentialId.read($0, "\(path).rawId", &problems) }
    if let type = required("type") {
        if type.stringValue != "public-key" { problems.append(ParamProblem("\(path).type", "must be public-key")) }
    }
    let response = required("response").flatMap { $0.object(at: "\(path).response", into: &problems) }
    // Some clients omit it: absent counts as {}. Null is a member of another type (only `response.userHandle` may be null).
    if let results = object["clientExtensionResults"], results.objectValue == nil {
        problems.append(ParamProblem("\(path).clientExtensionResults", "must be an object, not \(results.typeName)"))
    }
    var attachment: String?
    if let value = object["authenticatorAttachment"], !value.isNull {
        if let text = value.stringValue {
            attachment = text
        } else {
            problems.append(ParamProblem("\(path).authenticatorAttachment", "must be a string or null, not \(value.typeName)"))
        }
    }
    if let id, let rawId, id != rawId { problems.append(ParamProblem("\(path).rawId", "must be the same bytes as id")) }
    guard problems.count == before, let rawId, let response else { return nil }
    return CredentialEnvelope(rawId: rawId, response: response, attachment: attachment)
}

/// A required byte string of `response`.
private func responseBytes(_ response: JSONObject, _ name: String, _ path: String, _ problems: inout [ParamProblem]) -> [UInt8]? {
    guard let value = response[name] else {
        problems.append(ParamProblem("\(path).response.\(name)", "is required"))
        return nil
    }
    return Codec<[UInt8]>.base64url.read(value, "\(path).response.\(name)", &problems)
}

/// The client data as the Relying Party reads it: nil when the bytes are not a JSON object (a
/// parse failure is that answer, not an error).
public func collectedClientData(_ bytes: [UInt8]) -> CollectedClientData? {
    guard let json = try? JSONParser.parse(bytes), case .object(let object) = json else { return nil }
    let type = object["type"]
    let challenge = object["challenge"]
    let origin = object["origin"]
    let crossOrigin = object["crossOrigin"]
    let mistyped =
        [("type", type), ("challenge", challenge), ("origin", origin), ("topOrigin", object["topOrigin"])].first {
            $0.1 != nil && $0.1?.stringValue == nil
        }?.0
        ?? (crossOrigin != nil && crossOrigin?.boolValue == nil ? "crossOrigin" : nil)
    return CollectedClientData(
        type: type?.stringValue, challenge: challenge?.stringValue, origin: origin?.stringValue, crossOrigin: crossOrigin?.boolValue,
        mistyped: mistyped)
}

private let credentialEnvelopeFields: [Field] = [
    Field("id", Codec<[UInt8]>.base64url.schema, required: true, "the credential id"),
    Field("rawId", Codec<[UInt8]>.base64url.schema, required: true, "the same bytes as id"),
    Field("type", .enumeration(["public-key"]), required: true),
    Field("authenticatorAttachment", .nullable(.string()), required: false),
    Field("clientExtensionResults", .freeObject, required: false, "absent counts as {}"),
]

/// The schema of a credential whose `response` has these members.
private func credentialSchema(_ name: String, _ response: [Field]) -> Schema {
    .named(name, .object(credentialEnvelopeFields + [Field("response", .object(response), required: true)]))
}

/// A credential as the simulated phone's browser answers it: `response` in the envelope
/// `credential.toJSON()` writes.
private func credentialJSON(rawId: [UInt8], _ response: JSONObject) -> JSON {
    .object(
        JSONObject([
            ("id", .string(Base64URL.encode(rawId))), ("rawId", .string(Base64URL.encode(rawId))), ("type", "public-key"),
            ("response", .object(response)), ("authenticatorAttachment", "platform"), ("clientExtensionResults", .object(JSONObject())),
        ]))
}

extension Codec where Value == [UInt8] {
    /// A credential id: canonical unpadded base64url of 1 to 1023 bytes (WebAuthn's bound).
    static let credentialId = Codec.base64url.checked { (1...1023).contains($0.count) ? nil : "must be 1 to 1023 bytes" }
}

extension Codec where Value == RegistrationResponse {
    /// `RegistrationResponseJSON`.
    public static let registrationResponse = Codec(
        schema: credentialSchema(
            "RegistrationResponseJSON",
            [
                Field("clientDataJSON", Codec<[UInt8]>.base64url.schema, required: true),
                Field("attestationObject", Codec<[UInt8]>.base64url.schema, required: true),
                Field("transports", .array(.string()), required: false),
                // What a browser's `toJSON()` adds: taken as given and not read (the attestation object holds them, checked).
                Field("authenticatorData", .string(), required: false, "not read: the attestation object's is checked"),
                Field("publicKey", .nullable(.string()), required: false, "not read: the attestation object's is checked"),
                Field("publicKeyAlgorithm", .integer(minimum: nil, maximum: nil), required: false, "not read"),
            ]),
        read: { json, path, problems in
            guard let envelope = readEnvelope(json, path, &problems) else { return nil }
            let before = problems.count
            let clientData = responseBytes(envelope.response, "clientDataJSON", path, &problems)
            let attestation = responseBytes(envelope.response, "attestationObject", path, &problems)
            var transports: [String] = []
            if let value = envelope.response["transports"], !value.isNull {
                if let list = Codec<[String]>.strings.read(value, "\(path).response.transports", &problems) { transports = list }
            }
            guard problems.count == before, let clientData, let attestation else { return nil }
            return RegistrationResponse(
                rawId: envelope.rawId, clientData: collectedClientData(clientData), clientDataJSON: clientData,
                attestationObject: attestation, transports: transports)
        },
        write: { response in
            credentialJSON(
                rawId: response.rawId,
                JSONObject([
                    ("clientDataJSON", .string(Base64URL.encode(response.clientDataJSON))),
                    ("attestationObject", .string(Base64URL.encode(response.attestationObject))),
                    ("transports", .strings(response.transports)),
                ]))
        })
}

extension Codec where Value == AssertionResponse {
    /// `AuthenticationResponseJSON`.
    public static let assertionResponse = Codec(
        schema: credentialSchema(
            "AuthenticationResponseJSON",
            [
                Field("clientDataJSON", Codec<[UInt8]>.base64url.schema, required: true),
                Field("authenticatorData", Codec<[UInt8]>.base64url.schema, required: true),
                Field("signature", Codec<[UInt8]>.base64url.schema, required: true),
                Field("userHandle", .nullable(Codec<[UInt8]>.base64url.schema), required: false),
            ]),
        read: { json, path, problems in
            guard let envelope = readEnvelope(json, path, &problems) else { return nil }
            let before = problems.count
            let clientData = responseBytes(envelope.response, "clientDataJSON", path, &problems)
            let authenticatorData = responseBytes(envelope.response, "authenticatorData", path, &problems)
            let signature = responseBytes(envelope.response, "signature", path, &problems)
            var userHandle: [UInt8]?
            if let value = envelope.response["userHandle"], !value.isNull {
                userHandle = Codec<[UInt8]>.base64url.read(value, "\(path).response.userHandle", &problems)
            }
            guard problems.count == before, let clientData, let authenticatorData, let signature else { return nil }
            return AssertionResponse(
                rawId: envelope.rawId, clientData: collectedClientData(clientData), clientDataJSON: clientData,
                authenticatorData: authenticatorData, signature: signature, userHandle: userHandle)
        },
        write: { response in
            var inner = JSONObject([
                ("clientDataJSON", .string(Base64URL.encode(response.clientDataJSON))),
                ("authenticatorData", .string(Base64URL.encode(response.authenticatorData))),
                ("signature", .string(Base64URL.encode(response.signature))),
            ])
            inner.appendUnchecked("userHandle", response.userHandle.map { .string(Base64URL.encode($0)) } ?? .null)
            return credentialJSON(rawId: response.rawId, inner)
        })
}
