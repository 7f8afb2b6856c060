import Foundation
import Testing

@testable import LatchkeyServer

/// Find a method by its name: each is `Methods/<family>/<TypeName>.swift` of the target that declares it, the type named from the wire name.
///
/// The family is the wire name's first segment (`meta` for a name without a slash); the type name is the wire name split on `/` and `.`, each
/// part capitalised, joined (`server/authMethod/add` → `ServerAuthMethodAdd`, `rpc.discover` → `RpcDiscover`). Beside the methods, a family
/// folder holds only what its methods share, in `<Family>Family.swift`.
@Suite struct MethodLayoutTests {
    static let sources = SchemaTests.root.appendingPathComponent("Sources")

    /// The type a wire name derives.
    static func typeName(_ wireName: String) -> String {
        wireName.split(whereSeparator: { $0 == "/" || $0 == "." }).map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    /// The folder of a wire name's family.
    static func family(_ wireName: String) -> String {
        wireName.contains("/") ? String(wireName.prefix { $0 != "/" }) : "meta"
    }

    @Test("the names derive as the recipe says")
    func derivation() {
        #expect(Self.typeName("server/authMethod/add") == "ServerAuthMethodAdd")
        #expect(Self.typeName("rpc.discover") == "RpcDiscover")
        #expect(Self.family("rpc.discover") == "meta")
        #expect(Self.family("server/authMethod/add") == "server")
    }

    @Test(
        "every method is declared by the type its name derives, in Methods/<family>/<TypeName>.swift of its target",
        arguments: everyMethod.entries.map(\.name))
    func methodFile(_ name: String) throws {
        let entry = try #require(everyMethod.entry(named: name))
        let qualified = entry.type()
        let module = String(qualified.prefix { $0 != "." })
        let type = String(qualified.dropFirst(module.count + 1))
        #expect(type == Self.typeName(entry.name), "\(entry.name) is declared by \(type), not \(Self.typeName(entry.name))")
        let file = Self.sources.appendingPathComponent("\(module)/Methods/\(Self.family(entry.name))/\(Self.typeName(entry.name)).swift")
        let text = try #require(try? String(contentsOf: file, encoding: .utf8), "\(entry.name): no file \(file.path)")
        #expect(text.contains("enum \(type):"), "\(file.lastPathComponent) does not declare \(type)")
        #expect(text.contains("\"\(entry.name)\""), "\(file.lastPathComponent) does not declare \(entry.name)")
    }

    @Test("a family folder holds its methods and what they share, nothing else")
    func familyFolders() throws {
        var expected: Set<String> = []
        for entry in everyMethod.entries {
            let module = String(entry.type().prefix { $0 != "." })
            expected.insert("\(module)/Methods/\(Self.family(entry.name))/\(Self.typeName(entry.name)).swift")
        }
        let files = FileManager.default
        var stray: [String] = []
        for target in ["LatchkeyServer", "LatchkeyPhoneMethods"] {
            let methods = Self.sources.appendingPathComponent("\(target)/Methods")
            for family in try files.contentsOfDirectory(atPath: methods.path) where !family.hasSuffix(".swift") {
                let shared = "\(family.prefix(1).uppercased())\(family.dropFirst())Family.swift"
                for file in try files.contentsOfDirectory(atPath: methods.appendingPathComponent(family).path) where file != shared {
                    let path = "\(target)/Methods/\(family)/\(file)"
                    if !expected.contains(path) { stray.append(path) }
                }
            }
        }
        #expect(stray.isEmpty, "neither a method of the table (misnamed, or in another family's folder) nor <Family>Family.swift: \(stray)")
    }

    @Test("the server knows no phone: no file of LatchkeyServer imports LatchkeySimulator or LatchkeyDevice")
    func serverImportsNoPhone() throws {
        let server = Self.sources.appendingPathComponent("LatchkeyServer")
        let files = try #require(FileManager.default.enumerator(atPath: server.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        #expect(!files.isEmpty)
        for file in files {
            let text = try String(contentsOf: server.appendingPathComponent(file), encoding: .utf8)
            for module in ["LatchkeySimulator", "LatchkeyDevice"] {
                #expect(!text.contains("import \(module)\n"), "LatchkeyServer/\(file) imports \(module)")
            }
        }
    }

    @Test("the library apps embed holds only what a phone needs: LatchkeyDevice imports swift-crypto and the contract, nothing else")
    func deviceProductSignsWithSwiftCryptoAlone() throws {
        let device = Self.sources.appendingPathComponent("LatchkeyDevice")
        let files = try FileManager.default.contentsOfDirectory(atPath: device.path).filter { $0.hasSuffix(".swift") }
        #expect(!files.isEmpty)
        let allowed: Set<String> = ["Crypto", "_CryptoExtras", "LatchkeyContract", "Foundation"]
        for file in files {
            let text = try String(contentsOf: device.appendingPathComponent(file), encoding: .utf8)
            let imports = text.split(separator: "\n").filter { $0.hasPrefix("import ") }.map { String($0.dropFirst("import ".count)) }
            #expect(Set(imports).isSubset(of: allowed), "LatchkeyDevice/\(file) imports \(imports)")
            #expect(!text.contains("DeterministicECDSA"), "LatchkeyDevice/\(file) names the deterministic signer")
        }
    }
}
