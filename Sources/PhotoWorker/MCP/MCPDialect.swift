import JSONRPC
import JSONRPCTransport

/// The Model Context Protocol over the worker's stdio, in both eras.
///
/// Legacy (2024-11-05 to 2025-11-25): an `initialize` whose `protocolVersion` is a date makes the session an MCP
/// session, answered with the requested revision or the newest the worker speaks. Modern (2026-07-28): no
/// handshake; a request whose `_meta` carries the per-request envelope (``MCPEnvelope``), `server/discover`
/// first of all, opens the session. In both, the reply takes MCP's shape, a request cancelled with
/// `notifications/cancelled` gets no response, and a request with a `_meta.progressToken` reports progress as
/// `notifications/progress` (``MCPProgressReporter``).
struct MCPDialect: ProtocolDialect {
    static let name = "mcp"
    /// Revisions reached through `initialize`, oldest first.
    static let handshakeVersions = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
    /// Stateless revisions: every request names its revision in its envelope.
    static let modernVersions = ["2026-07-28"]
    /// Every revision the worker speaks, oldest first.
    static let versions = handshakeVersions + modernVersions
    /// As `server/discover` and the unsupported-version error list them: newest first.
    static var supportedVersions: [String] { versions.reversed() }

    static func isModern(_ version: String?) -> Bool { version.map(modernVersions.contains) ?? false }

    /// The worker's MCP server.
    static let worker = MCPDialect(instructions: "Photo tools: decode, thumbnail, palette, sticker cut-out, gradient stickers, batches and sticker-pack sheets. Paths are on the worker's machine; outputs are written where you say and returned as resource links; a batch's result lists every source with its result or the reason it failed.")

    /// `instructions` for the host's model.
    var instructions: String?

    var name: String { Self.name }
    var cancelNotification: (method: String, idKey: String) { ("notifications/cancelled", "requestId") }

    /// What the host is told in `capabilities`: only what the worker implements. Tools never change while it
    /// runs; a legacy host is told so (`listChanged: false`), a modern one has no subscriptions to ask for.
    /// Long tools run as tasks: from 2025-11-25 the `tasks` capability (list, cancel, task-augmented
    /// `tools/call`), in 2026-07-28 the tasks extension.
    func capabilities(for version: String) -> JSONValue {
        if Self.isModern(version) { return ["tools": [:], "extensions": [MCPTaskStore.extensionID: [:]]] }
        guard version >= "2025-11-25" else { return ["tools": ["listChanged": false]] }
        return ["tools": ["listChanged": false],
                "tasks": ["list": [:], "cancel": [:], "requests": ["tools": ["call": [:]]]]]
    }

    /// MCP versions are dates: `YYYY-MM-DD`.
    func recognises(protocolVersion v: String) -> Bool {
        let parts = v.split(separator: "-")
        return parts.count == 3 && parts[0].count == 4 && parts.allSatisfy { $0.allSatisfy(\.isNumber) }
    }

    func initializeResult(protocolVersion: String, server: ServerIdentity, policy: JSONValue?) -> RawJSON {
        let agreed = Self.handshakeVersions.contains(protocolVersion) ? protocolVersion : Self.handshakeVersions.last!
        var result: [String: JSONValue] = [
            "protocolVersion": .string(agreed),
            "capabilities": capabilities(for: agreed),
            "serverInfo": MCPServerInfo.implementation(server),
        ]
        if let instructions { result["instructions"] = .string(instructions) }
        if let policy { result["_meta"] = ["policy": policy] }
        return RawJSON(.object(result))
    }

    func progressReporter(for params: JSONValue?) -> (any ProgressReporter)? {
        params?["_meta"]?["progressToken"].map { MCPProgressReporter(token: $0) }
    }

    /// A request whose envelope names a modern revision the worker speaks opens a modern session; a malformed
    /// envelope opens none (the request is answered with its error).
    func session(openedBy method: String, params: JSONValue?) -> ClientSession? {
        guard let envelope = try? MCPEnvelope.parse(params), envelope.isModern else { return nil }
        return ClientSession(dialect: Self.name, capabilities: envelope.clientCapabilities,
                             protocolVersion: envelope.protocolVersion)
    }
}
