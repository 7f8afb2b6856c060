import Crypto
import LatchkeyContract
import Testing
import _CryptoExtras

@testable import LatchkeyDevice
@testable import LatchkeyRelyingParty

/// The assertion half of the Relying Party's checks (registrations in RelyingPartyTests.swift).
extension RelyingPartyTests {
    @Test("assertion: type, challenge and origin first, then credential and userHandle")
    func assertionClientDataAndLookup() throws {
        let good = try signed()
        #expect(assertionCheck(good) == nil)
        var forged = good
        forged.response.clientData?.type = "webauthn.create"
        #expect(assertionCheck(forged, passkey: .some(nil)) == .type, "the client data before the lookup")
        forged.response.clientData = nil
        #expect(assertionCheck(forged, passkey: .some(nil)) == .encoding, "client data the JSON layer could not read")
        forged = good
        forged.response.clientData?.challenge = Base64URL.encode([0])
        #expect(assertionCheck(forged) == .challenge)
        forged = good
        forged.response.clientData?.origin = "https://localhost.evil"
        #expect(assertionCheck(forged) == .origin)
        #expect(assertionCheck(good, passkey: .some(nil)) == .credential)
        forged = good
        forged.response.userHandle = [0x22]
        #expect(assertionCheck(forged) == .userHandle)
        forged.response.userHandle = nil
        #expect(assertionCheck(forged) == nil, "no userHandle: nothing to compare when the options named the user")
        #expect(assertionCheck(forged, discoverable: true) == .userHandle, "a discoverable sign-in needs userHandle (L3 §7.2 step 6)")
        #expect(assertionCheck(good, discoverable: true) == nil)
    }

    @Test("flags: BE must be what the passkey was registered with; not known yet, either passes")
    func backupEligibilityNeverChanges() throws {
        var bound = try signed()
        bound.stored.backupEligible = false
        #expect(assertionCheck(bound) == nil)
        bound.stored.backupEligible = true
        #expect(assertionCheck(bound) == .flags, "registered eligible, now not")
        var synced = try signed(synced: true)
        synced.stored.backupEligible = false
        #expect(assertionCheck(synced) == .flags, "registered not eligible, now eligible (and backed up)")
        synced.stored.backupEligible = nil
        #expect(assertionCheck(synced) == nil, "an imported passkey given none takes the first sign-in's")
        // The changed flags no longer match the signature: flags is checked first.
        var flipped = try signed { $0.flags.insert(.backupEligible) }
        flipped.stored.backupEligible = false
        #expect(assertionCheck(flipped) == .flags, "before the signature")
    }

    @Test("assertion: encoding, rpId, userPresence, userVerification, flags — before the signature")
    func assertionAuthenticatorData() throws {
        var truncated = try signed()
        truncated.response.authenticatorData.removeLast()
        #expect(assertionCheck(truncated) == .encoding)
        var trailing = try signed()
        trailing.response.authenticatorData.append(0)
        #expect(assertionCheck(trailing) == .encoding)
        #expect(assertionCheck(try signed { $0.rpIdHash = Array(SHA256.hash(data: Array("example.com".utf8))) }) == .rpId)
        #expect(assertionCheck(try signed { $0.flags.remove(.userPresent) }) == .userPresence)
        #expect(assertionCheck(try signed(userVerified: false)) == .userVerification)
        var preferred = settings
        preferred.userVerification = .preferred
        #expect(assertionCheck(try signed(userVerified: false), settings: preferred) == nil)
        #expect(assertionCheck(try signed { $0.flags.insert(.backedUp) }) == .flags)
    }

    @Test("signature: a changed byte, another client data, another key; ES256 raw r‖s is not DER")
    func signatureCheck() throws {
        let good = try signed()
        var forged = good
        forged.response.signature[forged.response.signature.count - 1] ^= 1
        #expect(assertionCheck(forged) == .signature)
        forged = good
        forged.response.clientDataJSON += [0x20]
        #expect(assertionCheck(forged) == .signature)
        forged = good
        forged.stored.publicKey = try creation(seed: 99).publicKey
        #expect(assertionCheck(forged) == .signature)
        forged = good
        forged.stored.publicKey = [0xA0]
        #expect(assertionCheck(forged) == .signature)
        #expect(assertionCheck(try signed { $0.signCount += 1 }) == .signature, "authData is signed")
    }

    @Test("signCount: a counter that does not grow is refused as a possible clone; synced 0 → 0 passes")
    func signCountCheck() throws {
        let good = try signed()
        var replayed = good
        replayed.stored.signCount = good.credential.signCount
        #expect(assertionCheck(replayed) == .signCount)
        replayed.stored.signCount = good.credential.signCount + 10
        #expect(assertionCheck(replayed) == .signCount)
        do {
            _ = try RelyingParty.verifyAssertion(replayed.response, challenge: challenge, passkey: replayed.stored, settings: settings)
            Issue.record("a replayed counter passed")
        } catch {
            #expect(error.isCloneSuspected)
            #expect(error.domainError.reason == .passkeyInvalid)
            #expect(error.domainError.detail(.check) == .string("signCount"))
        }
        #expect(assertionCheck(try signed(synced: true)) == nil)
        var syncedThenCounting = try signed(synced: true)
        syncedThenCounting.stored.signCount = 4
        #expect(assertionCheck(syncedThenCounting) == .signCount, "a stored count, then 0")
        #expect(throws: Never.self) { try RelyingParty.checkSignCount(stored: 0, new: 1) }
        #expect(throws: PasskeyCheckFailure.self) { try RelyingParty.checkSignCount(stored: 1, new: 0) }
    }

    @Test("every check name is the contract's, in its order")
    func names() {
        #expect(
            PasskeyCheck.allCases.map(\.rawValue) == [
                "type", "challenge", "origin", "encoding", "credential", "userHandle", "rpId", "userPresence", "userVerification",
                "flags", "credentialId", "publicKey", "algorithm", "attestation", "signature", "signCount",
            ])
    }
}
