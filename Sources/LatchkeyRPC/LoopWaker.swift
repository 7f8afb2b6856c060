#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Wakes an idle stdio loop from another thread: a pipe whose read end the loop polls (`RPCHandler.waker`).
///
/// `wake` writes one byte (never blocks: a full pipe already wakes the loop); the loop reads them all before it runs its due work.
public final class LoopWaker: Sendable {
    /// The end the loop polls (-1 when the pipe could not be made: then nothing wakes the loop but its own timers).
    public let descriptor: Int32
    private let writeEnd: Int32

    public init() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            descriptor = -1
            writeEnd = -1
            return
        }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        descriptor = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        for end in [descriptor, writeEnd] where end >= 0 { close(end) }
    }

    /// Asks the loop to run its due work soon; callable from any thread.
    public func wake() {
        guard writeEnd >= 0 else { return }
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Takes every pending wake (the loop, before it runs its due work).
    public func drain() {
        guard descriptor >= 0 else { return }
        var bytes = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        while withUnsafeMutableBytes(of: &bytes, { read(descriptor, $0.baseAddress, $0.count) }) > 0 {}
    }
}
