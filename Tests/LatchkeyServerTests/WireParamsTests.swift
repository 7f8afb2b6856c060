import LatchkeyContract
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire
import Testing

@testable import LatchkeyPhoneMethods
@testable import LatchkeyServer

/// What the compiler cannot prove of params decoding: what the members read, in which order problems come, and that a written value reads back.
///
/// The decoding is generated from each type's `wire` (schema/gen_params.py): every member read into a local of its own type, then the
/// memberwise initializer, so that every property is read is the compiler's to prove, and `make regen-check` proves the generated code current.
@Suite struct WireParamsTests {
    private func decode<T: WireParams>(_ type: T.Type, _ json: JSON) -> (T?, [ParamProblem]) {
        var problems: [ParamProblem] = []
        guard case .object(let object) = json else { return (nil, [ParamProblem("", "not an object")]) }
        return (T.decode(object, at: "", into: &problems), problems)
    }

    private static let publicKey: JSON = "BNR28xiirSsOQNK5qGSWksB9rVHhxbxm4wBdtvfWTv0N0nWDHL2w8Z7NmlQsqbBFvE0TqELM01-3PqzI6Uw0EeE"
    private static let proof: JSON = "TEjre9K_QhwMEjswwAots_LEDgtO-R9gqsCQyOUeFaNhc7hsBKoJnBffY94uoMFoIcL51cRcyKFbqNKrNiPzdw"

    @Test("a params object written back reads as itself, members in wire order")
    func writtenValuesReadBack() throws {
        let keys: JSON = ["device": ["publicKey": Self.publicKey], "pin": ["publicKey": Self.publicKey, "proof": Self.proof]]
        let (read, problems) = decode(KeySetParam.self, keys)
        #expect(problems.isEmpty)
        let value = try #require(read)
        #expect(value.wireJSON() == keys)
        #expect(value.wireJSON().objectValue?.keys == ["device", "pin"])
        let finish: JSON = [
            "deviceId": "d", "authParameter": ["method": "pin", "pin": "1234", "tokenPurpose": "none"], "tokenPurpose": "addOrUpdateRecovery",
        ]
        let (params, _) = decode(FinishParams.self, finish)
        #expect(try #require(params).wireJSON() == finish)
    }

    @Test("members inline in another type are read from the same object and listed in its place")
    func inlineMembers() {
        let (params, problems) = decode(ServerAuthMethodAdd.Params.self, ["registrationId": "r", "challengeId": "c", "method": "pin"])
        #expect(params == nil)
        #expect(problems.map(\.path) == ["signatures", "key"])
        #expect(ServerAuthMethodAdd.Params.members.map(\.name) == ["registrationId", "challengeId", "signatures", "method", "key"])
        #expect(DeviceCreate.Params.members.map(\.name) == ["deviceId", "biometry", "iCloudKeychain", "name"])
    }

    @Test("a closed object names each member it does not declare, after the problems of those it does")
    func unknownMembers() {
        let (_, problems) = decode(SignaturesParam.self, ["pin": 1, "nose": "x"])
        #expect(problems.map(\.path) == ["device", "pin", "nose"])
        #expect(problems.last?.message == "names no role: the roles are device, pin, touchId, faceId")
    }

    @Test("every method's params name each member once, inline shapes included")
    func membersAreDistinct() {
        for entry in everyMethod.entries {
            let names = entry.params().map(\.name)
            #expect(Set(names).count == names.count, "\(entry.name) lists a member twice: \(names)")
        }
    }
}
