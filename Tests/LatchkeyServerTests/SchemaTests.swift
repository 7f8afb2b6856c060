import Foundation
import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import Testing

@testable import LatchkeyServer

@Suite struct SchemaTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// schema/openrpc.json is the committed copy of what the code generates: it must not drift.
    @Test func committedDocumentMatchesTheCode() throws {
        let committed = try Data(contentsOf: Self.root.appendingPathComponent("schema/openrpc.json"))
        let parsed = try JSONParser.parse(Array(committed))
        let matches = parsed == LatchkeyServer.document(version: "0.1.0", methods: everyMethod)
        #expect(matches, "schema/openrpc.json drifted from the code: run `make schema` and review the diff")
    }

    @Test func everyMethodDeclaresParamsResultAndErrors() {
        var names: Set<String> = []
        for method in everyMethod.entries {
            #expect(names.insert(method.name).inserted, "duplicate method \(method.name)")
            #expect(!method.summary.isEmpty)
        }
        guard case .array(let methods)? = LatchkeyServer.document(version: "0", methods: everyMethod).objectValue?["methods"] else {
            Issue.record("no methods")
            return
        }
        for method in methods {
            #expect(method["result"] != nil)
            #expect(method["errors"]?.arrayValue?.isEmpty == false)
        }
    }

    @Test func errorCodesAreUnique() {
        let codes = ErrorCodes.registry.map(\.code)
        #expect(Set(codes).count == codes.count)
        #expect(ErrorCodes.registry.count == 6 + ErrorReason.allCases.count - 1)
    }
}
