import Foundation
import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyPhoneMethods
import LatchkeyRPC
import LatchkeyStore
import Synchronization
import Testing

@testable import LatchkeyServer

/// A manual clock, a seeded generator and a fresh in-memory store.
func memoryEnvironment(seed: UInt64 = 1, start: UnixTime = 1_767_225_600) -> Environment {
    Environment(clock: ManualClock(start: start), random: SeededRandomSource(seed: seed), openStore: { try SQLiteStore.inMemory() })
}

/// Every method of the executable: the server's and the simulated phone's.
let everyMethod = MethodTable(ServerMethods.entries, adding: PhoneMethods.groups)

/// The options of a test server: the whole table, the simulated phone making a reset's passkey.
func testOptions(noAdmin: Bool = false) -> ServerOptions {
    ServerOptions(version: "test", noAdmin: noAdmin, methods: everyMethod, passkeyAuthenticator: PhoneMethods.passkeyAuthenticator)
}

/// Runs `input` through a fresh seeded server and returns everything it wrote.
func transcript(_ input: String, seed: UInt64 = 1) throws -> String {
    let server = LatchkeyServer(environment: memoryEnvironment(seed: seed), options: testOptions())
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else { throw POSIXError(.EIO) }
    let writer = FrameWriter(fd: fds[1])
    let engine = RPCEngine(handler: server, writer: writer, maxMessageBytes: 1 << 20)
    let reader = FileHandle(fileDescriptor: fds[0], closeOnDealloc: true)
    nonisolated(unsafe) var output = Data()
    let done = DispatchSemaphore(value: 0)
    Thread {
        output = reader.readDataToEndOfFile()
        done.signal()
    }.start()
    engine.receive(Array(input.utf8))
    engine.finishInput()
    writer.flush()
    close(fds[1])
    done.wait()
    return String(decoding: output, as: UTF8.self)
}

@Suite struct ServerTests {
    static let flow = """
        {"jsonrpc":"2.0","id":1,"method":"admin/createUser","params":{"email":"dan@example.com","password":"password1"}}
        {"jsonrpc":"2.0","id":2,"method":"device/create","params":{}}
        {"jsonrpc":"2.0","id":3,"method":"events/subscribe","params":{"topics":["audit","delivery"]}}
        {"jsonrpc":"2.0","id":4,"method":"recovery/generateCode"}
        {"jsonrpc":"2.0","id":5,"method":"reset/requestPasswordReset","params":{"email":"dan@example.com","redirectUrl":"app://r"}}
        {"jsonrpc":"2.0","id":6,"method":"clock/advance","params":{"seconds":60}}

        """

    /// Same seed + manual clock + same input ⇒ byte-identical output.
    @Test func sameSeedReplaysByteForByte() throws {
        let first = try transcript(Self.flow)
        #expect(first == (try transcript(Self.flow)))
        #expect(first != (try transcript(Self.flow, seed: 2)))
        #expect(first.contains("\"delivery/sent\""))
    }

    @Test func invalidParamsNameTheField() throws {
        let out = try transcript(
            """
            {"jsonrpc":"2.0","id":1,"method":"device/create","params":{"biometry":"eyes","iCloudKeychain":"yes"}}
            {"jsonrpc":"2.0","id":2,"method":"activation/start","params":{"deviceId":"x"}}
            {"jsonrpc":"2.0","id":3,"method":"activation/finish","params":{"deviceId":"x","authParameter":{"method":"pin"}}}

            """)
        let lines = out.split(separator: "\n").compactMap { try? JSONParser.parse(String($0)) }
        let paths = lines.map { line in line["error"]?["data"]?["errors"]?.arrayValue?.compactMap { $0["path"]?.stringValue } ?? [] }
        #expect(paths[0] == ["biometry", "iCloudKeychain"])
        #expect(paths[1] == ["activationCode"])
        #expect(paths[2] == ["authParameter.pin"])
    }

    @Test func noAdminClosesOperatorMethods() throws {
        let server = LatchkeyServer(environment: memoryEnvironment(start: 0), options: testOptions(noAdmin: true))
        for method in ["admin/createUser", "clock/advance", "delivery/list", "audit/list"] {
            let result = server.handle(RPCRequest(id: .int(1), method: method, params: nil)) { _ in }
            guard case .failure(let error) = result else {
                Issue.record("\(method) was open")
                continue
            }
            #expect(error.code.rawValue == 1002)
        }
        let subscribe = server.handle(RPCRequest(id: .int(1), method: "events/subscribe", params: ["topics": ["audit"]])) { _ in }
        guard case .failure(let error) = subscribe else {
            Issue.record("audit topic was open")
            return
        }
        #expect(error.reason == "forbidden")
    }

