import ArgumentParser
import LatchkeyCallbacks
import LatchkeyCore
import LatchkeyServer
import Logging

/// Callbacks: each process on the store delivers them, with a worker attached to the system when it opens and started only once a
/// callback is in sight (one in the store at open, one configured, an event written), so a process that has none pays nothing.
enum CallbackWiring {
    /// Reads `--callback-ca-file` now, so a bad file stops the process at its start.
    /// - Throws: `ValidationError` (exit 2) when the file cannot be read or holds no PEM certificate.
    static func trust(caFile: String?) throws -> CallbackTrust {
        guard let caFile else { return CallbackTrust() }
        do {
            return try CallbackTrust(caFile: caFile)
        } catch {
            throw ValidationError("--callback-ca-file: \(error.message)")
        }
    }

    /// Attaches a delivery worker to the system when it opens, with the address policy of `--callback-allow-private`.
    static func configure(_ environment: inout Environment, trust: CallbackTrust, allowPrivate: Bool, version: String) {
        environment.attach = { core in
            core.callbackPolicy = CallbackPolicy(allowPrivate: allowPrivate)
            let worker = CallbackWorker(core: core, trust: trust, version: version, logger: Logger(label: "latchkey.callbacks"))
            core.setCallbackWorker(wake: { worker.wake() }, drain: { worker.drain(within: $0) }, stop: { worker.stop(within: $0) })
            // Deliveries left by an earlier run, or callbacks another process configured: start now. A store that cannot tell
            // (unreachable as the process starts) is asked again on the calls that follow; a worker woken for nothing would poll
            // the store every second for the process's life.
            do {
                if try core.hasCallbacks() { worker.wake() }
            } catch {
                core.askForCallbacksAgain()
            }
        }
    }
}
