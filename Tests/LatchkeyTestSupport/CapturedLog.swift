import Logging
import Synchronization

/// The lines a logger was given (message and metadata), for checking what the code under test reports.
public final class CapturedLines: Sendable {
    public let lines = Mutex<[(message: String, metadata: [String: String])]>([])

    public init() {}

    /// A logger at trace level whose every line lands here.
    public func logger(_ label: String = "test") -> Logger {
        Logger(label: label) { _ in CapturingHandler(captured: self) }
    }

    /// Whether a line's message contains `text`.
    public func contains(_ text: String) -> Bool {
        lines.withLock { $0.contains { $0.message.contains(text) } }
    }
}

/// A log handler that keeps every line in a `CapturedLines`.
public struct CapturingHandler: LogHandler {
    let captured: CapturedLines
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .trace

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let fields = (event.metadata ?? [:]).mapValues { "\($0)" }
        captured.lines.withLock { $0.append((event.message.description, fields)) }
    }
}
