// Benchmarks of the domain without the wire: the crypto floor and the flows on a file store.
// `make bench` runs it in release mode. Figures go to stdout.
import Crypto
import Foundation
import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice
import LatchkeySimulator
import LatchkeyStore
import _CryptoExtras

/// Benchmark figures go to stdout (this tool is not the protocol server).
func report(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func measure(_ label: String, count: Int, _ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<count { try body() }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    let each = seconds / Double(count)
    let padded = label.count < 48 ? label + String(repeating: " ", count: 48 - label.count) : label
    report(padded + String(format: " %9.1f µs each %9.0f /s", each * 1e6, 1 / each))
    return each
}

let arguments = CommandLine.arguments
let flowCount = arguments.count > 1 ? Int(arguments[1]) ?? 300 : 300
/// Registrations already in the store for the scale run (`LatchkeyBench 300 100000`).
let scaleCounts = arguments.count > 2 ? arguments[2...].compactMap { Int($0) } : []

// As the executable does at its start, before any thread uses SQLite.
SQLiteStore.prepareProcess()

report("== crypto primitives")
let salt = [UInt8](repeating: 7, count: 16)
let pbkdf2 = try measure("PBKDF2-HMAC-SHA256 x 10 000 (PIN)", count: 200) {
    _ = try KDF.Insecure.PBKDF2.deriveKey(
        from: Array("1234".utf8), salt: salt, using: .sha256, outputByteCount: 32,
        unsafeUncheckedRounds: 10_000)
}
let recoveryKDF = try measure("PBKDF2-HMAC-SHA256 x 100 000 (recovery code)", count: 20) {
    _ = try KDF.Insecure.PBKDF2.deriveKey(
        from: Array("recovery".utf8), salt: salt, using: .sha256, outputByteCount: 32,
        unsafeUncheckedRounds: 100_000)
}
let key = P256.Signing.PrivateKey()
let message = SHA256.hash(data: [1, 2, 3]).byteArray
let signature = try key.signature(for: message)
let sign = try measure("P-256 sign", count: 2000) { _ = try key.signature(for: message) }
let verify = measure("P-256 verify", count: 2000) { _ = key.publicKey.isValidSignature(signature, for: message) }
let scrypt = try measure("scrypt N=2^14 r=8 p=1 (password)", count: 10) {
    _ = try KDF.Scrypt.deriveKey(
        from: Array("password".utf8), salt: salt, outputByteCount: 32, rounds: 1 << 14,
        blockSize: 8, parallelism: 1)
}
// A PIN authentication: one PBKDF2, two signatures (possession + knowledge), two verifications.
let pinFloor = pbkdf2 + 2 * sign + 2 * verify
report(String(format: "  crypto floor of a PIN authentication: %.0f µs (%.0f /s)", pinFloor * 1e6, 1 / pinFloor))

/// `LATCHKEY_BENCH_KEEP=DIR` keeps the stores (e.g.
///
/// to serve the 100 000-registration one with the real binary and measure its memory); otherwise they
/// go to a temporary folder, removed after.
let keep = ProcessInfo.processInfo.environment["LATCHKEY_BENCH_KEEP"]
let directory =
    keep.map { URL(fileURLWithPath: $0) }
    ?? FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-bench-\(getpid())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { if keep == nil { try? FileManager.default.removeItem(at: directory) } }

/// The server half and its simulated phones on one file store.
struct System {
    let core: Latchkey
    let devices: SimulatedDevices

    func on<T>(_ deviceId: String, pin: String? = nil, _ body: (Device) throws -> T) throws -> T {
        try devices.on(deviceId, pin: pin, body)
    }

    /// Creates a user with one activated device (`method` its second factor, PIN 1234).
    func activate(userId: String, deviceId: String, method: AuthMethod) throws {
        _ = try core.createUser(NewUser(userId: userId))
        let code = try core.createActivationCode(userId: userId, applicationId: nil).code
        _ = try devices.create(NewDevice(deviceId: deviceId))
        _ = try on(deviceId) { try $0.startActivation(code: code, applicationId: nil) }
        _ = try on(deviceId) {
            try $0.finishActivation(AuthParameter(method: method, pin: method == .pin ? "1234" : nil), tokenPurpose: .none, activationName: nil)
        }
    }

    /// One authentication of `deviceId` with `method`.
    @discardableResult
    func authenticate(_ deviceId: String = "phone", _ method: AuthMethod = .pin, tokenPurpose: TokenPurpose = .none) throws -> String? {
        _ = try on(deviceId) { try $0.startAuthentication() }
        let parameter = AuthParameter(method: method, pin: method == .pin ? "1234" : nil)
        return try on(deviceId, pin: parameter.unmaskingPin) {
            try $0.finishAuthentication(parameter, tokenPurpose: tokenPurpose)
        }.token
    }
}

func activatedSystem(_ name: String) throws -> System {
    let core = try Latchkey(
        store: SQLiteStore.file(at: directory.appendingPathComponent("\(name).sqlite").path),
        clock: SystemClock(), random: SystemRandomSource())
    let system = System(core: core, devices: try SimulatedDevices(core: core))
    try system.activate(userId: "alice", deviceId: "phone", method: .pin)
    return system
}

report("== flows on a file store (WAL), in process, no JSON")
let system = try activatedSystem("auth")
let flow = try measure("authentication start + finish with PIN", count: flowCount) { try system.authenticate() }
let deviceFlow = try measure("authentication start + finish with device only", count: flowCount) {
    try system.authenticate("phone", .device)
}
report(String(format: "  non-crypto part of a flow (device flow minus one sign and one verify): %.0f µs", (deviceFlow - sign - verify) * 1e6))
let share = pinFloor / flow
report(
    String(
        format: "  share of the flow in KDF + signatures: %.0f %% (KDF %.0f %%, signatures %.0f %%); the rest (store, logic): %.0f %%",
        share * 100, pbkdf2 / flow * 100, (2 * sign + 2 * verify) / flow * 100, (1 - share) * 100))

// The same share measured in one loop, robust to a noisy machine: each round times the crypto
// of a PIN authentication (one PBKDF2 × 10 000, two signs, two verifications) and, right after,
// one whole authentication; a neighbour that slows the machine slows both alike. Median of rounds.
var overheads: [Double] = []
var flowRounds: [Double] = []
for _ in 0..<flowCount {
    let t0 = DispatchTime.now().uptimeNanoseconds
    _ = try KDF.Insecure.PBKDF2.deriveKey(
        from: Array("1234".utf8), salt: salt, using: .sha256, outputByteCount: 32,
        unsafeUncheckedRounds: 10_000)
    for _ in 0..<2 {
        _ = try key.signature(for: message)
        _ = key.publicKey.isValidSignature(signature, for: message)
    }
    let t1 = DispatchTime.now().uptimeNanoseconds
    try system.authenticate()
    let t2 = DispatchTime.now().uptimeNanoseconds
    let cryptoTime = Double(t1 - t0)
    let flowTime = Double(t2 - t1)
    overheads.append((flowTime - cryptoTime) / flowTime)
    flowRounds.append(flowTime)
}
/// The value at fraction `q` of the sorted values (0 when there are none).
func quantile(_ sorted: [Double], _ q: Double) -> Double {
    sorted.isEmpty ? 0 : sorted[min(Int(Double(sorted.count) * q), sorted.count - 1)]
}
overheads.sort()
report(
    String(
        format: "  interleaved (%d rounds): flow median %.0f µs; not crypto (store, logic): median %.1f %% (quartiles %.1f–%.1f %%)",
        overheads.count, quantile(flowRounds.sorted(), 0.5) / 1e3, quantile(overheads, 0.5) * 100,
        quantile(overheads, 0.25) * 100, quantile(overheads, 0.75) * 100))

// One recovery finish: the recovery-code KDF, the recovery signature and its check, new keys.
var restored: [System] = []
for index in 0..<10 {
    let recovery = try activatedSystem("recovery-\(index)")
    let token = try recovery.authenticate(tokenPurpose: .addOrUpdateRecovery) ?? ""
    try recovery.on("phone") { try $0.startRecoveryChange(token: token, purpose: .addOrUpdateRecovery) }
    _ = try recovery.on("phone") { try $0.finishRecoveryAddOrUpdate(code: "plum-tree-42", tokenPurpose: .none) }
    let backup = try recovery.devices.backup(deviceId: "phone", kind: .computerEncrypted)
    _ = try recovery.devices.restore(backupId: backup, NewDevice(deviceId: "new"))
    restored.append(recovery)
}
var next = 0
let recoveryEach = try measure("recovery start + finish (code + new PIN)", count: restored.count) {
    let recovery = restored[next]
    next += 1
    _ = try recovery.on("new") { try $0.startRecovery() }
    _ = try recovery.on("new") {
        try $0.finishRecovery(code: "plum-tree-42", AuthParameter(method: .pin, pin: "2468"), tokenPurpose: .none)
    }
}
let recoveryFloor = recoveryKDF + sign + verify + pbkdf2 + 2 * sign
report(
    String(
        format: "  of which crypto (recovery KDF %.1f ms, PIN KDF, signatures, key generation): about %.0f %%",
        recoveryKDF * 1e3, recoveryFloor / recoveryEach * 100))
_ = scrypt

try passkeyBenchmarks(directory: directory, count: flowCount)
try operationBenchmarks(try activatedSystem("operations"), count: flowCount)

/// Peak resident memory of this process so far, from /proc/self/status (VmHWM).
func peakRSS() -> String {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    return status.split(separator: "\n").first { $0.hasPrefix("VmHWM") }.map { String($0.dropFirst(6)).trimmingCharacters(in: .whitespaces) } ?? "?"
}

for count in scaleCounts {
    report("== scale: \(count) registrations in the store")
    let scaled = try activatedSystem("scale-\(count)")
    // Device-only activations: real keys and rows, without a PIN KDF each.
    for index in 0..<count {
        try scaled.activate(userId: "user-\(index)", deviceId: "device-\(index)", method: .device)
    }
    _ = try measure("authentication start + finish with PIN", count: flowCount) { try scaled.authenticate() }
    report("  peak RSS so far: \(peakRSS())")
}
