import CFuzzSupport
import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyPhoneMethods
import LatchkeyPlatformAuthenticator
import LatchkeyRPC
import LatchkeyServer
import LatchkeyStore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One engine over an in-memory store, shared by every input (state accumulates, as in a long session).
///
/// Output goes to /dev/null: the fuzzer looks for crashes, hangs and leaks.
final class FuzzHarness: @unchecked Sendable {
    static let shared = FuzzHarness()
    private(set) var server: LatchkeyServer?
    /// One writer for every input (its 64 KiB buffer is allocated once, not per input).
    private let writer: FrameWriter
    private var runs = 0

    init() {
        writer = FrameWriter(fd: open("/dev/null", O_WRONLY))
        server = Self.makeServer()
    }

    private static func makeServer() -> LatchkeyServer? {
        let environment = Environment(
            clock: ManualClock(start: 1_767_225_600), random: SeededRandomSource(seed: 1),
            openStore: { try SQLiteStore.inMemory() }, signer: DeterministicSigner())
        return LatchkeyServer(
            environment: environment,
            options: ServerOptions(version: "fuzz", methods: methods, passkeyAuthenticator: PhoneMethods.passkeyAuthenticator))
    }

    /// Every method of the executable: the server's and the simulated phone's.
    private static let methods = MethodTable(ServerMethods.entries, adding: PhoneMethods.groups)

    /// Runs every method once, and every framing, so one-time lazy initialisation happens
    /// before the fuzzer starts counting leaks.
    func warmUp() {
        guard case .array(let methods)? = LatchkeyServer.document(version: "fuzz", methods: Self.methods)["methods"] else { return }
        var lines = ""
        for (index, method) in methods.enumerated() {
            guard let name = method["name"]?.stringValue else { continue }
            lines += "{\"jsonrpc\":\"2.0\",\"id\":\(index),\"method\":\"\(name)\",\"params\":{}}\n"
        }
        lines += "[]\n{bad\n[1]\n"
        for input in [lines, "Content-Length: 2\r\n\r\n{}", "Content-Length: x\r\n\r\n"] {
            Array(input.utf8).withUnsafeBytes { run($0) }
        }
    }

    /// Framing + parse + dispatch of one input, as if it were a whole stream.
    func run(_ bytes: UnsafeRawBufferPointer) {
        // A fresh store now and then keeps state (and the cost of each input) bounded.
        runs += 1
        if runs % 512 == 0 { server = Self.makeServer() }
        guard let server else { return }
        writer.framing = .newlineDelimited
        let engine = RPCEngine(handler: server, writer: writer, maxMessageBytes: 1 << 16)
        engine.receive(bytes)
        engine.finishInput()
        writer.flush()
    }
}

/// What one run fuzzes, named by `LATCHKEY_FUZZ_TARGET` (default `rpc`).
enum FuzzTarget: String, CaseIterable {
    /// Framing, parsing and dispatch of a whole stream.
    case rpc
    /// The strict CBOR decoder (and the canonical encoder on what it reads).
    case cbor
    /// COSE keys (read, then a signature check).
    case cose
    /// Authenticator data.
    case authData
    /// An attestation object through every registration check.
    case registration
    /// Authenticator data and a signature through every assertion check.
    case assertion
    /// An operation-data string through the validator (and its display attributes).
    case operationData
    /// An offline QR payload through the phone's parser.
    case qrPayload

    static let selected: FuzzTarget = getenv("LATCHKEY_FUZZ_TARGET").flatMap { FuzzTarget(rawValue: String(cString: $0)) } ?? .rpc
}

/// libFuzzer's callback: one input through the selected target.
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let buffer = UnsafeRawBufferPointer(start: data, count: size)
    switch FuzzTarget.selected {
    case .rpc: FuzzHarness.shared.run(buffer)
    case .cbor: CBORDecoder.fuzz(Array(buffer))
    case .cose: COSEKey.fuzz(Array(buffer))
    case .authData: AuthenticatorData.fuzz(Array(buffer))
    case .registration: RelyingParty.fuzzRegistration(Array(buffer))
    case .assertion: RelyingParty.fuzzAssertion(Array(buffer))
    case .operationData: OperationData.fuzz(Array(buffer))
    case .qrPayload: QRPayload.fuzz(Array(buffer))
    }
    return 0
}

/// The entry point libFuzzer's objects refer to (the driver gets `fuzzOneInput` directly).
@_cdecl("LLVMFuzzerTestOneInput")
public func llvmFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    fuzzOneInput(data, size)
}

/// Built with `-sanitize=fuzzer` (`make fuzz`) it runs libFuzzer's driver; otherwise it replays
/// the corpus files given as arguments (a finding reproduces here, `make fuzz-replay`).
@main
struct FuzzMain {
    static func main() {
        if CFuzzSupport_hasDriver() != 0 {
            KDFCost.useForFuzzing()
            FuzzHarness.shared.warmUp()
            var argc = CommandLine.argc
            var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
            exit(CFuzzSupport_runDriver(&argc, &argv) { data, size in fuzzOneInput(data, size) })
        }
        for path in CommandLine.arguments.dropFirst() {
            guard let file = fopen(path, "rb") else { continue }
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = fread(&chunk, 1, chunk.count, file)
                if count <= 0 { break }
                bytes += chunk[0..<count]
            }
            fclose(file)
            _ = bytes.withUnsafeBufferPointer { fuzzOneInput($0.baseAddress, $0.count) }
        }
    }
}
