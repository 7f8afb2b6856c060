import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC

/// The server half alone, for a device that lives outside the process: public keys and
/// signatures on the wire, each call one operation of the server half (`ServerSession`), the
/// very operations the simulated devices run on.
enum ServerMethods {
    // Concrete types here, so each entry's decoding and encoding is specialised.
    static let all: [MethodEntry] = [
        .init(ActivationPrepare.self), .init(ActivationCommit.self), .init(AuthenticationChallenge.self),
        .init(AuthenticationCancel.self), .init(AuthenticationVerify.self), .init(AuthMethodAdd.self), .init(AuthMethodRemove.self),
        .init(RegistrationStatusMethod.self), .init(RegistrationRemove.self), .init(RecoverySet.self), .init(RecoveryDelete.self),
        .init(RecoveryChallengeMethod.self), .init(RecoveryCommit.self), .init(OnboardingStart.self), .init(OnboardingStatusMethod.self),
        .init(OnboardingResendOtp.self), .init(OnboardingCancel.self), .init(OnboardingActivate.self),
    ]

    static let challengeErrors: [ErrorReason] = [.noSessionInProgress, .sessionExpired] + ActivationMethods.stateErrors
    static let signedErrors: [ErrorReason] = challengeErrors + [.authMethodNotAllowed, .authenticationFailed]

    /// Runs one operation of the server half in its own transaction.
    private static func session<T>(_ context: CallContext, _ body: (ServerSession) throws -> T) throws -> T {
        try context.core.session(body)
    }

    // MARK: activation

    enum ActivationPrepare: RPCMethod {
        static let declaration = MethodDeclaration(
            "server/activation/prepare", "Checks an activation code and opens an activation for keys made outside the process.",
            description: """
            Checks the activation code (5 wrong codes an hour per installationId) and binds it to a new activation for 300 s; \
            answers the challenge the keys' proofs sign and what the keys are to be made for. A second prepare of the same code \
            from the same installation replaces the first; server/activation/commit completes it.
            """,
            errors: [.notFound, .rateLimited, .activationCodeInvalid, .activationCodeExpired])
        struct Params: WireReadable {
            var activationCode = ""
            var installationId = ""
            var applicationId: String?
            static let fields: [WireField<Self>] = [
                .required("activationCode", \.activationCode, .text), .installationId(\.installationId), .applicationId(\.applicationId),
            ]
        }
        static let result = Codec.preparedActivation
        static func handle(_ params: Params, _ context: CallContext) throws -> KeyRequest {
            try session(context) {
                try $0.prepareActivation(code: params.activationCode, applicationId: params.applicationId,
                                         caller: .installation(params.installationId))
            }
        }
    }

    enum ActivationCommit: RPCMethod {
        static let declaration = MethodDeclaration(
            "server/activation/commit", "Registers the device's public keys, each with its proof, and creates the registration.",
            description: """
            Completes an activation opened by server/activation/prepare or server/onboarding/activate: checks each key's proof of \
            possession (operation activate, the activationId as subject), consumes the code and creates the registration. \
            A two-factor key needs a method enabled for the application.
            """,
            errors: [.noSessionInProgress, .sessionExpired, .activationCodeInvalid, .activationCodeExpired, .authMethodNotAllowed,
                     .proofInvalid, .onboardingFailed])
        struct Params: WireReadable {
            var activationId = ""
            var keys = KeySetParam()
            var activationName: String?
            var tokenPurpose = TokenPurpose.none
            static let fields: [WireField<Self>] = [
                .required("activationId", \.activationId, .identifier), .required("keys", \.keys, .object(KeySetParam.self)),
                .optional("activationName", \.activationName, .text, "names the registration; null when left out"),
                .tokenPurpose(\.tokenPurpose),
            ]
        }
        static func handle(_ params: Params, _ context: CallContext) throws -> CommittedActivation {
            let keys = try params.keys.domain(at: "keys")
            return CommittedActivation(outcome: try session(context) {
                try $0.commitActivation(activationId: params.activationId, keys: keys, activationName: params.activationName,
                                        tokenPurpose: params.tokenPurpose, caller: nil)
            })
        }
    }

    // MARK: authentication

    /// `{registrationId, challengeId}`.
    struct ChallengeParams: WireReadable {
        var registrationId = ""
        var challengeId = ""
        static let fields: [WireField<Self>] = [.registrationId(\.registrationId), .required("challengeId", \.challengeId, .identifier)]
    }

