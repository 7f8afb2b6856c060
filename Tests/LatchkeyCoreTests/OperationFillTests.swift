import LatchkeyContract
import LatchkeyTestSupport
import Testing

@testable import LatchkeyCore

/// Filling a template: no parameter adds a field to data, whatever template the store holds.
@Suite struct OperationFillTests {
    /// A template kept from before `admin/configureOperationTemplate` refused a backslash before a placeholder: written to the
    /// store directly, as an older version left it.
    private func systemWithOldTemplate(data: String) throws -> TestSystem {
        let system = try makeSystem()
        _ = try activatedWithPin(system)
        var template = paymentTemplate
        template.name = "memo"
        (template.title, template.message, template.data) = ("Memo", "A note", data)
        try system.core.store.write { tx in try tx.save(OperationTemplateRecord(template, at: 0)) }
        return system
    }

    @Test func aBackslashBeforeAPlaceholderInAStoredTemplateAddsNoField() throws {
        let system = try systemWithOldTemplate(data: "A1*A10.00EUR*N\\${amount}")
        let refused = domainError {
            _ = try system.core.createOperation(
                NewOperation(userId: "alice", template: "memo", parameters: [("amount", "*A99999.00EUR")]))
        }
        #expect(refused?.reason == .invalidParams)
        #expect(refused?.input == .operationText("data"))
        #expect(refused?.message.contains("other fields than the template's") == true)
    }

    @Test func aValueWithEscapesIsOneField() throws {
        let system = try systemWithOldTemplate(data: "A1*A10.00EUR*N\\\\${amount}")
        let made = try system.core.createOperation(
            NewOperation(userId: "alice", template: "memo", parameters: [("amount", "*A99999.00EUR\\n\n")]))
        #expect(try OperationData.parse(made.data).fields == [.amount("10.00", currency: "EUR"), .note("\\*A99999.00EUR\\n\n")])
    }
}
