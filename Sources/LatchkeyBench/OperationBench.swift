// Operations on a file store: PIN approvals by the simulated phone beside PIN authentications of
// the same phone (issue 38), and the offline code check beside one ECDSA verification (issue 40).
import Crypto
import Foundation
import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice

/// Nanoseconds `body` takes.
func elapsed(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start)
}

/// The median and the quartiles of some values.
struct Spread {
    let median: Double
    let low: Double
    let high: Double

    init(_ values: [Double]) {
        let sorted = values.sorted()
        median = quantile(sorted, 0.5)
        low = quantile(sorted, 0.25)
        high = quantile(sorted, 0.75)
    }

    /// `median (low–high)` of the values times `scale`, with `format` for each.
    func text(_ format: String, scale: Double = 1) -> String {
        String(format: "\(format) (\(format)–\(format))", median * scale, low * scale, high * scale)
    }
}

/// `label`, padded, then the median and quartiles of nanoseconds in µs (and per second when `rate`).
func timing(_ label: String, _ spread: Spread, rate: Bool = false) -> String {
    let padded = label.count < 60 ? label + String(repeating: " ", count: 60 - label.count) : label
    return padded + spread.text("%.1f", scale: 1e-3) + " µs" + (rate ? String(format: ": %.0f /s", 1e9 / spread.median) : "")
}

/// The payment template every benchmarked operation is made from, in the default application.
private let paymentTemplate = OperationTemplate(
    applicationId: ApplicationConfig.defaultApplicationId, name: "bench-payment", title: "Pay ${amount} EUR",
    message: "To CZ27 3030 0000 0011 6525 4011\nDue 2026-01-31", data: "A1*A${amount}EUR*ICZ2730300000001165254011*D20260131",
    attributes: [.amount(label: "Amount", amount: "${amount}", currency: "EUR")], maxFailureCount: 5, ttlSeconds: 3600,
    allowedMethods: OperationTemplate.defaultAllowedMethods)

private let rightPin = AuthParameter(method: .pin, pin: "1234")

extension System {
    /// A new pending payment for alice.
    func newOperation() throws -> String {
        try core.createOperation(NewOperation(userId: "alice", template: paymentTemplate.name, parameters: [("amount", "1500.00")]))
            .operationId
    }

    /// The simulated phone approves `operationId` with the right PIN (one transaction: the challenge and the approval).
    func approve(_ operationId: String) throws {
        let done = try on("phone", pin: "1234") { try $0.approveOperation(operationId, rightPin, shownData: nil) }
        guard done.status == .approved else { throw BenchFailure(description: "an approval answered \(done.status)") }
    }
}

func operationBenchmarks(_ system: System, count: Int) throws {
    _ = try system.core.configureOperationTemplate(paymentTemplate)
    try approvalBenchmarks(system, count: count)
    try offlineBenchmarks(system, count: count)
}

/// Issue 38: PIN approvals beside PIN authentications of the same phone on the same store.
///
/// `count` of each, in rounds of `batch`, the order of the blocks turned every round; the ratio of
/// each round, then their median. The operations are made before their round's blocks (not timed);
/// a third block times making and approving together.
private func approvalBenchmarks(_ system: System, count: Int) throws {
    report("== operations: PIN approvals by the simulated phone beside PIN authentications, same phone, same file store")
    let batch = 20
    let rounds = max(3, count / batch)
    try system.authenticate()
    try system.approve(try system.newOperation())
    var authentications: [Double] = []
    var approvals: [Double] = []
    var madeAndApproved: [Double] = []
    var ratios: [Double] = []
    var madeRatios: [Double] = []
    for round in 0..<rounds {
        let operations = try (0..<batch).map { _ in try system.newOperation() }
        let blocks: [() throws -> Double] = [
            { try elapsed { for _ in 0..<batch { try system.authenticate() } } / Double(batch) },
            { try elapsed { for operationId in operations { try system.approve(operationId) } } / Double(batch) },
            { try elapsed { for _ in 0..<batch { try system.approve(try system.newOperation()) } } / Double(batch) },
        ]
        var times = [0.0, 0.0, 0.0]
        for index in round % 2 == 0 ? [0, 1, 2] : [2, 1, 0] { times[index] = try blocks[index]() }
        authentications.append(times[0])
        approvals.append(times[1])
        madeAndApproved.append(times[2])
        ratios.append(times[0] / times[1])
        madeRatios.append(times[0] / times[2])
    }
    report(String(format: "  %d rounds of %d each, medians (quartiles)", rounds, batch))
    report(timing("  authentication start + finish with PIN", Spread(authentications), rate: true))
    report(timing("  operation approve with PIN (approve only)", Spread(approvals), rate: true))
    report(timing("  operation create + approve with PIN", Spread(madeAndApproved), rate: true))
    report("  approvals/s ÷ authentications/s, approve only: \(Spread(ratios).text("%.2f×")) (target ≥ 0.9×)")
    report("  approvals/s ÷ authentications/s, create + approve: \(Spread(madeRatios).text("%.2f×"))")
}

