import CSpawn
import Foundation
import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs `--deliver-command CMD` once per outgoing message, with the message as JSON on stdin —
/// how a deployment plugs in real email or SMS — off the request path: `start` returns at once
/// and a worker thread runs the command, so no request, response or notification waits for one.
///
/// Each command runs in a process group of its own. One still running after `timeLimit` is
/// stopped with every process it started (SIGTERM to the group and to every descendant, those that left the group too, SIGKILL a
/// second later). A
/// command that exits 0 and leaves a child behind has succeeded: the child is not waited for
/// (it inherits no descriptor of this process but stderr). A failure — the command could not
/// start, exited non-zero, or was stopped — is logged (the message's id, never its code) and
/// kept for the server to audit (`takeFailures`).
///
/// At most `maxRunning` commands run at once; later messages wait their turn, in order, up to `maxWaiting` of them (one more is a
/// failure): a command that hangs holds a thread and its processes for 10 s, and a flood of messages would otherwise hold as many.
///
/// At exit (`finish`) the commands still running get `exitGrace` more to finish, then their
/// groups are stopped as on a timeout, and messages still waiting are failures: the process ends within a few seconds of its input.
final class DeliveryCommand: Sendable {
    let command: String
    let logger: Logger
    /// How long one message's command may run, in seconds.
    static let timeLimit: Double = 10
    /// At exit, how long the commands still running may take to finish, in seconds.
    static let exitGrace: Double = 2
    /// Between SIGTERM and SIGKILL to a group being stopped, in seconds.
    static let killGrace: Double = 1
    /// How many commands run at once, at most.
    static let maxRunning = 16
    /// How many messages wait for a command to end, at most.
    static let maxWaiting = 1000

    /// A message whose command has yet to run.
    private struct Message {
        let payload: [UInt8]
        let id: String
        let purpose: DeliveryPurpose
    }

    private struct State {
        /// Commands started and not yet over.
        var running = 0
        /// Messages waiting, oldest first, for a running command to end.
        var waiting: [Message] = []
        /// The purposes of the messages whose command failed, not yet audited.
        var failures: [DeliveryPurpose] = []
        /// Set by `finish`: no command runs past this monotonic time.
        var stopBy: Double?
    }
    private let state = Mutex(State())

    /// A command that exits before reading its message makes the write fail with EPIPE, and must not
    /// end the process by SIGPIPE: ignored here, as the executable's stdio loop ignores it, for a
    /// process that runs the server without that loop (the unit tests).
    init(command: String, logger: Logger) {
        self.command = command
        self.logger = logger
        signal(SIGPIPE, SIG_IGN)
    }

    /// Whether a command is running or a failure waits to be audited (the loop then wakes to audit it).
    var isBusy: Bool { state.withLock { $0.running > 0 || !$0.failures.isEmpty } }

    /// The failures since the last call, oldest first.
    func takeFailures() -> [DeliveryPurpose] {
        state.withLock { state in
            let taken = state.failures
            state.failures.removeAll()
            return taken
        }
    }

    /// Puts back failures the store could not take, ahead of any newer ones: the next look audits them.
    func giveBack(_ failures: [DeliveryPurpose]) {
        state.withLock { $0.failures.insert(contentsOf: failures, at: 0) }
    }

    /// Starts the command for `message` on a worker thread, or queues it behind those running, and returns at once.
    func start(_ message: OutboundMessage) {
        let next = Message(
            payload: JSONSerializer.serialize(message.wireJSON()) + [UInt8(ascii: "\n")], id: message.id, purpose: message.purpose)
        enum Turn { case now, waits, dropped }
        let turn = state.withLock { state -> Turn in
            if state.running < Self.maxRunning {
                state.running += 1
                return .now
            }
            guard state.waiting.count < Self.maxWaiting else {
                state.failures.append(next.purpose)
                return .dropped
            }
            state.waiting.append(next)
            return .waits
        }
        switch turn {
        // A thread of its own: a command waited for blocks it for up to 10 s, which would starve a shared pool (libdispatch's grows
        // by a thread now and then, so commands queued there started late).
        case .now: Thread { [self] in runInTurn(next) }.start()
        case .waits: break
        case .dropped:
            logger.error("the delivery command is too far behind: the message is not delivered", metadata: ["messageId": "\(message.id)"])
        }
    }

    /// Runs `first`'s command, then each waiting message's in turn; at exit, those still waiting are failures.
    private func runInTurn(_ first: Message) {
        var current: Message? = first
        while let message = current {
            let succeeded = run(message.payload, messageId: message.id)
            current = state.withLock { state -> Message? in
                if !succeeded { state.failures.append(message.purpose) }
                if state.stopBy != nil {
                    state.failures += state.waiting.map(\.purpose)
                    state.waiting.removeAll()
                }
                guard !state.waiting.isEmpty else {
                    state.running -= 1
                    return nil
                }
                return state.waiting.removeFirst()
            }
        }
    }

    /// At exit: lets the commands still running finish within `exitGrace`, stops the rest, and
    /// returns once none is running (bounded by `exitGrace` + `killGrace` and a little more).
    func finish() {
        let stopBy = Self.now() + Self.exitGrace
        state.withLock { $0.stopBy = stopBy }
        let giveUp = stopBy + Self.killGrace + 1
        while state.withLock({ $0.running }) > 0, Self.now() < giveUp {
            Self.pause()
        }
    }

