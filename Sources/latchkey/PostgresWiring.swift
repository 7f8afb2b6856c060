import ArgumentParser
import LatchkeyContract
import LatchkeyCore
import LatchkeyPostgres
import LatchkeyServer
import LatchkeyStore

extension PostgresNotifier: EventRelay {}

/// `--db postgresql://…`: the store and the notification relay on one database, the keyed-hash
/// key from `--key-file`.
enum PostgresWiring {
    /// Reads (or creates) the key file and points the environment at the database.
    ///
    /// The URI is never logged or echoed: it may hold a password.
    /// - Throws: `ValidationError` (exit 2) when the key file cannot be read or created.
    static func configure(_ environment: inout Environment, uri: String, keyFile: String) throws {
        let key: [UInt8]
        let made: KeyFile.Made?
        do {
            (key, made) = try KeyFile.readOrCreateNoting(at: keyFile) { SystemRandomSource().bytes(KeyFile.length) }
        } catch {
            throw ValidationError("--key-file: the file \(error.contents.problem ?? "is no key") (it must hold the deployment's 32-byte key)")
        }
        // A key file made here is taken back (removed, if it is still the one at the path) when the database proves to be another
        // key's, so the next start does not find it and take it for the deployment's.
        let takeBack: (@Sendable () -> Bool)? = made.map { made in { @Sendable in KeyFile.remove(made) } }
        environment.openStore = { try PostgresStore(conninfo: uri, key: key, keyMadeNow: takeBack) }
        environment.relay = PostgresNotifier(conninfo: uri, key: key)
    }
}