    @Test("an unknown method's name is not quoted back (error messages never quote the input)")
    func unknownMethodNotQuoted() throws {
        let out = try transcript(
            """
            {"jsonrpc":"2.0","id":1,"method":"foobar1234","params":{}}
            {"jsonrpc":"2.0","id":2,"method":"a\\nb"}

            """)
        #expect(!out.contains("foobar1234"))
        #expect(!out.contains("a\\nb"))
        #expect(out.components(separatedBy: "\"reason\":\"methodNotFound\"").count == 3)
    }

    @Test("a call that needs no store is answered while the store cannot be opened; one that needs it answers storeUnavailable")
    func storeOpenedOnFirstNeed() throws {
        struct Unreachable: Error {}
        let opens = Mutex(0)
        let environment = Environment(
            clock: ManualClock(start: 0), random: SeededRandomSource(seed: 1),
            openStore: {
                opens.withLock { $0 += 1 }
                throw StoreUnavailable(retryAfterSeconds: 2, reason: "test")
            })
        let server = LatchkeyServer(environment: environment, options: testOptions())
        let ping = server.handle(RPCRequest(id: .int(1), method: "ping", params: ["echo": 1])) { _ in }
        #expect((try? ping.get()) == ["echo": 1])
        #expect(opens.withLock { $0 } == 0)
        let create = server.handle(RPCRequest(id: .int(2), method: "device/create", params: nil)) { _ in }
        guard case .failure(let error) = create else {
            Issue.record("device/create answered without a store")
            return
        }
        #expect(error.code.rawValue == 1005)
        #expect(error.data["retryAfterSeconds"] == 2)
        _ = server.handle(RPCRequest(id: .int(3), method: "device/create", params: nil)) { _ in }
        #expect(opens.withLock { $0 } == 2, "a failed open is tried again on the next call")
    }

    @Test("calls to several methods in any order each reach their own (the last method looked up is kept)")
    func methodLookupAcrossCalls() throws {
        let server = LatchkeyServer(environment: memoryEnvironment(start: 0), options: testOptions())
        let calls: [(String, JSON?)] = [("ping", ["echo": 1]), ("ping", ["echo": 2]), ("clock/now", nil), ("nope", nil), ("ping", nil)]
        let results = calls.map { method, params in server.handle(RPCRequest(id: .int(1), method: method, params: params)) { _ in } }
        #expect((try? results[0].get()) == ["echo": 1])
        #expect((try? results[1].get()) == ["echo": 2])
        #expect((try? results[2].get())?["now"] != nil)
        #expect(results[3].map { _ in "" }.mapError { ReasonOnly($0.reason) } == .failure(ReasonOnly("methodNotFound")))
        #expect((try? results[4].get()) == ["echo": nil])
    }

    @Test("a server without the simulated phone: its methods are not there, and a reset's passkey from a phone is invalidParams")
    func serverWithoutThePhone() {
        let server = LatchkeyServer(environment: memoryEnvironment(start: 0), options: ServerOptions(version: "test"))
        let create = server.handle(RPCRequest(id: .int(1), method: "device/create", params: nil)) { _ in }
        #expect(create.map { _ in "" }.mapError { ReasonOnly($0.reason) } == .failure(ReasonOnly("methodNotFound")))
        let params: JSON = ["email": "a@example.com", "verificationCode": "123456", "passkey": ["deviceId": "phone"]]
        guard case .failure(let error) = server.handle(RPCRequest(id: .int(2), method: "reset/resetPasskeys", params: params), emit: { _ in })
        else {
            Issue.record("reset/resetPasskeys made a passkey without a phone")
            return
        }
        #expect(error.reason == "invalidParams")
        #expect(error.data["errors"]?.arrayValue?.first?["path"] == "passkey.deviceId")
    }

    @Test("an attachment is made on the system the first time its type is asked for, then kept for the process")
    func attachmentsByType() throws {
        final class Kept: Sendable {}
        final class Other: Sendable {}
        let server = LatchkeyServer(environment: memoryEnvironment(start: 0), options: ServerOptions(version: "test"))
        var made = 0
        let first = try server.attachment { _ in
            made += 1
            return Kept()
        }
        let again = try server.attachment { _ in
            made += 1
            return Kept()
        }
        #expect(first === again)
        #expect(made == 1)
        _ = try server.attachment { _ in Other() }
        #expect(try server.attachment { _ in Kept() } === first, "another type has its own slot")
    }

    @Test("the event queue says whether anything was appended since it was last emptied")
    func eventQueueFlag() {
        let queue = EventQueue()
        #expect(!queue.mayHoldEvents)
        queue.append(.accountRecoveryCallback(verificationCode: "1", email: nil, phoneNumber: nil, link: "app://r"))
        #expect(queue.mayHoldEvents)
        #expect(queue.takeAll().count == 1)
        #expect(!queue.mayHoldEvents)
        #expect(queue.takeAll().isEmpty)
    }
}

/// An error reason, for comparing failures by reason alone.
private struct ReasonOnly: Error, Equatable {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}