    /// Runs the command once with `payload` on its stdin; false when it failed.
    private func run(_ payload: [UInt8], messageId: String) -> Bool {
        let metadata: Logger.Metadata = ["messageId": "\(messageId)"]
        guard let pid = spawn(payload) else {
            logger.error("the delivery command could not start", metadata: metadata)
            return false
        }
        let deadline = Self.now() + Self.timeLimit
        var status: Int32 = 0
        var stopping: Double?
        // What the command started, found when it is stopped: those that left its group (`setsid`) are stopped with it.
        var started: ProcessTree?
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { break }
            if reaped < 0, errno != EINTR {
                logger.error("the delivery command could not be waited for", metadata: metadata)
                return false
            }
            let now = Self.now()
            if let since = stopping {
                // The leader is not reaped yet, so the group id cannot have been reused.
                if now >= since + Self.killGrace {
                    kill(-pid, SIGKILL)
                    started?.signal(SIGKILL)
                }
            } else if now >= min(deadline, state.withLock { $0.stopBy } ?? deadline) {
                started = ProcessTree(descendantsOf: pid)
                kill(-pid, SIGTERM)
                started?.signal(SIGTERM)
                stopping = now
            }
            Self.pause()
        }
        if stopping != nil {
            // The leader is gone; what else the group holds, and what left it, is stopped too.
            kill(-pid, SIGKILL)
            started?.signal(SIGKILL)
            logger.error("the delivery command was stopped (still running after its time limit, or at exit)", metadata: metadata)
            return false
        }
        guard Self.exitedZero(status) else {
            logger.error("the delivery command failed", metadata: metadata.merging(["status": "\(Self.describe(status))"]) { $1 })
            return false
        }
        return true
    }

    /// Held from a pipe's creation until it is close-on-exec and the command is spawned, so no
    /// other command inherits this one's stdin (and holds it open).
    private static let spawning = Mutex(())

    /// Starts `/bin/sh -c command` as the leader of a new process group, `payload` on its stdin, its stdout and stderr on this process's stderr.
    ///
    /// Every other descriptor of this process is close-on-exec (the protocol stream, the signal pipe, the
    /// stores' files), so the command, and any child it leaves behind, holds none of them.
    private func spawn(_ payload: [UInt8]) -> pid_t? {
        let spawned: (pid: pid_t, writeEnd: Int32)? = Self.spawning.withLock { _ in
            var pipeFDs: [Int32] = [-1, -1]
            guard pipe(&pipeFDs) == 0 else { return nil }
            let (readEnd, writeEnd) = (pipeFDs[0], pipeFDs[1])
            _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)
            let pid = launch(stdin: readEnd)
            close(readEnd)
            guard let pid else {
                close(writeEnd)
                return nil
            }
            return (pid, writeEnd)
        }
        guard let (pid, writeEnd) = spawned else { return nil }
        defer { close(writeEnd) }
        // The message is far smaller than a pipe's buffer; a command that never reads it
        // must not hold this thread, so the write end never blocks.
        _ = fcntl(writeEnd, F_SETFL, fcntl(writeEnd, F_GETFL) | O_NONBLOCK)
        var offset = 0
        payload.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            while offset < raw.count {
                let written = write(writeEnd, base + offset, raw.count - offset)
                if written > 0 { offset += written } else if written < 0, errno == EINTR { continue } else { break }
            }
        }
        if offset < payload.count {
            // Not a failure: the command's exit status decides that (one that exits 0 without
            // reading its input has taken the message as it wanted).
            logger.debug("the delivery command did not read its whole message")
        }
        return pid
    }

    /// posix_spawn of the command in a new process group, `stdin` as its fd 0, fd 2 as its 1 and 2, no other descriptor (those the
    /// process inherited without close-on-exec too), SIGPIPE back to its default and no signal blocked.
    private func launch(stdin: Int32) -> pid_t? {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, 2, 1)
        // No action, no child: one that inherited every descriptor would be worse than a failed delivery.
        guard CSpawn_closeFrom(&actions, 3) == 0 else { return nil }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        var mask = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        sigemptyset(&mask)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        var pid: pid_t = 0
        let arguments = ["/bin/sh", "-c", command]
        let started = withCStrings(arguments) { argv in
            posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, environ)
        }
        return started == 0 ? pid : nil
    }

    private static func exitedZero(_ status: Int32) -> Bool { status & 0x7f == 0 && (status >> 8) & 0xff == 0 }

    private static func describe(_ status: Int32) -> String {
        status & 0x7f == 0 ? "exit \((status >> 8) & 0xff)" : "signal \(status & 0x7f)"
    }

    /// Seconds on the monotonic clock.
    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// 10 ms.
    private static func pause() {
        var time = timespec(tv_sec: 0, tv_nsec: 10_000_000)
        _ = nanosleep(&time, nil)
    }
}

/// Calls `body` with a NULL-terminated C array of `strings`, valid for the call only.
private func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
    let pointers = strings.map { strdup($0) }
    defer { for pointer in pointers { free(pointer) } }
    return body(pointers + [nil])
}
