import LatchkeyJSON
import LatchkeyRPC
import Testing

@testable import LatchkeyPhoneMethods
@testable import LatchkeyServer

/// A params type's `fields` list names every property it stores: a property left out would reach
/// the handler as the placeholder `init()` gave it, and nothing else would notice.
@Suite struct ParamsCoverageTests {
    @Test("every method's params members read every stored property", arguments: everyMethod.entries.map(\.name))
    func methodParams(_ name: String) throws {
        let entry = try #require(everyMethod.entry(named: name))
        #expect(entry.unreadParams() == [], "\(name): stored properties missing from Params.fields")
    }

    @Test("the params objects nested in others read every stored property too")
    func nestedParams() {
        #expect(KeyParam.unreadProperties == [])
        #expect(KeySetParam.unreadProperties == [])
        #expect(SignaturesParam.unreadProperties == [])
        #expect(AuthParameterParam.unreadProperties == [])
        #expect(FinishAuthParameterParam.unreadProperties == [])
        #expect(RecoveryFamily.RecoveryParameter.unreadProperties == [])
        #expect(RecoveryFamily.DeleteParameter.unreadProperties == [])
        #expect(ResetResetPasskeys.NewPasskey.unreadProperties == [])
        #expect(ImportedPasskeyParams.unreadProperties == [])
    }

    /// A type that forgot one of its properties, and one that reads a nested property but not its sibling.
    private struct Forgetful: WireReadable {
        struct Who: Sendable {
            var email: String?
            var phoneNumber: String?
        }
        var who = Who()
        var kept = ""
        var forgotten = ""
        static let fields: [WireField<Self>] = [.optional("email", \.who.email, .text), .required("kept", \.kept, .text)]
    }

    @Test("a property missing from the list is named, a nested one by its path")
    func forgottenProperty() {
        #expect(Forgetful.unreadProperties == ["who.phoneNumber", "forgotten"])
    }

    /// Members read into a stored property, a nested stored one, a defaulted one and a computed one
    /// (stored at their offsets, but for the computed one, set through its key path).
    private struct Mixed: WireReadable {
        struct Inner: Sendable { var name = "" }
        var inner = Inner()
        var count: Int64 = 0
        var limit: Int64 = 0
        var tags: [String] = []
        var joined: String {
            get { tags.joined(separator: ",") }
            set { tags = newValue.split(separator: ",").map(String.init) }
        }
        static let fields: [WireField<Self>] = [
            .required("name", \.inner.name, .text), .optional("count", \.countIfGiven, .integer()),
            .defaulted("limit", \.limit, .integer(), default: 10), .required("joined", \.joined, .text),
        ]
        var countIfGiven: Int64? {
            get { count == 0 ? nil : count }
            set { count = newValue ?? 0 }
        }
    }

    @Test("members are stored into stored, nested and computed properties alike")
    func storesIntoEveryKindOfProperty() throws {
        var problems: [ParamProblem] = []
        let read = Mixed.read(JSONObject([("name", "n"), ("count", 3), ("joined", "a,b")]), at: "", into: &problems)
        #expect(problems.isEmpty)
        let value = try #require(read)
        #expect(value.inner.name == "n")
        #expect(value.count == 3)
        #expect(value.limit == 10)
        #expect(value.tags == ["a", "b"])
        let again = Mixed.read(JSONObject([("name", "m"), ("limit", 4), ("joined", "")]), at: "", into: &problems)
        #expect(again?.inner.name == "m")
        #expect(again?.limit == 4)
        #expect(again?.count == 0)
    }
}
