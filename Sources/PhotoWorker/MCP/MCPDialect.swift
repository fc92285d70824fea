import JSONRPC
import JSONRPCTransport

/// The Model Context Protocol over the worker's stdio: an `initialize` whose `protocolVersion` is a
/// date (`2025-06-18`) makes the session an MCP session. The reply takes MCP's shape, a request
/// cancelled with `notifications/cancelled` gets no response, and a request with a
/// `_meta.progressToken` reports progress as `notifications/progress` (``MCPProgressReporter``).
struct MCPDialect: ProtocolDialect {
    static let name = "mcp"
    /// MCP revisions this server speaks, oldest first.
    static let versions = ["2024-11-05", "2025-03-26", "2025-06-18"]

    /// What the host is told in `capabilities`.
    var capabilities: JSONValue = ["tools": ["listChanged": false]]
    /// `instructions` for the host's model.
    var instructions: String?

    var name: String { Self.name }
    var cancelNotification: (method: String, idKey: String) { ("notifications/cancelled", "requestId") }

    /// MCP versions are dates: `YYYY-MM-DD`.
    func recognises(protocolVersion v: String) -> Bool {
        let parts = v.split(separator: "-")
        return parts.count == 3 && parts[0].count == 4 && parts.allSatisfy { $0.allSatisfy(\.isNumber) }
    }

    func initializeResult(protocolVersion: String, server: ServerIdentity, policy: JSONValue?) -> RawJSON {
        let agreed = Self.versions.contains(protocolVersion) ? protocolVersion : Self.versions.last!
        var result: [String: JSONValue] = [
            "protocolVersion": .string(agreed),
            "capabilities": capabilities,
            "serverInfo": ["name": .string(server.name), "version": .string(server.version)],
        ]
        if let instructions { result["instructions"] = .string(instructions) }
        if let policy { result["_meta"] = ["policy": policy] }
        return RawJSON(.object(result))
    }

    func progressReporter(for params: JSONValue?) -> (any ProgressReporter)? {
        params?["_meta"]?["progressToken"].map(MCPProgressReporter.init(token:))
    }
}
