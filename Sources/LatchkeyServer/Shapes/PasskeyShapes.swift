import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

// The wire forms of passkeys: WebAuthn's JSON forms (WebAuthn Level 3 §5.8) of the options a
// browser takes and of the credentials it returns, every byte string unpadded base64url, and the
// passkey as a caller sees it.

extension Codec where Value == [UInt8] {
    /// Bytes as canonical unpadded base64url.
    static let base64url = Codec(
        schema: .described("bytes, unpadded base64url", .string()),
        read: { json, path, problems in
            guard case .string(let text) = json else {
                problems.append(ParamProblem(path, "must be a string, not \(json.typeName)"))
                return nil
            }
            guard let bytes = Base64URL.decode(text) else {
                problems.append(ParamProblem(path, "must be canonical unpadded base64url"))
                return nil
            }
            return bytes
        }, write: { .string(Base64URL.encode($0)) })
}

extension Codec where Value == UserVerificationPolicy {
    static let userVerification = Codec.enumeration(UserVerificationPolicy.self)
}

extension Passkey: WireObject {
    public static let schemaName: String? = "Passkey"
    public static let fields: [WireField<Self>] = [
        .required("id", \.id, .text, "the credential id, unpadded base64url"), .required("friendlyName", \.friendlyName, .text),
        .required("createdAt", \.createdAt, .time), .nullable("lastUsedAt", \.lastUsedAt, .time, "null until its first login"),
        .required("algorithm", \.algorithm, .int(), "COSE algorithm: -7 ES256, -8 EdDSA, -257 RS256"),
        .required("backupEligible", \.backupEligible, .bool), .required("backedUp", \.backedUp, .bool),
        .required("transports", \.transports, .strings),
        .required("aaguid", \.aaguid, .text, "the authenticator's AAGUID as a UUID (all zeros when it sent none)"),
    ]
}

// MARK: - options

/// A credential descriptor: `{type: "public-key", id, transports*}`.
private func descriptorJSON(_ descriptor: PasskeyDescriptor) -> JSON {
    var object = JSONObject([("type", "public-key"), ("id", .string(Base64URL.encode(descriptor.id)))])
    if !descriptor.transports.isEmpty { object.appendUnchecked("transports", .strings(descriptor.transports)) }
    return .object(object)
}

/// Reads descriptors' ids (a list the caller may omit).
private func readDescriptors(_ json: JSON?, _ path: String, _ problems: inout [ParamProblem]) -> [PasskeyDescriptor] {
    guard let json, !json.isNull else { return [] }
    guard case .array(let items) = json else {
        problems.append(ParamProblem(path, "must be an array, not \(json.typeName)"))
        return []
    }
    var descriptors: [PasskeyDescriptor] = []
    for (index, item) in items.enumerated() {
        let itemPath = "\(path)[\(index)]"
        guard case .object(let object) = item, let id = object["id"] else {
            problems.append(ParamProblem(itemPath, "must be an object with an id"))
            continue
        }
        if let bytes = Codec<[UInt8]>.base64url.read(id, itemPath + ".id", &problems) {
            let transports = object["transports"]?.arrayValue?.compactMap(\.stringValue) ?? []
            descriptors.append(PasskeyDescriptor(id: bytes, transports: transports))
        }
    }
    return descriptors
}

/// Reads a required member of an options object.
private func optionMember<T>(_ object: JSONObject, _ name: String, _ path: String, _ codec: Codec<T>, _ problems: inout [ParamProblem]) -> T? {
    guard let json = object[name] else {
        problems.append(ParamProblem("\(path).\(name)", "is required"))
        return nil
    }
    return codec.read(json, "\(path).\(name)", &problems)
}

/// Reads an optional member of an options object (absent or null: nil), refusing one of another type as the browser's WebIDL
/// conversion does.
private func optionalOptionMember<T>(
    _ object: JSONObject?, _ name: String, _ path: String, _ codec: Codec<T>, _ problems: inout [ParamProblem]
) -> T? {
    guard let json = object?[name], !json.isNull else { return nil }
    return codec.read(json, "\(path).\(name)", &problems)
}

/// An options object's `userVerification` (absent, null or an unknown value: preferred; browsers ignore a value they do not know,
/// the member being a DOMString, not an enumeration), refusing one that is no string.
private func userVerificationMember(_ object: JSONObject?, _ path: String, _ problems: inout [ParamProblem]) -> UserVerificationPolicy {
    optionalOptionMember(object, "userVerification", path, Codec<String>.text, &problems).flatMap(UserVerificationPolicy.init(rawValue:))
        ?? .preferred
}

/// A timeout in milliseconds (WebIDL `unsigned long`).
private let timeoutCodec = Codec<Int64>.integer(minimum: 0, maximum: Int64(UInt32.max))