/// What the server computes to check one offline code of a PIN registration, on keys of its own.
///
/// Kept agreements (every check after a registration's first QR payload): the sealed agreements
/// opened, then for the `device` part and the PIN's part the agreement's fingerprint taken and looked
/// up, HKDF, HMAC and truncation, compared in constant time. The first check, before they are kept:
/// the server key opened and read, then per part the phone's key read and ECDH.
private struct OfflineCheck {
    let storeKey = SymmetricKey(size: .bits256)
    let sealedServerKey: [UInt8]
    let sealedAgreements: [UInt8]
    let serverPublicKey: [UInt8]
    let phoneKeys: [(key: [UInt8], role: KeyRole)]
    let code: [UInt8]
    let registrationId = "reg_" + Base64URL.encode(Array(SHA256.hash(data: [1]).byteArray.prefix(16)))
    let operationId = UUID().uuidString.lowercased()
    let operationHash = Base64URL.encode(SHA256.hash(data: [2]).byteArray)
    let nonce = Base64URL.encode(Array(SHA256.hash(data: [3]).byteArray.prefix(16)))

    init() throws {
        let server = P256.KeyAgreement.PrivateKey()
        let device = P256.KeyAgreement.PrivateKey()
        let pin = P256.KeyAgreement.PrivateKey()
        let associated = Array(registrationId.utf8)
        sealedServerKey = Array(
            try AES.GCM.seal(server.rawRepresentation, using: Self.sealKey(storeKey, "serverKey"), authenticating: associated).combined ?? Data())
        phoneKeys = [(Array(device.publicKey.x963Representation), .device), (Array(pin.publicKey.x963Representation), .pin)]
        let serverPublicKey = Array(server.publicKey.x963Representation)
        self.serverPublicKey = serverPublicKey
        let agreements = try phoneKeys.flatMap { key, _ in
            Self.fingerprint(serverPublicKey, key)
                + (try server.sharedSecretFromKeyAgreement(with: .init(x963Representation: key))).withUnsafeBytes { Array($0) }
        }
        sealedAgreements = Array(
            try AES.GCM.seal(agreements, using: Self.sealKey(storeKey, "serverKeyAgreements"), authenticating: associated).combined ?? Data())
        guard let serverPublic = PublicKey(sec1: Array(server.publicKey.x963Representation)) else {
            throw BenchFailure(description: "a P-256 key did not read back")
        }
        let (registrationId, operationId, operationHash, nonce) = (registrationId, operationId, operationHash, nonce)
        let parts = try [(device, KeyRole.device), (pin, KeyRole.pin)].map { key, role in
            OfflineCode.part(
                sharedSecret: try OfflineCode.sharedSecret(privateKey: key, publicKey: serverPublic), role: role,
                registrationId: registrationId, operationId: operationId, operationHash: operationHash, nonce: nonce)
        }
        code = Array(parts.joined(separator: "-").utf8)
    }

    /// What an agreement is kept by: SHA-256 of the server's and the phone's public keys.
    static func fingerprint(_ serverKey: [UInt8], _ phoneKey: [UInt8]) -> [UInt8] { SHA256.hash(data: serverKey + phoneKey).byteArray }

    /// A sealing key, as the store derives it on every open.
    static func sealKey(_ storeKey: SymmetricKey, _ kind: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: storeKey, info: Array("LATCHKEY-SEAL-V1\n\(kind)".utf8), outputByteCount: 32)
    }

    func open(_ sealed: [UInt8], _ kind: String) throws -> [UInt8] {
        Array(try AES.GCM.open(AES.GCM.SealedBox(combined: sealed), using: Self.sealKey(storeKey, kind), authenticating: Array(registrationId.utf8)))
    }

    /// A check with the agreements kept.
    func check() throws -> Bool {
        let agreements = try open(sealedAgreements, "serverKeyAgreements")
        return try compare { phoneKey in
            let fingerprint = Self.fingerprint(serverPublicKey, phoneKey)
            return stride(from: 0, to: agreements.count, by: 64).first { Array(agreements[$0..<$0 + 32]) == fingerprint }
                .map { Array(agreements[$0 + 32..<$0 + 64]) }
        }
    }

    /// The first check: the server key opened, both parts agreed.
    func checkAgreeing() throws -> Bool {
        let serverKey = try P256.KeyAgreement.PrivateKey(rawRepresentation: try open(sealedServerKey, "serverKey"))
        return try compare { phoneKey in try PublicKey(sec1: phoneKey).map { try OfflineCode.sharedSecret(privateKey: serverKey, publicKey: $0) } }
    }

    /// Both parts of the code from each phone key's shared secret, compared with the code typed.
    private func compare(_ secret: ([UInt8]) throws -> [UInt8]?) throws -> Bool {
        var difference: UInt8 = 0
        for (index, (phoneKey, role)) in phoneKeys.enumerated() {
            guard let shared = try secret(phoneKey) else { return false }
            let part = OfflineCode.part(
                sharedSecret: shared, role: role, registrationId: registrationId, operationId: operationId, operationHash: operationHash,
                nonce: nonce)
            for (typed, expected) in zip(code[(index * 9)..<(index * 9 + 8)], part.utf8) { difference |= typed ^ expected }
        }
        return difference == 0
    }
}

