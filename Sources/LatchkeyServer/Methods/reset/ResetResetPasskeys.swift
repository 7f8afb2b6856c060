import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

/// `reset/resetPasskeys`: every passkey removed, the new one (made by the simulated phone or an outside
/// authenticator) registered, with an account-recovery code.
enum ResetResetPasskeys: RPCMethod {
    static let declaration = MethodDeclaration(
        "reset/resetPasskeys", "Removes every passkey and registers the new one, with an account-recovery code.",
        description: """
            With an account-recovery verification code, removes every passkey of the user and registers the new one \
            when given: {deviceId} has the simulated phone make it in the same call (options, creation, verification), \
            {ceremonyId, credential} registers one an outside authenticator made from reset/passkeyCreationOptions. \
            The code is checked first (a wrong one counts), then the ceremony, then the credential; a credential that \
            fails its checks answers passkeyInvalid, uses up the ceremony only and leaves the old passkeys in place.
            """,
        errors: ResetFamily.codeErrors + [
            .noSessionInProgress, .sessionExpired, .passkeyInvalid, .alreadyExists, .notFound,
            .biometryFailed, .biometryCancelled,
        ])
    struct Params: WireParams {
        let who: ResetFamily.Identified
        let verificationCode: String
        let passkey: NewPasskey?
        static let wire = (
            who: WireMember.inline(ResetFamily.Identified.self), verificationCode: WireMember.required("verificationCode", .text),
            passkey: WireMember.optional("passkey", .object(NewPasskey.self), "{deviceId, friendlyName*} or {ceremonyId, credential, friendlyName*}")
        )
        static let rules: [WireRule<Self>] = [ResetFamily.Identified.rule.at(\.who)]
    }
    static let result = UserFamily.passkeyList
    static func handle(_ params: Params, _ context: CallContext) throws -> [Passkey] {
        let identifier = try params.who.identifier()
        let code = params.verificationCode
        guard let passkey = params.passkey else {
            return try context.core.resetPasskeys(identifier, code: code, newPasskey: nil)
        }
        if let ceremonyId = passkey.ceremonyId, let credential = passkey.credential {
            return try context.core.resetPasskeys(
                identifier, code: code, newPasskey: ResetPasskey(ceremonyId: ceremonyId, response: credential, friendlyName: passkey.friendlyName))
        }
        guard let deviceId = passkey.deviceId else { throw DomainError.invalid(.newPasskey, NewPasskey.shapeMessage) }
        guard let authenticator = context.options.passkeyAuthenticator else {
            throw RPCError.invalidParams([ParamProblem("passkey.deviceId", "names a simulated phone, and this server runs without one")])
        }
        // The seed's one SDK call: the phone's browser and authenticator make the passkey from the
        // reset's options, and the server verifies it, in one transaction.
        let reads = try context.core.resetReads(identifier)
        do {
            return try makeOnPhone(deviceId, passkey.friendlyName, identifier, code, reads, authenticator, context)
        } catch let unknown as DomainError where unknown.reason == .notFound && unknown.detail(.kind) == .string("device") {
            // The code is checked first, in this form too: a wrong one counts and answers, whatever the phone.
            try context.core.checkAccountRecoveryCode(identifier, code: code)
            throw unknown
        }
    }

    /// The phone makes the passkey from the reset's options and the server verifies it, in one transaction.
    private static func makeOnPhone(
        _ deviceId: String, _ friendlyName: String?, _ identifier: UserIdentifier, _ code: String, _ reads: [StoreRead],
        _ authenticator: any ResetPasskeyAuthenticator, _ context: CallContext
    ) throws -> [Passkey] {
        try authenticator.inTransaction(onDevice: deviceId, reading: reads, context) { session, makePasskey in
            // The passkey takes the RP id of the application the code was asked for.
            let options = try session.resetPasskeyCreationOptions(identifier, code: code)
            let response = try makePasskey(options)
            return try session.resetPasskeys(
                identifier, code: code,
                newPasskey: ResetPasskey(ceremonyId: options.ceremonyId, response: response, friendlyName: friendlyName))
        }
    }

    /// The new passkey of a reset: `{deviceId, friendlyName*}` or `{ceremonyId, credential, friendlyName*}`.
    struct NewPasskey: WireWritableParams {
        let deviceId: String?
        let ceremonyId: String?
        let credential: RegistrationResponse?
        let friendlyName: String?
        static let shapeMessage = "must be {deviceId, friendlyName*} or {ceremonyId, credential, friendlyName*}"
        static let wire = (
            deviceId: WireMember.optional("deviceId", .identifier, "the simulated phone makes the passkey"),
            ceremonyId: WireMember.optional("ceremonyId", .identifier, "from reset/passkeyCreationOptions"),
            credential: WireMember.optional("credential", .registrationResponse, "RegistrationResponseJSON"),
            friendlyName: WireMember.optional("friendlyName", .string(minLength: 1, maxLength: 64), "defaults to Passkey")
        )
        static let rules: [WireRule<Self>] = [
            .custom { value, path, problems in
                let byDevice = value.deviceId != nil
                let byCeremony = value.ceremonyId != nil || value.credential != nil
                if byDevice == byCeremony {
                    problems.append(ParamProblem(path, shapeMessage))
                } else if byCeremony, value.ceremonyId == nil {
                    problems.append(ParamProblem("\(path).ceremonyId", "is required with credential"))
                } else if byCeremony, value.credential == nil {
                    problems.append(ParamProblem("\(path).credential", "is required with ceremonyId"))
                }
            }
        ]
    }
}
