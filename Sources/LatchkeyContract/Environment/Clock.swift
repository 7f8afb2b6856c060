import Synchronization

/// Seconds since the Unix epoch, UTC.
///
/// The contract's times are whole seconds.
public typealias UnixTime = Int64

/// Where the domain reads the time.
///
/// Core never reads the system clock directly.
public protocol Clock: AnyObject, Sendable {
    /// The current time in whole seconds.
    var now: UnixTime { get }
    /// The current time in milliseconds (for waking up on time-driven work).
    var nowMilliseconds: Int64 { get }
    /// Whether `advance(by:)` is allowed.
    var isManual: Bool { get }
    /// Moves a manual clock forward.
    /// - Throws: `DomainError.forbidden` on the system clock.
    func advance(by seconds: Int64) throws
}

/// The wall clock.
public final class SystemClock: Clock {
    public init() {}

    public var now: UnixTime { nowMilliseconds / 1000 }

    public var nowMilliseconds: Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }

    public var isManual: Bool { false }

    public func advance(by seconds: Int64) throws {
        throw DomainError(.forbidden, "The system clock cannot be moved; only a manual clock can")
    }
}

/// A clock that stands still and moves only when told to (`--clock manual`).
public final class ManualClock: Clock {
    private let current: Mutex<UnixTime>

    public init(start: UnixTime) {
        current = Mutex(start)
    }

    public var now: UnixTime { current.withLock { $0 } }
    public var nowMilliseconds: Int64 { now * 1000 }
    public var isManual: Bool { true }

    public func advance(by seconds: Int64) throws {
        current.withLock { $0 += seconds }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