    /// `{registrationId, challengeId, signatures}`.
    struct SignedParams: WireReadable {
        var challenge = ChallengeParams()
        var signatures = SignaturesParam()
        static let fields: [WireField<Self>] = ChallengeParams.fields.map { $0.lifted(\.challenge) } + [
            .required("signatures", \.signatures, .object(SignaturesParam.self)),
        ]
        var registrationId: String { challenge.registrationId }
        var challengeId: String { challenge.challengeId }
        func factorSignatures() throws -> FactorSignatures { try signatures.domain(at: "signatures") }
    }

    enum AuthenticationChallenge: RPCMethod {
        static let declaration = MethodDeclaration(
            "server/authentication/challenge", "Issues a challenge for the registration and picks up a pending pushed authentication.",
            description: """
            Checks the registration's state as authentication/start does and issues a single-use challenge valid 300 s, with the \
            attempt counters and any pushed context (its contextHash goes into every signature over the challenge). A \
            removeRegistration challenge is issued in any state but removed, picks up nothing and serves only \
            server/registration/remove.
            """,
            errors: [.notFound] + ActivationMethods.stateErrors)
        struct Params: WireReadable {
            var registrationId = ""
            var purpose = ChallengePurpose.authenticate
            static let fields: [WireField<Self>] = [
                .registrationId(\.registrationId),
                .defaulted("purpose", \.purpose, .challengePurpose, default: .authenticate),
            ]
        }
        static func handle(_ params: Params, _ context: CallContext) throws -> Challenge {
            try session(context) { try $0.challenge(registrationId: params.registrationId, purpose: params.purpose, caller: nil) }
        }
    }

    enum AuthenticationCancel: RPCMethod {
        static let declaration = MethodDeclaration(
            "server/authentication/cancel", "Uses a challenge up without an answer; a push it picked up becomes rejected.",
            description: """
            As session/cancel for a device outside the process: the challenge can no longer be verified, and a pushed \
            authentication it picked up is rejected.
            """,
            errors: [.noSessionInProgress, .sessionExpired])
        static let result = Codec.member("cancelled", .bool)
        static func handle(_ params: ChallengeParams, _ context: CallContext) throws -> Bool {
            try session(context) {
                try $0.cancelChallenge(registrationId: params.registrationId, challengeId: params.challengeId, caller: nil)
            }
        }
    }

    enum AuthenticationVerify: RPCMethod {
        static let declaration = MethodDeclaration(
            "server/authentication/verify", "Verifies the device's signature, then the second factor's, over the challenge.",
            description: """
            Checks the device signature first (a failing one answers registrationRemoved and counts nothing), then the second \
            factor, which counts as on the simulated device (authenticationFailed, then registrationLocked). Uses the challenge \
            up. A two-factor success approves a picked-up push and may yield a token.
            """,
            errors: signedErrors)
        struct Params: WireReadable {
            var signed = SignedParams()
            var tokenPurpose = TokenPurpose.none
            static let fields: [WireField<Self>] = SignedParams.fields.map { $0.lifted(\.signed) } + [.tokenPurpose(\.tokenPurpose)]
        }
        static func handle(_ params: Params, _ context: CallContext) throws -> Verification {
            let signatures = try params.signed.factorSignatures()
            return try session(context) {
                try $0.verify(registrationId: params.signed.registrationId, challengeId: params.signed.challengeId, signatures: signatures,
                              tokenPurpose: params.tokenPurpose, caller: nil)
            }
        }
    }

    enum AuthMethodAdd: RPCMethod {
        static let declaration = MethodDeclaration(
            "server/authMethod/add", "Adds or replaces a two-factor method's key, proved by an allowed second factor.",
            description: """
            The user's signatures (operation addAuthMethod) must include a second factor whose addOrUpdateAllowedBy contains the \
            new method; the new key comes with its proof. Answers the activated methods.
            """,
            errors: signedErrors + [.proofInvalid])
        struct Params: WireReadable {
            var signed = SignedParams()
            var method = AuthMethod.pin
            var key = KeyParam()
            static let fields: [WireField<Self>] = SignedParams.fields.map { $0.lifted(\.signed) } + [
                .required("method", \.method, .authMethod), .required("key", \.key, .object(KeyParam.self)),
            ]
        }
        static let result = Codec<[AuthMethod]>.activatedAuthMethods
        static func handle(_ params: Params, _ context: CallContext) throws -> [AuthMethod] {
            let signatures = try params.signed.factorSignatures()
            let key = try params.key.domain(at: "key")
            return try session(context) {
                try $0.addAuthMethod(registrationId: params.signed.registrationId, challengeId: params.signed.challengeId,
                                     signatures: signatures, method: params.method, key: key, caller: nil)
            }
        }
    }

