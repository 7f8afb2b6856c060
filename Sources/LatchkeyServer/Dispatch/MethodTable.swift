/// Methods another target adds to a table, placed in the document after one of the methods already there (at the end when that one is not).
public struct MethodGroup: Sendable {
    /// The method they follow (`audit/list`).
    public let after: String
    public let entries: [MethodEntry]

    public init(after: String, _ entries: [MethodEntry]) {
        self.after = after
        self.entries = entries
    }
}

/// Every method a process serves, in document order: the server's own composed with what other targets add.
///
/// Dispatch, `rpc.discover` and `latchkey schema`, the MCP tool list, `--fail-method` and the contract check all read this one table.
public struct MethodTable: Sendable {
    public let entries: [MethodEntry]
    private let byName: [String: MethodEntry]

    /// `base` in its order, each group inserted after the method it names.
    public init(_ base: [MethodEntry], adding groups: [MethodGroup] = []) {
        var entries = base
        for group in groups {
            let position = entries.firstIndex { $0.name == group.after }.map { $0 + 1 } ?? entries.endIndex
            entries.insert(contentsOf: group.entries, at: position)
        }
        self.entries = entries
        byName = Dictionary(entries.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The server's methods alone (a server without the simulated phone).
    public static let serverOnly = MethodTable(ServerMethods.entries)

    public func entry(named name: String) -> MethodEntry? { byName[name] }

    /// The names that are not methods of the table (a usage error for `--fail-method`).
    public func unknownMethods(_ names: [String]) -> [String] {
        names.filter { entry(named: $0) == nil }
    }
}
