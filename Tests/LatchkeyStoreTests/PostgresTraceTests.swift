import Foundation
import Logging
import Synchronization
import Testing

@testable import LatchkeyCore
@testable import LatchkeyPostgres
@testable import LatchkeySimulator

/// The lines a logger was given (message and metadata), for checking what the store reports.
private final class CapturedLines: Sendable {
    let lines = Mutex<[(message: String, metadata: [String: String])]>([])
}

private struct CapturingHandler: LogHandler {
    let captured: CapturedLines
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let fields = (event.metadata ?? [:]).mapValues { "\($0)" }
        captured.lines.withLock { $0.append((event.message.description, fields)) }
    }
}

/// At trace level the PostgreSQL store reports each transaction's cost, counted as it happened,
/// and nothing read from a row.
@Suite(.enabled(if: StoreUnderTest.postgresURI != nil, "LATCHKEY_TEST_POSTGRES is not set (make test starts a cluster and sets it)"))
struct PostgresTraceTests {
    /// A store logging at trace level into the lines returned, and a tag for this test's rows.
    private func tracedStore() throws -> (PostgresStore, CapturedLines, String) {
        let uri = try #require(StoreUnderTest.postgresURI)
        let captured = CapturedLines()
        let logger = Logger(label: "test") { _ in CapturingHandler(captured: captured) }
        let store = try PostgresStore(conninfo: uri, key: Array(repeating: 7, count: 32), logger: logger)
        return (store, captured, String(UUID().uuidString.prefix(8).lowercased()))
    }

    @Test func aTransactionReportsItsRoundTripsStatementsAndTimeInTheStore() throws {
        let (store, captured, tag) = try tracedStore()
        let secret = "secret-\(tag)"
        captured.lines.withLock { $0.removeAll() }
        try store.write { tx in
            // One round trip: BEGIN, the transaction id, this read; then COMMIT with the write.
            _ = try tx.fetch(DeviceItemRecord.self, id: "\(tag)-none")
            try tx.save(DeviceItemRecord(id: "\(tag)-i", deviceId: "\(tag)-d", name: secret, value: [1], thisDeviceOnly: true))
        }
        _ = try store.read { tx in try tx.fetch(DeviceItemRecord.self, id: "\(tag)-i") }
        let lines = captured.lines.withLock { $0 }
        #expect(lines.count == 2)
        let write = try #require(lines.first)
        #expect(write.message == "transaction")
        #expect(write.metadata["kind"] == "write")
        #expect(write.metadata["roundTrips"] == "2")
        #expect(write.metadata["statements"] == "5")
        #expect(write.metadata["attempts"] == "1")
        let inStore = Int(write.metadata["storeMicroseconds"] ?? "") ?? 0
        let wait = Int(write.metadata["waitMicroseconds"] ?? "") ?? 0
        #expect(inStore > 0 && wait > 0 && wait <= inStore)
        #expect(lines.last?.metadata["kind"] == "read")
        #expect(lines.last?.metadata["statements"] == "3")
        for line in lines { #expect(!line.metadata.values.contains { $0.contains(secret) }) }
    }

    /// A read announced again (foreseen by the caller, then announced by the body itself) is
    /// asked once; one already answered is not asked again; a referenced read likewise.
    @Test func aReadAnnouncedAgainIsAskedOnce() throws {
        let (store, captured, tag) = try tracedStore()
        let reads: [StoreRead] = [
            .row(DeviceItemRecord.self, id: "\(tag)-a"),
            .row(ApplicationRecord.self, referencedBy: RegistrationRecord.Columns.applicationId, of: RegistrationRecord.self, id: "\(tag)-r"),
        ]
        captured.lines.withLock { $0.removeAll() }
        try store.write { tx in
            tx.readAhead(reads)
            tx.readAhead(reads)
            // BEGIN, the transaction id, the two reads announced, this one.
            _ = try tx.fetch(DeviceItemRecord.self, id: "\(tag)-b")
            tx.readAhead(reads)
            _ = try tx.fetch(DeviceItemRecord.self, id: "\(tag)-a")
            // This read alone, then COMMIT.
            _ = try tx.fetch(DeviceItemRecord.self, id: "\(tag)-c")
        }
        let write = try #require(captured.lines.withLock { $0.first })
        #expect(write.metadata["roundTrips"] == "3")
        #expect(write.metadata["statements"] == "7")
    }
}