extension Codec where Value == CredentialCreationOptions {
    /// `PublicKeyCredentialCreationOptionsJSON`: what `parseCreationOptionsFromJSON()` takes.
    public static let creationOptions = Codec(
        schema: .named(
            "PublicKeyCredentialCreationOptionsJSON",
            .object([
                Field("rp", .freeObject, required: true, "{id, name}"), Field("user", .freeObject, required: true, "{id, name, displayName}"),
                Field("challenge", Codec<[UInt8]>.base64url.schema, required: true),
                Field("pubKeyCredParams", .array(.freeObject), required: true, "ES256, EdDSA, RS256 in that order"),
                Field("timeout", .integer(), required: false), Field("excludeCredentials", .array(.freeObject), required: false),
                Field("authenticatorSelection", .freeObject, required: false), Field("attestation", .string(), required: false),
            ])),
        read: { json, path, problems in
            guard let object = json.object(at: path, into: &problems) else { return nil }
            let before = problems.count
            let rp = optionMember(object, "rp", path, Codec<JSON>.freeObject, &problems)?.objectValue ?? JSONObject()
            let user = optionMember(object, "user", path, Codec<JSON>.freeObject, &problems)?.objectValue ?? JSONObject()
            let rpId = problems.count == before ? optionMember(rp, "id", path + ".rp", Codec<String>.identifier, &problems) : nil
            let rpName = optionalOptionMember(rp, "name", path + ".rp", Codec<String>.text, &problems)
            let userId = problems.count == before ? optionMember(user, "id", path + ".user", Codec<[UInt8]>.userHandle, &problems) : nil
            let userName = optionalOptionMember(user, "name", path + ".user", Codec<String>.text, &problems)
            let displayName = optionalOptionMember(user, "displayName", path + ".user", Codec<String>.text, &problems)
            let challenge = optionMember(object, "challenge", path, Codec<[UInt8]>.base64url, &problems)
            var algorithms: [Int] = []
            if let params = optionMember(object, "pubKeyCredParams", path, Codec<[JSON]>.array(Codec<JSON>.freeObject), &problems) {
                algorithms = params.compactMap { $0["alg"]?.intValue }.map { Int(clamping: $0) }
            }
            let timeout = optionalOptionMember(object, "timeout", path, timeoutCodec, &problems)
            let exclude = readDescriptors(object["excludeCredentials"], path + ".excludeCredentials", &problems)
            let selection = optionalOptionMember(object, "authenticatorSelection", path, Codec<JSON>.freeObject, &problems)?.objectValue
            let verification = userVerificationMember(selection, path + ".authenticatorSelection", &problems)
            _ = optionalOptionMember(object, "attestation", path, Codec<String>.text, &problems)
            guard problems.count == before, let rpId, let userId, let challenge else { return nil }
            let name = userName ?? ""
            return CredentialCreationOptions(
                ceremonyId: "", rpId: rpId, rpName: rpName ?? rpId,
                user: PasskeyUserEntity(id: userId, name: name, displayName: displayName ?? name),
                challenge: challenge, algorithms: algorithms, timeout: Int(clamping: timeout ?? 0),
                excludeCredentials: exclude, userVerification: verification)
        },
        write: { options in
            .object(
                JSONObject([
                    ("rp", .object(JSONObject([("id", .string(options.rpId)), ("name", .string(options.rpName))]))),
                    (
                        "user",
                        .object(
                            JSONObject([
                                ("id", .string(Base64URL.encode(options.user.id))), ("name", .string(options.user.name)),
                                ("displayName", .string(options.user.displayName)),
                            ]))
                    ),
                    ("challenge", .string(Base64URL.encode(options.challenge))),
                    ("pubKeyCredParams", .array(options.algorithms.map { .object(JSONObject([("type", "public-key"), ("alg", .int($0))])) })),
                    ("timeout", .int(options.timeout)),
                    ("excludeCredentials", .array(options.excludeCredentials.map(descriptorJSON))),
                    (
                        "authenticatorSelection",
                        .object(
                            JSONObject([
                                ("residentKey", "required"), ("requireResidentKey", true),
                                ("userVerification", .string(options.userVerification.rawValue)),
                            ]))
                    ),
                    ("attestation", "none"),
                ]))
        })
}

