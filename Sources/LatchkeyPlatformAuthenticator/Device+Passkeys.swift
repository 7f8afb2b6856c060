import LatchkeyContract
import LatchkeyDevice

extension Device {
    /// Makes a passkey as a phone's platform authenticator does: the user is verified through the biometry (with no sensor, the passcode verifies),
    /// the first offered algorithm it supports, none of `excludeCredentials` held.
    ///
    /// With iCloud Keychain on the passkey is synced (BE, BS, counter 0), else device-bound (counter from 1, never in a backup).
    /// The caller gives the options' RP id, user handle, algorithms and exclusions, with the client data the browser half
    /// wrote; the device decides user verification and whether the passkey is synced.
    /// - Throws: `biometryFailed`, `biometryCancelled` (nothing made), `alreadyExists` (an excluded credential is held), `invalidParams`
    ///   (no supported algorithm), `PlatformAuthenticatorError.unusableKey` (a failed primitive: internalError).
    public func createPasskey(
        rpId: String, userHandle: [UInt8], algorithms: [Int64], excludeCredentials: [[UInt8]], clientDataJSON: [UInt8]
    ) throws -> PlatformCreation {
        try verifyUserForPasskey()
        let request = PlatformCreationRequest(
            rpId: rpId, userHandle: userHandle, algorithms: algorithms, excludeCredentials: excludeCredentials,
            clientDataJSON: clientDataJSON, userVerified: true, synced: profile.iCloudKeychain)
        let held = try heldPasskeys()
        let creation: PlatformCreation
        do {
            creation = try PlatformAuthenticator(random: random).create(request, held: held, now: clock.now)
        } catch {
            switch error {
            case .excluded:
                throw DomainError(.alreadyExists, "This device holds a passkey the options exclude", [(.kind, .string("passkey"))])
            case .noSupportedAlgorithm:
                throw DomainError.invalid(.passkeyAlgorithms, "must offer ES256 (-7) or EdDSA (-8)")
            case .unusableKey:
                // A key the generator could not make: a failed primitive, which fails the call (internalError).
                throw error
            }
        }
        try keepPasskey(creation.credential)
        return creation
    }

    /// Signs in with a passkey: the first `allowCredentials` entry it holds for the RP id, or its
    /// newest one for that RP id when the list is empty; the user is verified through the biometry.
    /// - Throws: `notFound` (passkey), `biometryFailed`, `biometryCancelled` (nothing signed), `PlatformAuthenticatorError` (a failed
    ///   primitive: internalError).
    public func assertPasskey(rpId: String, allowCredentials: [[UInt8]], clientDataJSON: [UInt8]) throws -> PlatformAssertion {
        let chosen = PlatformAuthenticator.credentialForGet(held: try heldPasskeys(), rpId: rpId, allowCredentials: allowCredentials)
        guard let credential = chosen else { throw DomainError.notFound("passkey") }
        try verifyUserForPasskey()
        // A signature that could not be made is a failed primitive: it fails the call (internalError), signing nothing.
        let assertion = try PlatformAuthenticator(random: random).get(credential, clientDataJSON: clientDataJSON, userVerified: true)
        try keepPasskey(assertion.credential)
        return assertion
    }

    /// The user verification a phone asks for a passkey: Face ID or Touch ID, or the passcode on a
    /// phone without a sensor.
    private func verifyUserForPasskey() throws {
        switch profile.biometry {
        case .none: return
        case .faceId: try profile.checkBiometry(.faceId)
        case .touchId: try profile.checkBiometry(.touchId)
        }
    }

    /// The passkeys the phone holds: synced ones (iCloud Keychain), then device-bound ones.
    public func heldPasskeys() throws -> [PlatformCredential] {
        let synced = try storage.item(.syncedPasskeys)
        let deviceBound = try storage.item(.deviceBoundPasskeys)
        return PasskeyKeychain.decode(synced, synced: true) + PasskeyKeychain.decode(deviceBound, synced: false)
    }

    /// Keeps a new or updated credential in its keychain item.
    private func keepPasskey(_ credential: PlatformCredential) throws {
        let item: DeviceItem = credential.synced ? .syncedPasskeys : .deviceBoundPasskeys
        var list = PasskeyKeychain.decode(try storage.item(item), synced: credential.synced)
        if let index = list.firstIndex(where: { $0.id == credential.id }) { list[index] = credential } else { list.append(credential) }
        try storage.setItem(item, PasskeyKeychain.encode(list))
    }
}

/// How the phone keeps its passkeys in a keychain item: a CBOR array of maps with small integer
/// keys (1 id, 2 RP id, 3 user handle, 4 algorithm, 5 private key, 6 counter, 7 created at).
enum PasskeyKeychain {
    static func encode(_ credentials: [PlatformCredential]) -> [UInt8] {
        CBOR.array(
            credentials.map { credential in
                .map([
                    CBORMapEntry(.int(1), .bytes(credential.id)), CBORMapEntry(.int(2), .text(credential.rpId)),
                    CBORMapEntry(.int(3), .bytes(credential.userHandle)), CBORMapEntry(.int(4), .int(credential.algorithm.rawValue)),
                    CBORMapEntry(.int(5), .bytes(credential.privateKey)), CBORMapEntry(.int(6), .int(Int64(credential.signCount))),
                    CBORMapEntry(.int(7), .int(credential.createdAt)),
                ])
            }
        ).encoded
    }

    /// The credentials an item holds; an entry that does not read is skipped (never a crash).
    static func decode(_ bytes: [UInt8]?, synced: Bool) -> [PlatformCredential] {
        guard let bytes, case .array(let items)? = try? CBORDecoder.decode(bytes) else { return [] }
        return items.compactMap { item in
            guard let id = item[1]?.bytesValue, let rpId = item[2]?.textValue, let handle = item[3]?.bytesValue,
                let algorithm = item[4]?.int64Value.flatMap(COSEAlgorithm.init(rawValue:)), let key = item[5]?.bytesValue,
                let count = item[6]?.int64Value, let created = item[7]?.int64Value
            else { return nil }
            return PlatformCredential(
                id: id, rpId: rpId, userHandle: handle, algorithm: algorithm, privateKey: key,
                signCount: UInt32(clamping: count), synced: synced, createdAt: created)
        }
    }
}
