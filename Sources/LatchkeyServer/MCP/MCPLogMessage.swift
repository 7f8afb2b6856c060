import LatchkeyJSON
import LatchkeyRPC

/// A Latchkey notification as an MCP log message: `notifications/message` at level `info`,
/// `logger` the notification's method, `data` its params less every one-time code (MCP forbids
/// secrets in log messages; `delivery/list` returns them as a tool result).
enum MCPLogMessage {
    /// The members left out of a notification's params, by notification method: a path of
    /// object members down to the object, then the members dropped from it.
    private static let withheld: [String: (path: [String], members: Set<String>)] = [
        "delivery/sent": (["message"], ["code", "text", "link"]),
        "reset/accountRecoveryCallback": ([], ["verificationCode", "link"]),
    ]

    /// The `notifications/message` for a Latchkey notification message, or nil when it is not one.
    static func message(for notification: JSON) -> JSON? {
        guard case .string(let method)? = notification["method"] else { return nil }
        var data = notification["params"] ?? .object(JSONObject())
        if let rule = withheld[method] { data = dropping(rule.members, at: rule.path[...], from: data) }
        return RPCMessage.notification(
            "notifications/message",
            params: [
                "level": .string(MCPLogLevel.info.rawValue), "logger": .string(method), "data": data,
            ])
    }

    private static func dropping(_ members: Set<String>, at path: ArraySlice<String>, from value: JSON) -> JSON {
        guard case .object(var object) = value else { return value }
        if let next = path.first {
            if let inner = object[next] { object[next] = dropping(members, at: path.dropFirst(), from: inner) }
        } else {
            for member in members { object[member] = nil }
        }
        return .object(object)
    }
}

/// The syslog levels of MCP logging, least severe first.
enum MCPLogLevel: String, CaseIterable, Comparable {
    case debug, info, notice, warning, error, critical, alert, emergency

    private var rank: Int { Self.allCases.firstIndex(of: self) ?? 0 }

    static func < (lhs: MCPLogLevel, rhs: MCPLogLevel) -> Bool { lhs.rank < rhs.rank }
}
