import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

/// One method of the contract, declared once: its name and descriptions, the shape of its params and of its result, the errors it may answer, and its
/// handler.
///
/// The OpenRPC document, the error registry, the clients' tables and the MCP tool list all derive from
/// these.
public protocol RPCMethod: SendableMetatype {
    associatedtype Params: WireParams
    associatedtype Result

    /// The method's name, descriptions, errors and access.
    static var declaration: MethodDeclaration { get }
    /// How the result is written (and described).
    static var result: Codec<Result> { get }

    /// Carries the call out. Throws `DomainError` for the contract's answers.
    static func handle(_ params: Params, _ context: CallContext) throws -> Result
}

extension RPCMethod where Result: WireObject {
    public static var result: Codec<Result> { .object(Result.self) }
}

extension RPCMethod where Result: WireWritableParams {
    /// A params shape answered back (`events/subscribe` answers the topics subscribed).
    public static var result: Codec<Result> { .object(Result.self) }
}

/// What a method is, besides its types and its handler.
public struct MethodDeclaration: Sendable {
    /// The contract's name (`activation/start`).
    public let name: String
    /// One line: what the method does.
    public let summary: String
    /// A few sentences for readers and agents: when to call it and what it changes.
    public let description: String
    /// The reasons it may answer with besides those every method may give (`invalidParams`,
    /// `internalError`, and `forbidden` / `storeUnavailable` where `access` says so).
    public let errors: [ErrorReason]
    public let access: MethodAccess

    public init(
        _ name: String, _ summary: String, description: String? = nil, errors: [ErrorReason] = [],
        access: MethodAccess = .store
    ) {
        self.name = name
        self.summary = summary
        self.description = description ?? summary
        self.errors = errors
        self.access = access
    }
}

/// Who may call a method and what it needs.
public struct MethodAccess: Sendable, Equatable {
    /// Closed by `--no-admin` (answers `forbidden`).
    public var adminOnly: Bool
    /// Reads or writes the store (may answer `storeUnavailable`; opens the store on first use).
    public var needsStore: Bool
    /// Changes what the process itself holds (a manual clock's time, the subscribed topics, what a tapped link fires), which no
    /// store rollback undoes: under `--fail-method` it fails before it runs, so a failed call changes nothing.
    public var changesProcess = false

    /// An ordinary method on the store.
    public static let store = MethodAccess(adminOnly: false, needsStore: true)
    /// An operator's method on the store.
    public static let admin = MethodAccess(adminOnly: true, needsStore: true)
    /// A method that needs no store (it answers while the store is unreachable).
    public static let local = MethodAccess(adminOnly: false, needsStore: false)
    /// An operator's method that needs no store.
    public static let adminLocal = MethodAccess(adminOnly: true, needsStore: false)
    /// A method that needs no store and changes the process's own state.
    public static let localProcess = MethodAccess(adminOnly: false, needsStore: false, changesProcess: true)
    /// An operator's method on the store that changes the process's own state too.
    public static let adminProcess = MethodAccess(adminOnly: true, needsStore: true, changesProcess: true)
}

/// A method with its types erased, as the dispatch table and the document generators hold it.
///
/// A class: a call passes one reference around, not ten members.
public final class MethodEntry: Sendable {
    public let name: String
    @usableFromInline let summary: String
    @usableFromInline let description: String
    @usableFromInline let errors: [ErrorReason]
    @usableFromInline let access: MethodAccess
    /// The params object's members (built on first use).
    @usableFromInline let params: @Sendable () -> [WireMemberInfo]
    /// The result's schema (built on first use).
    @usableFromInline let result: @Sendable () -> Schema
    /// The Swift type that declares it, module-qualified (`LatchkeyServer.Ping`).
    @usableFromInline let type: @Sendable () -> String
    /// Reads the params (throwing `invalidParams`), prepares the context, then runs the handler.
    @usableFromInline let invoke: @Sendable (JSONObject, CallContext) throws -> JSON

    // Inlinable: each entry is made where its method's type is known (the server's table here, the phone's in its target), so its decoding
    // and encoding are specialised there, with no generic metadata looked up per call.
    @inlinable
    public init<M: RPCMethod>(_ method: M.Type) {
        let declaration = M.declaration
        name = declaration.name
        summary = declaration.summary
        description = declaration.description
        errors = declaration.errors
        access = declaration.access
        params = { M.Params.members }
        result = { M.result.schema }
        type = { String(reflecting: M.self) }
        invoke = { object, context in
            var problems: [ParamProblem] = []
            guard let params = M.Params.decode(object, at: "", into: &problems) else { throw RPCError.invalidParams(problems) }
            try context.prepare()
            return M.result.write(try M.handle(params, context))
        }
    }

    /// Every reason this method may answer with, in the order the document lists them.
    var declaredReasons: [ErrorReason] {
        var reasons = errors
        if access.adminOnly { reasons.append(.forbidden) }
        if access.needsStore { reasons.append(.storeUnavailable) }
        var seen: Set<ErrorReason> = []
        return reasons.filter { seen.insert($0).inserted }
    }
}
