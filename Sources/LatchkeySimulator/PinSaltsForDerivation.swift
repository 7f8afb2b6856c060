import LatchkeyDevice
import Synchronization

/// Each simulated phone's PIN salt as its last committed call in this process left it, kept so a
/// PIN is derived before the transaction opens (`PinDerivation`): the 2 ms of PBKDF2 then never
/// runs between a transaction's round trips, nor again when a serialization failure runs it again.
///
/// Not a read set, and nothing a request reads comes from it: the transaction still reads the
/// keychain, and the device uses the derived stream only when the salt, the PIN's bytes and the
/// rounds match what it holds there, so a salt another process changed costs the derivation inside
/// the transaction, never a wrong key. Neither a salt nor a key's length is secret. At most
/// `capacity` devices are kept (all are forgotten when it fills).
final class PinSaltsForDerivation: Sendable {
    private let salts = Mutex<[String: PinSalt]>([:])
    static let capacity = 4096

    /// The salt `deviceId`'s last call left (nil: none kept).
    func salt(of deviceId: String) -> PinSalt? { salts.withLock { $0[deviceId] } }

    /// Keeps what `deviceId`'s keychain holds now (nil: no PIN, forgets it).
    func keep(_ salt: PinSalt?, of deviceId: String) {
        salts.withLock { kept in
            guard let salt else {
                kept.removeValue(forKey: deviceId)
                return
            }
            if kept[deviceId] == nil, kept.count >= Self.capacity { kept.removeAll() }
            kept[deviceId] = salt
        }
    }
}