    enum AuthMethodRemove: RPCMethod {
        static let declaration = MethodDeclaration(
            "server/authMethod/remove", "Removes a two-factor method; the device's signature suffices.",
            description: """
            Signed with operation removeAuthMethod over a challenge from server/authentication/challenge; device alone \
            suffices (a second factor, if given, is checked and counts). device itself cannot be removed \
            (cannotDeactivateDevice). Answers the activated methods.
            """,
            errors: signedErrors + [.cannotDeactivateDevice])
        struct Params: WireReadable {
            var signed = SignedParams()
            var method = AuthMethod.pin
            static let fields: [WireField<Self>] = SignedParams.fields.map { $0.lifted(\.signed) } + [.required("method", \.method, .authMethod)]
        }
        static let result = Codec<[AuthMethod]>.activatedAuthMethods
        static func handle(_ params: Params, _ context: CallContext) throws -> [AuthMethod] {
            let signatures = try params.signed.factorSignatures()
            return try session(context) {
                try $0.removeAuthMethod(registrationId: params.signed.registrationId, challengeId: params.signed.challengeId,
                                        signatures: signatures, method: params.method, caller: nil)
            }
        }
    }

    // MARK: registration

    enum RegistrationStatusMethod: RPCMethod {
        static let declaration = MethodDeclaration(
            "server/registration/status", "What a device shows without authenticating: state, methods, attempts, recovery.",
            description: """
            Reads the registration's state, activated methods, PIN attempts left and recovery methods, without a \
            challenge or a signature and without counting anything.
            """,
            errors: [.notFound])
        static func handle(_ params: RegistrationParams, _ context: CallContext) throws -> RegistrationStatus {
            try session(context) { try $0.registrationStatus(registrationId: params.registrationId) }
        }
    }

    enum RegistrationRemove: RPCMethod {
        static let declaration = MethodDeclaration(
            "server/registration/remove", "Removes the registration on the server, signed by the device (a locked one too).",
            description: """
            As registration/deactivate with onlyLocally false: signed with operation removeRegistration, device alone \
            suffices. A removeRegistration challenge is issued in any state but removed, so a locked phone can still \
            remove itself.
            """,
            errors: signedErrors)
        static func handle(_ params: SignedParams, _ context: CallContext) throws -> EmptyResult {
            let signatures = try params.factorSignatures()
            try session(context) {
                try $0.removeRegistration(registrationId: params.registrationId, challengeId: params.challengeId, signatures: signatures,
                                          caller: nil)
            }
            return EmptyResult()
        }
    }

    // MARK: recovery

    /// `{registrationId, token}`.
    struct TokenParams: WireReadable {
        var registrationId = ""
        var token = ""
        static let fields: [WireField<Self>] = [.registrationId(\.registrationId), .required("token", \.token, .text)]
    }

    enum RecoverySet: RPCMethod {
        static let declaration = MethodDeclaration(
            "server/recovery/set", "Sets or replaces the recovery key, authorised by an addOrUpdateRecovery token.",
            description: """
            The key's proof signs the token as its challenge (operation setRecovery, role recovery); a failing proof spends \
            nothing. The device keeps the private recovery key masked under the user's recovery code, in its backup.
            """,
            errors: [.notFound, .proofInvalid] + ActivationMethods.stateErrors + RecoveryMethods.tokenErrors)
        struct Params: WireReadable {
            var token = TokenParams()
            var key = KeyParam()
            var tokenPurpose = TokenPurpose.none
            static let fields: [WireField<Self>] = TokenParams.fields.map { $0.lifted(\.token) } + [
                .required("key", \.key, .object(KeyParam.self)), .tokenPurpose(\.tokenPurpose),
            ]
        }
        static func handle(_ params: Params, _ context: CallContext) throws -> RecoveryMethodsOutcome {
            let key = try params.key.domain(at: "key")
            return try session(context) {
                try $0.setRecovery(registrationId: params.token.registrationId, token: params.token.token, key: key,
                                   tokenPurpose: params.tokenPurpose, caller: nil)
            }
        }
    }

