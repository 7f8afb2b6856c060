import Crypto
import Foundation
import Synchronization

/// Notifications between the processes that share one PostgreSQL database, over
/// LISTEN/NOTIFY on the channel `latchkey`: each process sends what its own committed
/// transactions caused, and hears what the others' caused on a dedicated connection.
///
/// A NOTIFY payload is visible to every user of the database, and a notification may carry a
/// one-time code, so each payload is sealed with ChaChaPoly under a key derived (HKDF-SHA256)
/// from the `--key-file` key, which never enters the database. Each payload names the process
/// that sent it (a random id inside the sealed part), so a process drops its own: a subscriber
/// hears each notification once, its own requests' ones before their responses, as without
/// PostgreSQL. A payload that does not open under the key is dropped.
public final class PostgresNotifier: Sendable {
    static let channel = "latchkey"
    /// PostgreSQL refuses payloads of 8000 bytes or more.
    static let maxPayload = 7999

    private let conninfo: String
    private let sealKey: SymmetricKey
    private let origin: [UInt8]
    private let state = Mutex(State())
    static let reconnectPauseMilliseconds: Int64 = 1000

    /// The connections, and whether this process listens.
    private struct State: ~Copyable {
        var publisher: PostgresConnection?
        var listener: PostgresConnection?
        var listening = false
        /// When connecting last failed (monotonic ms): no new attempt for `reconnectPause`, so an
        /// unreachable server does not stall every request and every idle poll.
        var downSince: Int64?
    }

    public init(conninfo: String, key: [UInt8]) {
        self.conninfo = conninfo
        sealKey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: key), info: Array("latchkey notify v1".utf8),
            outputByteCount: 32)
        origin = (0..<16).map { _ in UInt8.random(in: 0...255) }
    }

    /// Starts hearing the other processes (on the first subscription).
    public func start() {
        state.withLock { state in
            state.listening = true
            _ = try? listenerConnection(&state)
        }
    }

    /// Whether this process hears the others (then its loop polls `receive`).
    public var isListening: Bool { state.withLock { $0.listening } }

    /// Sends what this process's committed transactions caused, in order, as (topic, message).
    public func publish(_ notifications: [(topic: String, message: [UInt8])]) {
        guard !notifications.isEmpty else { return }
        // A notification too large to send, or that cannot be sent (the connection is down), is lost.
        let payloads = notifications.compactMap { topic, message in
            (try? seal(topic: topic, message: message)).flatMap { $0.utf8.count <= Self.maxPayload ? $0 : nil }
        }
        guard !payloads.isEmpty else { return }
        state.withLock { state in
            // Base64 needs no quoting inside a text-array literal.
            let array = "{" + payloads.map { "\"\($0)\"" }.joined(separator: ",") + "}"
            for _ in 0..<2 {
                do {
                    let connection = try state.publisher ?? connect(applicationName: "latchkey-notify", &state)
                    state.publisher = connection
                    try connection.query(
                        "SELECT pg_notify('\(Self.channel)', p) FROM unnest($1::text[]) WITH ORDINALITY AS t(p, n) ORDER BY n",
                        [.text(array)])
                    return
                } catch {
                    state.publisher = nil
                }
            }
        }
    }

    /// What the other processes caused since the last call, in the order they committed.
    public func receive() -> [(topic: String, message: [UInt8])] {
        state.withLock { state in
            guard state.listening, let connection = try? listenerConnection(&state) else { return [] }
            do {
                return try connection.notifications().compactMap { notice in
                    notice.channel == Self.channel ? open(notice.payload) : nil
                }
            } catch {
                // Gone: the next call listens again on a new connection.
                state.listener = nil
                return []
            }
        }
    }

    private func listenerConnection(_ state: inout State) throws -> PostgresConnection {
        if let listener = state.listener, listener.isUp { return listener }
        state.listener = nil
        let connection = try connect(applicationName: "latchkey-listen", &state)
        try connection.execute("LISTEN \(Self.channel)")
        state.listener = connection
        return connection
    }

    private func connect(applicationName: String, _ state: inout State) throws -> PostgresConnection {
        if let since = state.downSince, PostgresStore.nowMilliseconds() - since < Self.reconnectPauseMilliseconds {
            throw PostgresError(sqlState: "", context: "connect (paused after a failure)")
        }
        do {
            let connection = try PostgresConnection(conninfo: conninfo, applicationName: applicationName)
            state.downSince = nil
            return connection
        } catch {
            state.downSince = PostgresStore.nowMilliseconds()
            throw error
        }
    }

    /// origin (16) · topic length (1) · topic · message, sealed, in base64.
    private func seal(topic: String, message: [UInt8]) throws -> String {
        let topicBytes = Array(topic.utf8.prefix(255))
        let plain = origin + [UInt8(topicBytes.count)] + topicBytes + message
        let box = try ChaChaPoly.seal(plain, using: sealKey)
        return box.combined.base64EncodedString()
    }

    private func open(_ payload: String) -> (topic: String, message: [UInt8])? {
        guard let data = Data(base64Encoded: payload),
            let box = try? ChaChaPoly.SealedBox(combined: data),
            let plain = try? Array(ChaChaPoly.open(box, using: sealKey)),
            plain.count >= 17, Array(plain[0..<16]) != origin
        else { return nil }
        let topicLength = Int(plain[16])
        guard plain.count >= 17 + topicLength else { return nil }
        let topic = String(decoding: plain[17..<(17 + topicLength)], as: UTF8.self)
        return (topic, Array(plain[(17 + topicLength)...]))
    }
}
