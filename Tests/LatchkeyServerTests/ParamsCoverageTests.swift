import Testing

@testable import LatchkeyServer

/// A params type's `fields` list names every property it stores: a property left out would reach
/// the handler as the placeholder `init()` gave it, and nothing else would notice.
@Suite struct ParamsCoverageTests {
    @Test("every method's params members read every stored property", arguments: MethodRegistry.entries.map(\.name))
    func methodParams(_ name: String) throws {
        let entry = try #require(MethodRegistry.entry(named: name))
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
}