    enum RecoveryDelete: RPCMethod {
        static let declaration = MethodDeclaration(
            "server/recovery/delete", "Deletes the recovery key, authorised by a deleteRecovery token.",
            description: """
            Uses a deleteRecovery token (from a two-factor verify) and removes the recovery key; with no recovery key \
            set it answers recoveryNotActivated and the token is not spent.
            """,
            errors: [.notFound, .recoveryNotActivated] + ActivationMethods.stateErrors + RecoveryMethods.tokenErrors)
        struct Params: WireReadable {
            var token = TokenParams()
            var tokenPurpose = TokenPurpose.none
            static let fields: [WireField<Self>] = TokenParams.fields.map { $0.lifted(\.token) } + [.tokenPurpose(\.tokenPurpose)]
        }
        static func handle(_ params: Params, _ context: CallContext) throws -> RecoveryMethodsOutcome {
            try session(context) {
                try $0.deleteRecovery(registrationId: params.token.registrationId, token: params.token.token,
                                      tokenPurpose: params.tokenPurpose, caller: nil)
            }
        }
    }

    enum RecoveryChallengeMethod: RPCMethod {
        static let declaration = MethodDeclaration(
            "server/recovery/challenge", "Opens a recovery of the registration onto new keys: the challenge the recovery key signs.",
            description: """
            For a new phone restored from backup: checks the registration may be recovered (recoveryNotActivated, \
            recoveryLocked as recovery/start) and answers a challenge, valid 300 s, that the recovery key and the new \
            keys sign for server/recovery/commit.
            """,
            errors: [.recoveryNotActivated, .recoveryLocked] + ActivationMethods.stateErrors)
        struct Params: WireReadable {
            var registrationId = ""
            var installationId = ""
            static let fields: [WireField<Self>] = [.registrationId(\.registrationId), .installationId(\.installationId)]
        }
        static let result = Codec.recoveryChallenge
        static func handle(_ params: Params, _ context: CallContext) throws -> KeyRequest {
            try session(context) { try $0.recoveryChallenge(registrationId: params.registrationId, caller: .installation(params.installationId)) }
        }
    }

    enum RecoveryCommit: RPCMethod {
        static let declaration = MethodDeclaration(
            "server/recovery/commit", "Recovers the registration onto new keys with the recovery key's signature.",
            description: """
            keys are device and exactly one two-factor method, each with its proof (operation recover). A failing \
            recoverySignature counts against the 5 recovery attempts (recoveryCodeInvalid, then recoveryLocked); success \
            consumes the recovery key and re-keys the registration, so the old device's keys stop working.
            """,
            errors: challengeErrors + [.recoveryNotActivated, .recoveryLocked, .recoveryCodeInvalid, .authMethodNotAllowed, .proofInvalid])
        struct Params: WireReadable {
            var challenge = ChallengeParams()
            var recoverySignature: Signature?
            var keys = KeySetParam()
            var tokenPurpose = TokenPurpose.none
            static let fields: [WireField<Self>] = ChallengeParams.fields.map { $0.lifted(\.challenge) } + [
                .required("recoverySignature", \.recoverySignature, Codec.signature.stored, "role recovery, operation recover"),
                .required("keys", \.keys, .object(KeySetParam.self), "device and exactly one two-factor method"),
                .tokenPurpose(\.tokenPurpose),
            ]
            static let rules: [WireRule<Self>] = [KeySetParam.exactlyOneFactor.at(\.keys).at(path: "keys")]
        }
        static func handle(_ params: Params, _ context: CallContext) throws -> ActivationOutcome {
            let keys = try params.keys.domain(at: "keys")
            let signature = try readValue(params.recoverySignature, at: "recoverySignature")
            return try session(context) {
                try $0.recover(registrationId: params.challenge.registrationId, challengeId: params.challenge.challengeId,
                               recoverySignature: signature, keys: keys, tokenPurpose: params.tokenPurpose, caller: nil)
            }
        }
    }

    // MARK: onboarding

