import ArgumentParser
import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyPhoneMethods
import LatchkeyPlatformAuthenticator
import LatchkeyRPC
import LatchkeyServer
import LatchkeyStore
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The version this build reports.
let latchkeyVersion = "0.1.0"

/// What this process serves: the server's methods and the simulated phone's, in one table (and the phone making a reset's passkey).
enum Served {
    static let methods = MethodTable(ServerMethods.entries, adding: PhoneMethods.groups)
    static let passkeyAuthenticator = PhoneMethods.passkeyAuthenticator
}

/// `latchkey schema`: prints the OpenRPC document.
struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema", abstract: "Print the OpenRPC document (the same as rpc.discover) and exit.")

    @Flag(name: .long, help: "Print the MCP tool list (the tools/list result of latchkey mcp) instead.")
    var mcpTools = false

    func run() throws {
        var text = JSONSerializer.serialize(
            mcpTools ? MCPToolList(Served.methods).document : LatchkeyServer.document(version: latchkeyVersion, methods: Served.methods))
        text.append(UInt8(ascii: "\n"))
        // A document cut short (a full disk under `latchkey schema > schema/openrpc.json`) is a failure, not a success.
        // A reader that went away (`| head`) is told nothing; the status says the document was not all written.
        if let failure = writeAll(fd: 1, text) {
            if failure != EPIPE {
                writeAll(fd: 2, Array("latchkey schema: could not write the document to stdout (\(String(cString: strerror(failure))))\n".utf8))
            }
            throw ExitCode(1)
        }
    }
}

enum ClockMode: String, ExpressibleByArgument, CaseIterable { case system, manual }
enum LogLevelOption: String, ExpressibleByArgument, CaseIterable { case trace, debug, info, notice, warning, error }

