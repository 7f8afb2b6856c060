import LatchkeyCore
import LatchkeyRPC
import LatchkeyServer
import LatchkeyStore

#if canImport(Glibc)
import Glibc
#endif

/// One engine over an in-memory store, shared by every input (state accumulates, as in a
/// long session). Output goes to /dev/null: the fuzzer looks for crashes, hangs and leaks.
final class FuzzHarness: @unchecked Sendable {
    static let shared = FuzzHarness()
    let server: LatchkeyServer?
    let sink: Int32

    init() {
        sink = open("/dev/null", O_WRONLY)
        server = (try? Latchkey(store: SQLiteStore.inMemory(), clock: ManualClock(start: 1_767_225_600),
                                random: SeededRandomSource(seed: 1)))
            .map { LatchkeyServer(core: $0, options: ServerOptions(version: "fuzz")) }
    }

    /// Framing + parse + dispatch of one input, as if it were a whole stream.
    func run(_ bytes: UnsafeRawBufferPointer) {
        guard let server else { return }
        let writer = FrameWriter(fd: sink)
        let engine = RPCEngine(handler: server, writer: writer, maxMessageBytes: 1 << 16)
        engine.receive(bytes)
        engine.finishInput()
        writer.flush()
    }
}

#if FUZZING
/// The libFuzzer entry point (`make fuzz`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzHarness.shared.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
#else
/// Without the fuzzer: replays corpus files given as arguments (a crash reproduces here).
@main
struct FuzzReplay {
    static func main() {
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
            bytes.withUnsafeBytes { FuzzHarness.shared.run($0) }
        }
    }
}
#endif
