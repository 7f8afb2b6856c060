import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import Testing

@testable import LatchkeyPhoneMethods
@testable import LatchkeyServer

/// A method is one declaration: its params decode from it with exact paths, its result and its
/// errors are checked against it.
@Suite struct DeclarationTests {
    private func decode<M: RPCMethod>(_ method: M.Type, _ params: JSON) -> (M.Params?, [ParamProblem]) {
        var problems: [ParamProblem] = []
        guard case .object(let object) = params else { return (nil, [ParamProblem("", "not an object")]) }
        return (M.Params.decode(object, at: "", into: &problems), problems)
    }

    @Test("every problem is reported with its path, nested ones dotted, array items indexed")
    func problemPaths() {
        let (_, problems) = decode(
            AdminConfigureApplication.self,
            [
                "applicationId": "", "pinCodeLengthMin": 2, "authMethods": ["pin", "eyes"],
                "addOrUpdateAllowedBy": ["pin": ["faceId", 7], "nose": []],
            ])
        #expect(
            problems.map(\.path) == [
                "applicationId", "pinCodeLengthMin", "authMethods[1]", "addOrUpdateAllowedBy.pin[1]",
                "addOrUpdateAllowedBy.nose",
            ])
        #expect(problems.first?.message == "must have at least 1 character")
    }

    @Test("a length bound counts code points, as JSON Schema's maxLength does: a combining accent is a character of its own")
    func lengthsCountCodePoints() {
        func problems(_ externalId: String) -> [String] {
            decode(AdminCreateOperation.self, ["userId": "u", "template": "t", "externalId": .string(externalId)]).1.map(\.path)
        }
        // 128 code points pass and 129 do not, whether or not they combine into fewer grapheme clusters.
        #expect(problems(String(repeating: "e\u{0301}", count: 64)).isEmpty)
        #expect(problems(String(repeating: "e\u{0301}", count: 64) + "e") == ["externalId"])
        #expect(problems(String(repeating: "e\u{0301}", count: 100)) == ["externalId"])
        #expect(problems(String(repeating: "\u{1F1E8}\u{1F1FF}", count: 65)) == ["externalId"])
        #expect(problems(String(repeating: "\u{1F600}", count: 128)).isEmpty)
    }

    @Test("an optional member given as null counts as absent; a default is the contract's")
    func nullsAndDefaults() throws {
        let (params, problems) = decode(
            ActivationFinish.self,
            [
                "deviceId": "d", "authParameter": ["method": "faceId", "pin": nil], "tokenPurpose": nil,
            ])
        #expect(problems.isEmpty)
        #expect(params?.finish.tokenPurpose == TokenPurpose.none)
        #expect(params?.finish.authParameter.parameter.pin == nil)
        #expect(params?.finish.authParameter.tokenPurpose == TokenPurpose.none)
        #expect(params?.activationName == nil)
        let (onboarding, _) = decode(OnboardingCancel.self, ["deviceId": "d"])
        #expect(onboarding?.forceCancel == true)
    }

    @Test("exactly one of two members: the missing one and the one too many are named")
    func exactlyOne() {
        let (_, neither) = decode(UserLogin.self, ["password": "x"])
        #expect(neither == [ParamProblem("email", "is required when userId is absent (give one of them)")])
        let (_, both) = decode(UserLogin.self, ["password": "x", "email": "a@b.c", "userId": "u"])
        #expect(both == [ParamProblem("userId", "cannot be given together with email (give one of them)")])
        let (_, verification) = decode(AdminCompleteVerification.self, ["approved": true])
        #expect(verification.map(\.path) == ["userId"])
    }

    @Test("a result is written in the declared member order and matches its own schema")
    func resultsMatchTheirSchema() {
        let config = ApplicationConfig.defaults("default")
        let json = AdminConfigureApplication.result.write(config)
        #expect(
            json.objectValue?.keys == [
                "applicationId", "activationCodeLength", "activationCodeType", "activationCodeTtlSeconds",
                "pinCodeType", "pinCodeLengthMin", "pinCodeLengthMax", "maxFailedAttempts", "authMethods",
                "addOrUpdateAllowedBy", "tokenTtlSeconds", "redirectUrlPrefixes", "passkeyRpId",
                "passkeyRpName", "passkeyOrigins", "passkeyUserVerification",
            ])
        #expect(
            JSONSerializer.string(json["addOrUpdateAllowedBy"] ?? .null)
                == #"{"device":[],"pin":["pin","touchId","faceId"],"touchId":["faceId"],"faceId":["touchId"]}"#)
        #expect(AdminConfigureApplication.result.schema.mismatches(json).isEmpty)
    }

    @Test("the contract check flags an undeclared error and a result off its schema")
    func contractCheckCatchesDrift() {
        let entry = MethodEntry(AdminGetRegistration.self)
        let undeclared = RPCError(code: ErrorCode(1500, reason: "tokenInvalid"), message: "x")
        #expect(ContractCheck.problems(entry, .failure(undeclared)).count == 1)
        let declared = RPCError(code: ErrorCode(1000, reason: "notFound"), message: "x")
        #expect(ContractCheck.problems(entry, .failure(declared)).isEmpty)
        #expect(ContractCheck.problems(entry, .failure(.internalError)).isEmpty)
        #expect(
            ContractCheck.problems(
                MethodEntry(AdminCreateUser.self),
                .failure(ErrorCodes.rpcError(DomainError(.storeUnavailable, "x")))
            ).isEmpty)
        #expect(!ContractCheck.problems(entry, .success(["registrationId": 1])).isEmpty)
        #expect(!ContractCheck.problems(MethodEntry(ClockNow.self), .success(["now": "2026-01-01T00:00:00Z", "extra": 1])).isEmpty)
    }

    @Test("the contract check flags a message that names a type or a case of the implementation")
    func contractCheckCatchesImplementationNames() {
        let entry = MethodEntry(PasskeyLogin.self)
        let leaked = RPCError(
            code: ErrorCode(1950, reason: "passkeyInvalid"),
            message: "The passkey credential failed the encoding check: authData (LatchkeyContract.CBORError.reservedAdditionalInfo)")
        #expect(ContractCheck.problems(entry, .failure(leaked)).count == 1)
        #expect(ContractCheck.implementationName(in: "failed: Swift.DecodingError.typeMismatch") == "Swift.DecodingError.typeMismatch")
        #expect(ContractCheck.implementationName(in: "The passkey credential failed the encoding check: fewer than 37 bytes") == nil)
        #expect(ContractCheck.implementationName(in: "Served by Latchkey. Try again.") == nil)
    }

    @Test("every method is declared once, with a summary, and every reason has one code")
    func registry() {
        let names = everyMethod.entries.map(\.name)
        #expect(Set(names).count == names.count)
        for entry in everyMethod.entries {
            #expect(!entry.summary.isEmpty, "\(entry.name) has no summary")
            #expect(everyMethod.entry(named: entry.name)?.name == entry.name)
        }
    }
}
