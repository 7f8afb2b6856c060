import LatchkeyContract
import Foundation
import LatchkeyCore
import LatchkeyJSON
import Logging

/// Runs `--deliver-command CMD` once per outgoing message, with the message as JSON on stdin —
/// how a deployment plugs in real email or SMS. A failure is logged (never the message's code)
/// and reported to the caller, never fatal. A command that has not exited after `timeLimit` is
/// stopped and counts as failed: one that hangs must not stop the process serving.
final class DeliveryCommand {
    let command: String
    let logger: Logger
    /// How long one message's command may run.
    static let timeLimit = 10

    init(command: String, logger: Logger) {
        self.command = command
        self.logger = logger
    }

    /// Runs the command for `message`; false when it could not run or exited non-zero.
    func run(_ message: OutboundMessage) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.standardError
        process.standardError = FileHandle.standardError
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        do {
            try process.run()
        } catch {
            logger.error("the delivery command could not start", metadata: ["messageId": "\(message.id)"])
            return false
        }
        var payload = JSONSerializer.serialize(message.wireJSON())
        payload.append(UInt8(ascii: "\n"))
        do {
            try input.fileHandleForWriting.write(contentsOf: Data(payload))
        } catch {
            logger.warning("the delivery command did not read its message", metadata: ["messageId": "\(message.id)"])
        }
        try? input.fileHandleForWriting.close()
        if exited.wait(timeout: .now() + .seconds(Self.timeLimit)) == .timedOut {
            process.terminate()
            if exited.wait(timeout: .now() + .seconds(1)) == .timedOut {
                kill(process.processIdentifier, SIGKILL)
                exited.wait()
            }
            logger.error("the delivery command ran longer than \(Self.timeLimit) s and was stopped", metadata: ["messageId": "\(message.id)"])
            return false
        }
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            logger.error("the delivery command failed", metadata: [
                "messageId": "\(message.id)", "status": "\(process.terminationStatus)",
            ])
            return false
        }
        return true
    }
}