extension Codec where Value == CredentialRequestOptions {
    /// `PublicKeyCredentialRequestOptionsJSON`: what `parseRequestOptionsFromJSON()` takes.
    public static let requestOptions = Codec(
        schema: .named(
            "PublicKeyCredentialRequestOptionsJSON",
            .object([
                Field("rpId", .string(), required: true), Field("challenge", Codec<[UInt8]>.base64url.schema, required: true),
                Field("timeout", .integer(), required: false), Field("userVerification", .string(), required: false),
                Field("allowCredentials", .array(.freeObject), required: false, "empty for a discoverable-credential sign-in"),
            ])),
        read: { json, path, problems in
            guard let object = json.object(at: path, into: &problems) else { return nil }
            let before = problems.count
            let rpId = optionMember(object, "rpId", path, Codec<String>.identifier, &problems)
            let challenge = optionMember(object, "challenge", path, Codec<[UInt8]>.base64url, &problems)
            let timeout = optionalOptionMember(object, "timeout", path, timeoutCodec, &problems)
            let allow = readDescriptors(object["allowCredentials"], path + ".allowCredentials", &problems)
            let verification = userVerificationMember(object, path, &problems)
            guard problems.count == before, let rpId, let challenge else { return nil }
            return CredentialRequestOptions(
                ceremonyId: "", rpId: rpId, challenge: challenge, timeout: Int(clamping: timeout ?? 0),
                userVerification: verification, allowCredentials: allow)
        },
        write: { options in
            .object(
                JSONObject([
                    ("rpId", .string(options.rpId)), ("challenge", .string(Base64URL.encode(options.challenge))),
                    ("timeout", .int(options.timeout)), ("userVerification", .string(options.userVerification.rawValue)),
                    ("allowCredentials", .array(options.allowCredentials.map(descriptorJSON))),
                ]))
        })
}

/// `{ceremonyId, publicKey}`: a ceremony's options.
struct CreationCeremony: WireObject {
    var options: CredentialCreationOptions
    static let fields: [WireField<Self>] = [
        .computed("ceremonyId", \.options.ceremonyId, .text, "names the ceremony in passkey/create or reset/resetPasskeys"),
        .computed("publicKey", \.options, .creationOptions),
    ]
}

/// `{ceremonyId, publicKey}` for a sign-in.
struct RequestCeremony: WireObject {
    var options: CredentialRequestOptions
    static let fields: [WireField<Self>] = [
        .computed("ceremonyId", \.options.ceremonyId, .text, "names the ceremony in passkey/login"),
        .computed("publicKey", \.options, .requestOptions),
    ]
}

/// `{sessionId, uid}`: a user signed in.
struct SignedIn: WireObject {
    var sessionId: String
    var uid: String
    static let fields: [WireField<Self>] = [.required("sessionId", \.sessionId, .text), .required("uid", \.uid, .text)]
}

extension Codec where Value == String {
    /// An RP id: a domain name (lower-case labels), such as `example.com` or `localhost`.
    static let rpId = Codec.string(minLength: 1, maxLength: 253).checked {
        WebOrigin.host(of: "https://" + $0) == $0 ? nil : "must be a domain name such as example.com (lower case, no scheme or port)"
    }
}

extension Codec where Value == [UInt8] {
    /// A WebAuthn user handle: 1–64 bytes.
    static let userHandle = Codec.base64url.checked { (1...64).contains($0.count) ? nil : "must be 1 to 64 bytes" }
}

/// An imported passkey as an operator writes it.
struct ImportedPasskeyParams: WireWritableParams {
    let credentialId: [UInt8]
    let publicKey: [UInt8]
    let friendlyName: String?
    let signCount: Int64?
    let backupEligible: Bool?
    static let wire = (
        credentialId: WireMember.required("credentialId", .base64url, "unpadded base64url"),
        publicKey: WireMember.required("publicKey", .base64url, "a COSE key (ES256, EdDSA or RS256), unpadded base64url"),
        friendlyName: WireMember.optional("friendlyName", .string(minLength: 1, maxLength: 64)),
        signCount: WireMember.optional("signCount", .integer(minimum: 0, maximum: Int64(UInt32.max))),
        backupEligible: WireMember.optional(
            "backupEligible", .bool, "the BE flag it was registered with; absent: taken from its first successful sign-in, and fixed from then on")
    )
}

extension Codec where Value == ImportedPasskey {
    /// `{credentialId, publicKey, friendlyName*, signCount*, backupEligible*}`.
    static let importedPasskey = Codec<ImportedPasskeyParams>.object(ImportedPasskeyParams.self).map(
        {
            ImportedPasskey(
                credentialId: $0.credentialId, publicKey: $0.publicKey, friendlyName: $0.friendlyName, signCount: $0.signCount,
                backupEligible: $0.backupEligible)
        },
        {
            ImportedPasskeyParams(
                credentialId: $0.credentialId, publicKey: $0.publicKey, friendlyName: $0.friendlyName, signCount: $0.signCount,
                backupEligible: $0.backupEligible)
        })
}