    enum OnboardingStart: RPCMethod {
        static let declaration = MethodDeclaration(
            "server/onboarding/start", "Starts onboarding from identity for an installation; the same answer whether or not it matches.",
            description: """
            Starts an identity-based onboarding process (email, phoneNumber, loginName, or userId with birthDate); an \
            OTP goes to the address on file when the credentials match a user. One process at a time per installation \
            (onboardingInProgress).
            """,
            errors: [.notFound, .onboardingCannotActivate, .onboardingInProgress])
        struct Params: WireReadable {
            var credentials = OnboardingCredentials()
            var installationId = ""
            var applicationId: String?
            static let fields: [WireField<Self>] = [
                .required("credentials", \.credentials, OnboardingMethods.credentials), .installationId(\.installationId),
                .applicationId(\.applicationId),
            ]
        }
        static let result = Codec.member("processId", .text)
        static func handle(_ params: Params, _ context: CallContext) throws -> String {
            try session(context) {
                try $0.startOnboarding(credentials: params.credentials, applicationId: params.applicationId,
                                       caller: .installation(params.installationId))
            }
        }
    }

    enum OnboardingStatusMethod: ProcessCall {
        static let declaration = MethodDeclaration(
            "server/onboarding/status", "Where an onboarding process stands.",
            description: """
            The process's status as onboarding/status answers it (activationInProgress, verificationInProgress, \
            failed, finished); unknown ids answer onboardingNotRunning.
            """,
            errors: [.onboardingNotRunning])
        static let result = Codec.member("status", .enumeration(OnboardingStatus.self))
        static func call(_ session: ServerSession, processId: String) throws -> OnboardingStatus {
            try session.onboardingStatus(processId: processId)
        }
    }

    enum OnboardingResendOtp: ProcessCall {
        static let declaration = MethodDeclaration(
            "server/onboarding/resendOtp", "Sends a new OTP for the process; the previous one dies.",
            description: """
            Sends a fresh OTP to the same address; at most one every 30 s (resendLimited with retryAfterSeconds). The \
            previous OTP stops working; wrong tries keep counting.
            """,
            errors: [.onboardingNotRunning, .onboardingFailed, .resendLimited])
        typealias Result = EmptyResult
        static func call(_ session: ServerSession, processId: String) throws -> EmptyResult {
            try session.resendOnboardingOtp(processId: processId)
            return EmptyResult()
        }
    }

    enum OnboardingCancel: ProcessCall {
        static let declaration = MethodDeclaration(
            "server/onboarding/cancel", "Ends a running process, removing the pending registration it made.",
            description: """
            Ends a process that is activationInProgress or verificationInProgress (removing the pending registration \
            it made); a failed or expired one answers onboardingFailed, an unknown or finished one \
            onboardingNotRunning.
            """,
            errors: [.onboardingNotRunning, .onboardingFailed])
        typealias Result = EmptyResult
        static func call(_ session: ServerSession, processId: String) throws -> EmptyResult {
            try session.cancelOnboarding(processId: processId, caller: nil)
            return EmptyResult()
        }
    }

    enum OnboardingActivate: RPCMethod {
        static let declaration = MethodDeclaration(
            "server/onboarding/activate", "Checks the OTP and opens the activation; server/activation/commit completes it.",
            description: """
            Checks the OTP (wrong tries counted; otpExpired after its lifetime) and opens an activation as \
            server/activation/prepare does; the registration made by server/activation/commit waits in \
            verificationPending until admin/completeVerification.
            """,
            errors: [.onboardingNotRunning, .onboardingFailed, .onboardingCannotActivate, .otpInvalid, .otpExpired])
        struct Params: WireReadable {
            var process = ProcessParams()
            var otp = ""
            static let fields: [WireField<Self>] = ProcessParams.fields.map { $0.lifted(\.process) } + [.required("otp", \.otp, .text)]
        }
        static let result = Codec.preparedActivation
        static func handle(_ params: Params, _ context: CallContext) throws -> KeyRequest {
            try session(context) { try $0.activateOnboarding(processId: params.process.processId, otp: params.otp, caller: nil) }
        }
    }
}

extension WireField {
    /// The app installation that asks (limits and audit events are kept per installation).
    static func installationId(_ keyPath: WritableKeyPath<Root, String> & Sendable) -> WireField {
        .required("installationId", keyPath, .installationId, "names the app installation that asks; 1–128 printable ASCII characters")
    }
}

extension WireRule {
    /// The rule with the problems' paths under `member`.
    func at(path member: String) -> WireRule {
        let check = self.check
        return WireRule.custom { root, path, problems in check(root, path.isEmpty ? member : "\(path).\(member)", &problems) }
    }
}
