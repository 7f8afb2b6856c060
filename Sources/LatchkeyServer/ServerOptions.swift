import LatchkeyContract
import LatchkeyCore

/// How the process was started, as far as the method table cares.
public struct ServerOptions: Sendable {
    public var version: String
    public var noAdmin: Bool
    public var deliverCommand: String?
    /// `--fail-method`: these methods answer `internalError`, their transactions rolled back (a method that changes the process
    /// fails before it runs).
    public var failMethods: Set<String>
    /// What `server/info` reports as the store.
    public var storeKind: StoreKind
    /// Debug builds: check every answer against its method's declaration (see `ContractCheck`).
    public var checkContract: Bool
    /// Where the contract check also appends what it finds.
    public var contractLog: String?
    /// The methods served: the server's own (`MethodTable.serverOnly`) or, composed by the executable, those and the simulated phone's.
    public var methods: MethodTable
    /// What makes `reset/resetPasskeys`' new passkey on a simulated phone (nil: `{deviceId}` answers invalidParams).
    public var passkeyAuthenticator: (any ResetPasskeyAuthenticator)?

    public init(
        version: String, noAdmin: Bool = false, deliverCommand: String? = nil, failMethods: Set<String> = [],
        storeKind: StoreKind = .memory, checkContract: Bool = false, contractLog: String? = nil,
        methods: MethodTable = .serverOnly, passkeyAuthenticator: (any ResetPasskeyAuthenticator)? = nil
    ) {
        self.version = version
        self.noAdmin = noAdmin
        self.deliverCommand = deliverCommand
        self.failMethods = failMethods
        self.storeKind = storeKind
        self.checkContract = checkContract
        self.contractLog = contractLog
        self.methods = methods
        self.passkeyAuthenticator = passkeyAuthenticator
    }
}

/// What the system runs on besides its store: kept from the start, so methods that need no
/// store (`ping`, `clock/now`) answer before, or without, one.
public struct Environment: Sendable {
    public var clock: Clock
    public var random: RandomSource
    public var openStore: @Sendable () throws -> Store
    /// Notifications to and from other processes on the same store (nil: this process alone).
    public var relay: EventRelay?
    /// How the server signs with its own keys (RFC 6979 in seeded runs, so transcripts replay).
    public var signer: ECDSASigning
    /// Runs once on the system when it opens: what the executable attaches to it (the callback delivery worker).
    public var attach: (@Sendable (Latchkey) -> Void)?

    public init(
        clock: Clock, random: RandomSource, openStore: @escaping @Sendable () throws -> Store, relay: EventRelay? = nil,
        signer: ECDSASigning = RandomizedECDSA(), attach: (@Sendable (Latchkey) -> Void)? = nil
    ) {
        self.clock = clock
        self.random = random
        self.openStore = openStore
        self.relay = relay
        self.signer = signer
        self.attach = attach
    }
}