/// `latchkey`: serves JSON-RPC 2.0 on stdin/stdout.
struct LatchkeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "latchkey",
        abstract: "Mobile authenticator flows — device and server halves — over JSON-RPC 2.0 on stdin/stdout.",
        // Written out: the generated line ends in a required-looking <subcommand>, and serving
        // needs none.
        usage: """
            latchkey [<options>]
              latchkey mcp [<options>]
              latchkey schema [--mcp-tools]
            """,
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
        subcommands: [SchemaCommand.self, MCPCommand.self]
    )

    @Option(
        name: .long,
        help: ArgumentHelp(
            "SQLite store path (WAL, mode 0600), or a PostgreSQL URI (postgresql://… or postgres://…; needs --key-file).",
            discussion: "Default: $XDG_DATA_HOME/latchkey/latchkey.sqlite (~/.local/share when unset, empty or relative).",
            valueName: "path|uri"))
    var db: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "With a PostgreSQL store: the keyed-hash key, kept out of the database (32 random bytes, created with mode 0600 when absent, beside "
                + "the path as PATH.pending until the database first accepts it; every process of one deployment uses a copy of the same file).",
            valueName: "path"))
    var keyFile: String?

    @Flag(name: .long, help: "Use a private store that dies with the process.")
    var inMemory = false

    @Option(name: .long, help: ArgumentHelp("Draw every random value from a generator seeded with N (test mode; needs --in-memory).", valueName: "N"))
    var seed: UInt64?

    @Option(name: .long, help: "system: the wall clock; manual: time stands still and moves with clock/advance (test mode; needs --in-memory).")
    var clock: ClockMode = .system

    @Option(
        name: .long,
        help: ArgumentHelp("Where a manual clock starts (RFC 3339; default 2026-01-01T00:00:00Z; needs --clock manual).", valueName: "time"))
    var startTime: String?

    /// Where a manual clock starts.
    var manualStart: String { startTime ?? "2026-01-01T00:00:00Z" }

    // Unconditional: a negative number is this option's value (then refused by `validate`), not a flag.
    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp("Largest accepted message (at least 64); larger ones answer messageTooLarge and are skipped.", valueName: "N"))
    var maxMessageBytes: Int = 1 << 20

    @Option(name: .long, help: "Log level for stderr.")
    var logLevel: LogLevelOption = .warning

    @Flag(name: .long, help: "Close admin/*, clock/advance, delivery/list, delivery/open, audit/list and the delivery and audit topics.")
    var noAdmin = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Run CMD once per outgoing message with the message as JSON on stdin, off the request path; one still running after 10 s is stopped "
                + "with every process it started and counts as failed. At exit, those still running get 2 s more.",
            valueName: "CMD"))
    var deliverCommand: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Make every valid call of these methods (comma-separated, or the option repeated) answer internalError (-32603) as if the "
                + "store had failed; what a call wrote is rolled back, and a method that changes the process itself (clock/advance, "
                + "events/subscribe, events/unsubscribe, delivery/open) fails before it runs. A testing aid for clients.",
            valueName: "METHOD[,METHOD…]"))
    var failMethod: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp(
            "PEM file of CA certificates that https:// callback receivers may chain to, besides the system's roots (read at start: "
                + "an unreadable or malformed file exits with status 2).",
            valueName: "path"))
    var callbackCaFile: String?

    @Flag(
        name: .long,
        help: ArgumentHelp(
            "Let callbacks reach link-local, private (RFC 1918, fc00::/7) and unspecified addresses, refused by default (at configuration "
                + "and at every attempt, after resolving)."))
    var callbackAllowPrivate = false

    /// The methods named by `--fail-method`.
    var failMethods: [String] { failMethod.flatMap { $0.split(separator: ",").map(String.init) } }

    func validate() throws {
        if let problem = OpenFileLimit.problem() { throw ValidationError(problem) }
        if db != nil, inMemory {
            throw ValidationError("--db and --in-memory exclude each other")
        }
        if db?.isEmpty == true {
            throw ValidationError("--db needs a SQLite file's path or a postgresql:// URI, not an empty string")
        }
        if seed != nil, !inMemory {
            throw ValidationError("--seed is a test mode and needs --in-memory (a shared store must never see predictable secrets)")
        }
        if clock == .manual, !inMemory {
            throw ValidationError("--clock manual is a test mode and needs --in-memory (a shared store must never see a movable clock)")
        }
        if startTime != nil, clock != .manual {
            throw ValidationError("--start-time sets where a manual clock starts: it goes with --clock manual")
        }
        guard let start = Timestamp.parse(manualStart), Timestamp.writable.contains(start) else {
            throw ValidationError("--start-time must be an RFC 3339 time such as 2026-01-01T00:00:00Z")
        }
        if start > Timestamp.latestClock {
            throw ValidationError(
                "--start-time must be at most \(Timestamp.format(Timestamp.latestClock)): lifetimes from a later start (a grace period "
                    + "and then an insecure window, up to 100 years each) would end after 9999-12-31T23:59:59Z, the last time RFC 3339 writes"
            )
        }
        if maxMessageBytes < 64 {
            throw ValidationError("--max-message-bytes must be a number of bytes, at least 64")
        }
        if let db, let scheme = StoreLocation.scheme(of: db), !StoreLocation.isPostgres(scheme) {
            throw ValidationError(
                "--db: Latchkey serves SQLite files (a path) and PostgreSQL (postgresql://… or postgres://…); "
                    + "the scheme \"\(scheme)\" is not served")
        }
        if !inMemory, postgresURI == nil, let problem = SQLiteStore.unusableFile(at: db ?? Self.defaultStorePath()) {
            throw ValidationError("--db: the store file \(problem)")
        }
        if postgresURI != nil, keyFile == nil {
            throw ValidationError(
                "--db postgresql://… needs --key-file PATH: the keyed-hash key is kept in a file, never in the database (created with 32 random "
                    + "bytes and mode 0600 when absent; give every process of the deployment the same file)"
            )
        }
        if keyFile != nil, postgresURI == nil {
            throw ValidationError("--key-file goes with a PostgreSQL store (--db postgresql://…); a SQLite store keeps its key beside its file")
        }
        if let callbackCaFile { _ = try CallbackWiring.trust(caFile: callbackCaFile) }
        if !failMethod.isEmpty {
            let unknown = Served.methods.unknownMethods(failMethods)
            if failMethods.isEmpty || !unknown.isEmpty {
                throw ValidationError("--fail-method: no such method: \(unknown.joined(separator: ", "))")
            }
        }
    }

    func run() throws { try serve { $0 } }

    /// Serves stdio with the method table `table` builds on the server (`latchkey mcp`: MCP's).
    func serve(batches: Bool = true, _ table: (LatchkeyServer) -> RPCHandler) throws {
        let level = Logger.Level(rawValue: logLevel.rawValue) ?? .warning
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "latchkey")
        // stdout is the protocol: keep a private copy and point fd 1 at stderr, so nothing
        // else can write to the stream.
        // Close-on-exec: a delivery command (or a child it leaves behind) must not hold the
        // protocol stream open after this process ends.
        let protocolFD = fcntl(1, F_DUPFD_CLOEXEC, 0)
        dup2(2, 1)

        // The store is opened on the first call that needs it: `ping` needs none.
        let path = inMemory ? nil : (db ?? Self.defaultStorePath())
        var environment = Environment(
            clock: clock == .manual ? ManualClock(start: Timestamp.parse(manualStart) ?? 0) : SystemClock(),
            random: seed.map { SeededRandomSource(seed: $0) } ?? SystemRandomSource(),
            openStore: { try path.map { try SQLiteStore.file(at: $0) } ?? SQLiteStore.inMemory() },
            signer: seed == nil ? RandomizedECDSA() : DeterministicSigner())
        if let postgresURI, let keyFile {
            try PostgresWiring.configure(&environment, uri: postgresURI, keyFile: keyFile)
        }
        CallbackWiring.configure(
            &environment, trust: try CallbackWiring.trust(caFile: callbackCaFile), allowPrivate: callbackAllowPrivate, version: latchkeyVersion)
        let storeKind: StoreKind = postgresURI != nil ? .postgresql : (path == nil ? .memory : .sqlite)
        let options = ServerOptions(
            version: latchkeyVersion, noAdmin: noAdmin, deliverCommand: deliverCommand,
            failMethods: Set(failMethods), storeKind: storeKind,
            checkContract: ContractCheckSwitch.enabled, contractLog: ContractCheckSwitch.logPath, methods: Served.methods,
            passkeyAuthenticator: Served.passkeyAuthenticator)
        let server = LatchkeyServer(environment: environment, options: options, logger: Logger(label: "latchkey.server"))
        let writer = FrameWriter(fd: protocolFD)
        let engine = RPCEngine(handler: table(server), writer: writer, maxMessageBytes: maxMessageBytes)
        engine.acceptsBatches = batches
        let loop = StdioLoop(engine: engine, inputFD: 0)
        logger.info("serving", metadata: ["store": "\(options.storeKind.rawValue)", "clock": "\(clock.rawValue)"])
        loop.run()
        // The peer has every answer: close the stream, then give deliveries under way their
        // short grace at exit.
        close(protocolFD)
        server.finish()
        if LatchkeyServer.contractViolations > 0 { throw ExitCode(3) }
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
                exitProcess(0)
            }
            if !message.isEmpty { writeAll(fd: 2, Array((message + "\n").utf8)) }
            exitProcess(code == .validationFailure ? 2 : code.rawValue)
        }
    }

    /// `--db` when it is a PostgreSQL URI.
    var postgresURI: String? {
        guard let db, let scheme = StoreLocation.scheme(of: db), StoreLocation.isPostgres(scheme) else { return nil }
        return db
    }

    static func defaultStorePath() -> String {
        let base =
            // A relative value is invalid and ignored (XDG Base Directory Specification), as an empty one is.
            environmentVariable("XDG_DATA_HOME").flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? ((environmentVariable("HOME") ?? ".") + "/.local/share")
        return base + "/latchkey/latchkey.sqlite"
    }
}

