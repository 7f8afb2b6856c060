import LatchkeyContract
import Synchronization

/// A store whose transactions fail while it is armed, as a broken disk would make them fail: the body runs, then its transaction rolls back and
/// `InjectedStoreFault` is thrown (whatever the body answered, a domain refusal included).
///
/// It lets clients and golden transcripts see what a failing server answers (`internalError`) and check
/// that nothing was written (`latchkey --fail-method M`). Unarmed, it only forwards.
public final class FaultInjectingStore: Store {
    private let base: Store
    private let armed = Mutex(false)

    public init(base: Store) { self.base = base }

    public var kind: StoreKind { base.kind }

    /// From now on every transaction fails, until `disarm`.
    public func arm() { armed.withLock { $0 = true } }
    public func disarm() { armed.withLock { $0 = false } }

    public func write<T>(_ body: (StoreTransaction) throws -> T) throws -> T {
        try base.write { tx in try failIfArmed { try body(tx) } }
    }

    public func read<T>(_ body: (StoreTransaction) throws -> T) throws -> T {
        try base.read { tx in try failIfArmed { try body(tx) } }
    }

    public func secretKey(make: () -> [UInt8]) throws -> [UInt8] { try base.secretKey(make: make) }
    public var unconfirmedKey: UnconfirmedKey? { base.unconfirmedKey }

    /// Runs `body`; armed, any outcome becomes `InjectedStoreFault` (the transaction rolls back).
    private func failIfArmed<T>(_ body: () throws -> T) throws -> T {
        let outcome = Result { try body() }
        if armed.withLock({ $0 }) { throw InjectedStoreFault() }
        return try outcome.get()
    }
}

/// The failure a `FaultInjectingStore` throws (never a `DomainError`: callers see a broken store).
public struct InjectedStoreFault: Error, Sendable {
    public init() {}
}
