import ArgumentParser
import LatchkeyServer

/// `latchkey mcp [flags]`: the same process, flags and store, speaking the Model Context
/// Protocol on stdin/stdout (every method as a tool).
struct MCPCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mcp",
        abstract: "Serve every method as a Model Context Protocol tool on stdin/stdout (same flags).",
        // Generated, the usage line would read `<options>` as if one were required: every flag is optional.
        usage: "latchkey mcp [<options>]",
        discussion: """
            Newline-delimited JSON-RPC 2.0, no batches, the initialize handshake (protocol versions \
            2025-06-18 and 2025-11-25). Notifications of subscribed topics arrive as \
            notifications/message, one-time codes left out.

            Example host entry:
              {"mcpServers": {"latchkey": {"command": "latchkey", "args": ["mcp"]}}}
            """)

    /// Every flag of `latchkey`, with the same meaning.
    @OptionGroup var serving: LatchkeyCommand

    func validate() throws { try serving.validate() }

    func run() throws {
        try serving.serve(batches: false) { MCPSession(server: $0) }
    }
}