/// Ends the process with `status`.
func exitProcess(_ status: Int32) -> Never {
    exit(status)
}

/// Where `--db` points: a file path, or a URI whose scheme names another kind of store.
enum StoreLocation {
    /// Schemes that name a PostgreSQL database (any libpq connection URI).
    static func isPostgres(_ scheme: String) -> Bool { scheme == "postgresql" || scheme == "postgres" }

    /// The scheme of a `scheme://…` location, or nil for a path.
    static func scheme(of location: String) -> String? {
        guard let separator = location.range(of: "://") else { return nil }
        let scheme = location[..<separator.lowerBound]
        guard let first = scheme.first, first.isLetter,
            scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return nil }
        return String(scheme)
    }
}

/// Whether the contract check runs: in debug builds, when `LATCHKEY_CHECK_CONTRACT=1`
/// (`LATCHKEY_CONTRACT_LOG` names a file it appends its findings to).
enum ContractCheckSwitch {
    static var enabled: Bool {
        #if DEBUG
        return environmentVariable("LATCHKEY_CHECK_CONTRACT") == "1"
        #else
        return false
        #endif
    }

    static var logPath: String? {
        enabled ? environmentVariable("LATCHKEY_CONTRACT_LOG") : nil
    }
}

/// An environment variable (nil when unset).
func environmentVariable(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
}

/// Writes all of `bytes` to `fd`, retrying partial writes; nil when all were written, else the `errno` of the write that failed
/// (EIO for one that wrote nothing).
@discardableResult
func writeAll(fd: Int32, _ bytes: [UInt8]) -> Int32? {
    var offset = 0
    return bytes.withUnsafeBytes { raw -> Int32? in
        guard let base = raw.baseAddress else { return nil }
        while offset < raw.count {
            let written = write(fd, base + offset, raw.count - offset)
            if written > 0 {
                offset += written
            } else if written < 0, errno == EINTR {
                continue
            } else {
                return written < 0 ? errno : EIO
            }
        }
        return nil
    }
}
