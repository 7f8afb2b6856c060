import LatchkeyJSON

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The self-pipe a signal handler wakes the loop with.
nonisolated(unsafe) private var signalPipeWriteFD: Int32 = -1
nonisolated(unsafe) private var signalPipeReadFD: Int32 = -1
/// Set by SIGTERM/SIGINT: finish the request in hand, flush, exit 0.
nonisolated(unsafe) private var terminationRequested: sig_atomic_t = 0
/// The input descriptor and /dev/null: on a signal the handler points the input at /dev/null,
/// so a read that starts after the signal sees end of input instead of blocking.
nonisolated(unsafe) private var signalInputFD: Int32 = -1
nonisolated(unsafe) private var signalDevNullFD: Int32 = -1

/// SIGTERM/SIGINT: flag the request, wake the loop, and point the input at /dev/null so a read
/// that starts after the signal sees end of input instead of blocking (async-signal-safe calls only).
private func onTerminationSignal(_: Int32) {
    terminationRequested = 1
    var byte: UInt8 = 1
    _ = write(signalPipeWriteFD, &byte, 1)
    if signalDevNullFD >= 0 { _ = dup2(signalDevNullFD, signalInputFD) }
}

/// Serves one peer over file descriptors: reads, answers, flushes before blocking, and wakes
/// for time-driven work and for SIGTERM/SIGINT.
public final class StdioLoop {
    private let engine: RPCEngine
    private let inputFD: Int32
    private var signalReadFD: Int32 { signalPipeReadFD }
    private var fds = (pollfd(), pollfd(), pollfd())

    public init(engine: RPCEngine, inputFD: Int32) {
        self.engine = engine
        self.inputFD = inputFD
    }

    /// Ignores SIGPIPE and routes SIGTERM/SIGINT to the loop that will read `inputFD`.
    ///
    /// Called first thing in `main`, before the flags are parsed and the server is built: a signal that arrives while the process
    /// starts ends it cleanly (exit 0, nothing in hand) instead of killing it. Once is enough.
    public static func installSignalHandlers(inputFD: Int32) {
        guard signalPipeReadFD < 0 else { return }
        signal(SIGPIPE, SIG_IGN)
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return }
        // Close-on-exec, like every descriptor of the process: a child (--deliver-command) holds none.
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        signalPipeReadFD = fds[0]
        signalPipeWriteFD = fds[1]
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
        _ = fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK)
        signalInputFD = inputFD
        signalDevNullFD = open("/dev/null", O_RDONLY | O_CLOEXEC)
        for signalNumber in [SIGTERM, SIGINT] {
            var action = sigaction()
            #if canImport(Glibc)
            action.__sigaction_handler.sa_handler = onTerminationSignal
            #elseif canImport(Darwin)
            action.__sigaction_u.__sa_handler = onTerminationSignal
            #endif
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            sigaction(signalNumber, &action, nil)
        }
    }

    private static var stopRequested: Bool { terminationRequested != 0 }

    /// Runs until end of input, `exit`, or a termination signal; everything answered is flushed.
    public func run() {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        let writer = engine.writer
        let handler = engine.handler
        while !engine.exitRequested, !Self.stopRequested {
            writer.flush()
            guard waitForInput(handler: handler, writer: writer) else { break }
            if Self.stopRequested { break }
            let count = chunk.withUnsafeMutableBytes { read(inputFD, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                break
            }
            if count == 0 {
                engine.finishInput()
                break
            }
            chunk.withUnsafeBytes { raw in
                engine.receive(UnsafeRawBufferPointer(rebasing: raw[0..<count]), shouldStop: { Self.stopRequested })
            }
        }
        writer.flush()
    }

    /// Blocks until input is readable, running due work when its time comes.
    ///
    /// Returns false when a termination signal arrived.
    private func waitForInput(handler: RPCHandler, writer: FrameWriter) -> Bool {
        while true {
            if Self.stopRequested { return false }
            let due = handler.millisecondsUntilDue()
            let waker = handler.waker
            // Nothing time-driven pending and nothing to wake for: block in read(2) directly (one
            // syscall less per request). A signal interrupts that read, or, arriving just before it,
            // has already pointed the input at /dev/null, so the read returns end of input.
            if due == nil, waker == nil, signalDevNullFD >= 0 { return true }
            let timeout = due.map { Int32(clamping: max(0, $0)) } ?? -1
            // Three fixed slots (input, signal, waker; -1 is skipped): no allocation on this path,
            // which runs once per read.
            fds.0 = pollfd(fd: inputFD, events: Int16(POLLIN), revents: 0)
            fds.1 = pollfd(fd: signalReadFD, events: Int16(POLLIN), revents: 0)
            fds.2 = pollfd(fd: waker?.descriptor ?? -1, events: Int16(POLLIN), revents: 0)
            let ready = withUnsafeMutableBytes(of: &fds) { raw in
                poll(raw.baseAddress?.assumingMemoryBound(to: pollfd.self), 3, timeout)
            }
            if ready < 0 {
                if errno == EINTR { continue }
                return true
            }
            if fds.1.revents != 0 { return !Self.stopRequested }
            // Only POLLIN wakes: an error on the waker's pipe (it cannot have one while the server holds it) must not spin.
            if ready == 0 || (fds.2.revents & Int16(POLLIN) != 0 && fds.0.revents == 0) {
                waker?.drain()
                handler.runDue { writer.enqueue($0) }
                writer.flush()
                continue
            }
            return true
        }
    }
}
