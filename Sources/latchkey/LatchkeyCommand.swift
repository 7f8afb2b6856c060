import ArgumentParser
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyServer
import LatchkeyStore
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// The version this build reports.
let latchkeyVersion = "0.1.0"

/// `latchkey schema`: prints the OpenRPC document.
struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema", abstract: "Print the OpenRPC document (the same as rpc.discover) and exit.")

    func run() throws {
        var text = JSONSerializer.serialize(LatchkeyServer.document(version: latchkeyVersion))
        text.append(UInt8(ascii: "\n"))
        writeAll(fd: 1, text)
    }
}

enum ClockMode: String, ExpressibleByArgument, CaseIterable { case system, manual }
enum LogLevelOption: String, ExpressibleByArgument, CaseIterable { case trace, debug, info, notice, warning, error }

/// `latchkey`: serves JSON-RPC 2.0 on stdin/stdout.
struct LatchkeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "latchkey",
        abstract: "Mobile authenticator flows — device and server halves — over JSON-RPC 2.0 on stdin/stdout.",
        discussion: """
        Reads JSON-RPC 2.0 messages on stdin (one a line, or LSP Content-Length framing, detected \
        from the first byte) and answers on stdout in the same framing. Logs go to stderr only.
        EOF on stdin or the `exit` notification: finish, flush, exit 0. SIGTERM/SIGINT: finish the \
        request in hand, flush, exit 0.

        Test modes: --seed and --clock manual need --in-memory (exit status 2 otherwise), so a shared \
        store never sees predictable secrets or a clock someone can move.

        Example:
          echo '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"echo":"hi"}}' | latchkey --in-memory
        """,
        version: latchkeyVersion,
        subcommands: [SchemaCommand.self]
    )

    @Option(name: .long, help: ArgumentHelp("SQLite store path (WAL, mode 0600).",
                                            discussion: "Default: $XDG_DATA_HOME/latchkey/latchkey.sqlite (~/.local/share when unset).",
                                            valueName: "path"))
    var db: String?

    @Flag(name: .long, help: "Use a private store that dies with the process.")
    var inMemory = false

    @Option(name: .long, help: ArgumentHelp("Draw every random value from a generator seeded with N (test mode; needs --in-memory).", valueName: "N"))
    var seed: UInt64?

    @Option(name: .long, help: "system: the wall clock; manual: time stands still and moves with clock/advance (test mode; needs --in-memory).")
    var clock: ClockMode = .system

    @Option(name: .long, help: ArgumentHelp("Where a manual clock starts (RFC 3339).", valueName: "time"))
    var startTime: String = "2026-01-01T00:00:00Z"

    @Option(name: .long, help: ArgumentHelp("Largest accepted message; larger ones answer messageTooLarge and are skipped.", valueName: "N"))
    var maxMessageBytes: Int = 1 << 20

    @Option(name: .long, help: "Log level for stderr.")
    var logLevel: LogLevelOption = .warning

    @Flag(name: .long, help: "Close admin/*, clock/advance, delivery/list, delivery/open, audit/list and the delivery and audit topics.")
    var noAdmin = false

    @Option(name: .long, help: ArgumentHelp("Run CMD once per outgoing message with the message as JSON on stdin.", valueName: "CMD"))
    var deliverCommand: String?

    @Option(name: .long, help: ArgumentHelp(
        "Make every valid call of these methods (comma-separated) answer internalError (-32603) as if the store had failed; what a call wrote is rolled back. A testing aid for clients.",
        valueName: "METHOD[,METHOD…]"))
    var failMethod: String?

    /// The methods named by `--fail-method`.
    var failMethods: [String] { failMethod.map { $0.split(separator: ",").map(String.init) } ?? [] }

    func validate() throws {
        if db != nil, inMemory {
            throw ValidationError("--db and --in-memory exclude each other")
        }
        if seed != nil, !inMemory {
            throw ValidationError("--seed is a test mode and needs --in-memory (a shared store must never see predictable secrets)")
        }
        if clock == .manual, !inMemory {
            throw ValidationError("--clock manual is a test mode and needs --in-memory (a shared store must never see a movable clock)")
        }
        if Timestamp.parse(startTime) == nil {
            throw ValidationError("--start-time must be an RFC 3339 time such as 2026-01-01T00:00:00Z")
        }
        if maxMessageBytes < 64 {
            throw ValidationError("--max-message-bytes must be at least 64")
        }
        if failMethod != nil {
            let unknown = FaultInjection.unknownMethods(failMethods)
            if failMethods.isEmpty || !unknown.isEmpty {
                throw ValidationError("--fail-method: no such method: \(unknown.joined(separator: ", "))")
            }
        }
    }

    func run() throws {
        let level = Logger.Level(rawValue: logLevel.rawValue) ?? .warning
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "latchkey")
        // stdout is the protocol: keep a private copy and point fd 1 at stderr, so nothing
        // else can write to the stream.
        let protocolFD = dup(1)
        dup2(2, 1)

        var store: Store
        do {
            store = try inMemory ? SQLiteStore.inMemory() : SQLiteStore.file(at: db ?? Self.defaultStorePath())
        } catch {
            logger.critical("cannot open the store", metadata: ["error": "\(error)"])
            throw ExitCode(1)
        }
        var faultInjection: FaultInjection?
        if !failMethods.isEmpty {
            let faulty = FaultInjectingStore(base: store)
            store = faulty
            faultInjection = FaultInjection(methods: Set(failMethods), store: faulty)
        }
        let clockSource: LatchkeyCore.Clock = clock == .manual
            ? ManualClock(start: Timestamp.parse(startTime) ?? 0) : SystemClock()
        let random: RandomSource = seed.map { SeededRandomSource(seed: $0) } ?? SystemRandomSource()
        let core: Latchkey
        do {
            core = try Latchkey(store: store, clock: clockSource, random: random, logger: Logger(label: "latchkey.core"))
        } catch {
            logger.critical("cannot prepare the store", metadata: ["error": "\(error)"])
            throw ExitCode(1)
        }
        let server = LatchkeyServer(
            core: core, options: ServerOptions(version: latchkeyVersion, noAdmin: noAdmin, deliverCommand: deliverCommand,
                                        faultInjection: faultInjection),
            logger: Logger(label: "latchkey.server"))
        let writer = FrameWriter(fd: protocolFD)
        let engine = RPCEngine(handler: server, writer: writer, maxMessageBytes: maxMessageBytes)
        let loop = StdioLoop(engine: engine, inputFD: 0)
        loop.installSignalHandlers()
        logger.info("serving", metadata: ["store": "\(store.kind)", "clock": "\(clock.rawValue)"])
        loop.run()
    }

    /// Parses the command line and runs; usage errors exit with status 2.
    static func start() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code == .success {
                if !message.isEmpty { writeAll(fd: 1, Array((message + "\n").utf8)) }
                Glibc.exit(0)
            }
            if !message.isEmpty { writeAll(fd: 2, Array((message + "\n").utf8)) }
            Glibc.exit(code == .validationFailure ? 2 : code.rawValue)
        }
    }

    static func defaultStorePath() -> String {
        let environment = ProcessInfoLite.environment
        let base = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? ".") + "/.local/share")
        return base + "/latchkey/latchkey.sqlite"
    }
}

/// Environment variables without Foundation.
enum ProcessInfoLite {
    static var environment: [String: String] {
        var result: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            pointer += 1
        }
        return result
    }
}

/// Writes all of `bytes` to `fd`, retrying partial writes.
func writeAll(fd: Int32, _ bytes: [UInt8]) {
    var offset = 0
    bytes.withUnsafeBytes { raw in
        guard let base = raw.baseAddress else { return }
        while offset < raw.count {
            let written = write(fd, base + offset, raw.count - offset)
            if written > 0 { offset += written } else if errno != EINTR { return }
        }
    }
}