/// Issue 40: `admin/verifyOfflineOperation` at the domain level beside one P-256 ECDSA verification.
///
/// The QR payload is made and the phone's code taken before (not timed); then the call, the ECDSA
/// verification and the server's crypto alone are timed one after the other for each code; the
/// ratio of each code's times, then their median.
private func offlineBenchmarks(_ system: System, count: Int) throws {
    report("== offline approval: one code checked (admin/verifyOfflineOperation) beside one P-256 ECDSA verification")
    let signingKey = P256.Signing.PrivateKey()
    let message = SHA256.hash(data: [4, 5, 6]).byteArray
    let signature = try signingKey.signature(for: message)
    let check = try OfflineCheck()
    let batch = 20
    let rounds = max(3, count / batch)
    var verifies: [Double] = []
    var cryptos: [Double] = []
    var firsts: [Double] = []
    var calls: [Double] = []
    var floors: [Double] = []
    for round in 0..<rounds {
        let codes = try (0..<batch).map { _ in
            let operationId = try system.newOperation()
            let qrPayload = try system.core.operationQRCode(operationId: operationId, registrationId: nil)
            return (operationId, try system.on("phone", pin: "1234") { try $0.approveOffline(qrPayload: qrPayload, rightPin) }.code)
        }
        for (index, (operationId, code)) in codes.enumerated() {
            let timeVerify = {
                verifies.append(elapsed { _ = signingKey.publicKey.isValidSignature(signature, for: message) })
                cryptos.append(try elapsed { guard try check.check() else { throw BenchFailure(description: "the replica's code") } })
                firsts.append(try elapsed { guard try check.checkAgreeing() else { throw BenchFailure(description: "the replica's code") } })
            }
            let timeCall = {
                calls.append(
                    try elapsed {
                        let done = try system.core.verifyOfflineOperation(operationId: operationId, code: code, registrationId: nil)
                        guard done.status == .approved else { throw BenchFailure(description: "an offline code answered \(done.status)") }
                    })
                floors.append(try elapsed { _ = try system.core.operation(operationId: operationId) })
            }
            if (round + index) % 2 == 0 {
                try timeVerify()
                try timeCall()
            } else {
                try timeCall()
                try timeVerify()
            }
        }
    }
    let ratio = { (values: [Double]) in Spread(zip(values, verifies).map { $0 / $1 }).text("%.2f×") }
    report(String(format: "  %d codes, medians (quartiles); each ratio is per code, to the ECDSA verification timed beside it", rounds * batch))
    report(timing("  P-256 ECDSA verify (swift-crypto)", Spread(verifies)))
    report(timing("  the code's crypto: agreements opened, 2 × (key's SHA-256, HKDF, HMAC, truncation)", Spread(cryptos)))
    report("    ÷ ECDSA verify: \(ratio(cryptos)) (target ≤ 2×)")
    report(timing("  the same before the agreements are kept: server key opened and read, 2 × ECDH", Spread(firsts)))
    report("    ÷ ECDSA verify: \(ratio(firsts))")
    report(timing("  admin/verifyOfflineOperation, the whole call", Spread(calls)))
    report("    ÷ ECDSA verify: \(ratio(calls))")
    let rest = zip(calls, cryptos).map { $0 - $1 }
    report(timing("    of which not the code's crypto (store, logic)", Spread(rest)))
    report(timing("  for scale: admin/getOperation (a transaction, one read)", Spread(floors)))
    try offlineCryptoParts(count: 1000)
}

/// One part's key agreement taken apart: what `OfflineCode.sharedSecret` does, step by step.
private func offlineCryptoParts(count: Int) throws {
    let server = P256.KeyAgreement.PrivateKey()
    let phone = P256.KeyAgreement.PrivateKey()
    let scalar = Array(server.rawRepresentation)
    let point = Array(phone.publicKey.x963Representation)
    guard let publicKey = PublicKey(sec1: point) else { throw BenchFailure(description: "a P-256 key did not read back") }
    let secret = try OfflineCode.sharedSecret(privateKey: scalar, publicKey: publicKey)
    report("  one part, step by step:")
    _ = measure("    PublicKey(sec1:) (the phone's key, checked)", count: count) { _ = PublicKey(sec1: point) }
    _ = try measure("    private key from 32 bytes (derives its public)", count: count) {
        _ = try P256.KeyAgreement.PrivateKey(rawRepresentation: scalar)
    }
    _ = try measure("    public key from x963 (again)", count: count) { _ = try P256.KeyAgreement.PublicKey(x963Representation: point) }
    _ = try measure("    ECDH on parsed keys", count: count) { _ = try server.sharedSecretFromKeyAgreement(with: phone.publicKey) }
    _ = measure("    HKDF + HMAC + truncation", count: count) {
        _ = OfflineCode.part(sharedSecret: secret, role: .pin, registrationId: "reg_x", operationId: "op", operationHash: "h", nonce: "n")
    }
}
