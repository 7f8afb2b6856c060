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
        let pending: KeyFile.Pending?
        do {
            (key, pending) = try KeyFile.readOrPropose(at: keyFile) { SystemRandomSource().bytes(KeyFile.length) }
        } catch {
            let file = error.path == keyFile ? "the file" : "the file is missing, and a key proposed for it at \(error.path)"
            throw ValidationError("--key-file: \(file) \(error.contents.problem ?? "is no key") (it must hold the deployment's 32-byte key)")
        }
        // A key not found at the path (made now, or proposed by a process that died first) is put there only once the database
        // accepts it: a process starting meanwhile, or the next start, never takes a key the database may refuse for the deployment's.
        let unconfirmed = pending.map { pending in
            UnconfirmedKey(keep: { try KeyFile.keep(pending) }, drop: { KeyFile.drop(pending) })
        }
        environment.openStore = { try PostgresStore(conninfo: uri, key: key, unconfirmedKey: unconfirmed) }
        environment.relay = PostgresNotifier(conninfo: uri, key: key)
    }
}
