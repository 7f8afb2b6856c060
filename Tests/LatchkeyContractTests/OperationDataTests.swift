import Testing

@testable import LatchkeyContract

/// PowerAuth's operation-data string, version A: the contract's example reads; every rule refuses with its name; a value escaped
/// goes in as one field.
@Suite struct OperationDataTests {
    @Test("the contract's example reads as a payment: amount, IBAN, date")
    func contractExample() throws {
        let data = try OperationData.parse("A1*A1500.00EUR*ICZ2730300000001165254011*D20260131")
        #expect(data.template == 1)
        #expect(
            data.fields == [
                .amount("1500.00", currency: "EUR"), .iban("CZ2730300000001165254011", bic: nil), .date(year: 2026, month: 1, day: 31),
            ])
    }

    @Test("every field type, escapes, a BIC after the IBAN")
    func everyField() throws {
        let data = try OperationData.parse(#"A0*QAccount 42*RRef\*1*NLine\none*TBack\\slash*IGB82WEST12345698765432,NWBKGB2L"#)
        #expect(
            data.fields == [
                .account("Account 42"), .reference("Ref*1"), .note("Line\none"), .text("Back\\slash"),
                .iban("GB82WEST12345698765432", bic: "NWBKGB2L"),
            ])
    }

    @Test(
        "each rule broken answers its rule",
        arguments: [
            ("B1*A1EUR", "version A"), ("A", "template number"), ("A100*A1EUR", "template number"), ("A1*", "empty field"),
            ("A1*X1", "unknown type"), ("A1*A1.0.0EUR", "dot"), ("A1*AEUR", "without digits"), ("A1*A10eur", "capital"),
            ("A1*ICZ2730300000001165254012", "mod-97"), ("A1*D20260230", "does not exist"), ("A1*D2026013", "YYYYMMDD"),
            ("A1*N\\x", "backslash"), ("A1*Nx\\", "lone backslash"), ("A1*N1*N2*N3*N4*N5*N6", "more than 5"),
            ("A1*Q", "empty account"), ("A1*IGB82WEST12345698765432,nwbk", "BIC"),
        ])
    func refused(_ text: String, _ rule: String) {
        do {
            _ = try OperationData.parse(text)
            Issue.record("\(text) was read")
        } catch {
            #expect(error.rule.contains(rule), "\(text): \(error.rule)")
        }
    }

    @Test("at most 255 bytes and no control character")
    func bounds() {
        #expect(throws: OperationDataError.self) { try OperationData.parse("A1*T" + String(repeating: "x", count: 252)) }
        #expect(throws: Never.self) { try OperationData.parse("A1*T" + String(repeating: "x", count: 251)) }
        #expect(throws: OperationDataError.self) { try OperationData.parse("A1*Tone\ntwo") }
    }

    @Test("an escaped value is one field's value, whatever it holds")
    func escaping() throws {
        let hostile = "x*IGB82WEST12345698765432\\n\nT"
        let data = try OperationData.parse("A0*T" + OperationData.escape(hostile))
        #expect(data.fields == [.text(hostile)])
    }

    @Test("IBANs: valid ones from several countries pass, one changed digit fails")
    func ibans() {
        for iban in ["GB82WEST12345698765432", "DE89370400440532013000", "CZ6508000000192000145399", "FR1420041010050500013M02606"] {
            #expect(IBAN.isValid(Array(iban.utf8)), "\(iban)")
        }
        #expect(!IBAN.isValid(Array("DE89370400440532013001".utf8)))
        #expect(!IBAN.isValid(Array("de89370400440532013000".utf8)))
    }

    @Test("an IBAN refused names the rule it breaks: its length, its start, its characters or its mod-97 check")
    func ibanProblems() {
        // NO3711111 passes mod-97 but is shorter than any IBAN.
        #expect(IBAN.problem(Array("NO3711111".utf8)) == "of 9 characters (an IBAN has 15 to 34)")
        #expect(IBAN.problem(Array("12CZ30300000001165254011".utf8))?.contains("country code") == true)
        #expect(IBAN.problem(Array("CZ65-8000000192000145399".utf8))?.contains("capital letters and digits") == true)
        #expect(IBAN.problem(Array("DE89370400440532013001".utf8)) == "whose mod-97 check fails")
        #expect(IBAN.problem(Array("DE89370400440532013000".utf8)) == nil)
    }

    @Test("an amount's number and currency, as an amount attribute lists them")
    func amountParts() {
        for good in ["1", "1500.00", ".5", "5."] { #expect(OperationData.isAmount(good.utf8), "\(good)") }
        for bad in ["", ".", "1.0.0", "1,00", "000000.00EUR", "-1"] { #expect(!OperationData.isAmount(bad.utf8), "\(bad)") }
        #expect(OperationData.isCurrency("EUR".utf8))
        for bad in ["", "eur", "EURO", "000000.00EUR", "E1R"] { #expect(!OperationData.isCurrency(bad.utf8), "\(bad)") }
    }

    @Test("the fuzz entry takes any bytes")
    func fuzz() {
        let random = SeededRandomSource(seed: 38)
        for length in 0..<2000 {
            var bytes = random.bytes(length % 80)
            if !bytes.isEmpty { bytes[0] = UInt8(ascii: "A") }
            OperationData.fuzz(bytes)
        }
    }
}
