import JSONRPC
import JSONRPCTransport

/// MCP 2026-07-28 `server/discover`: the revisions the worker speaks (newest first; the handshake revisions are
/// reached through `initialize`), its capabilities, identity (with icons), instructions and the session's access
/// policy (`_meta.policy`), cacheable for the life of the process by this client only (the policy names its
/// folders). Its first call opens a modern session (``MCPDialect/session(openedBy:params:)``).
struct ServerDiscoverMethod: RPCMethod {
    static let name = "server/discover"
    static let cost = MethodCost.immediate
    static let summary = "MCP 2026-07-28: supported revisions, capabilities, identity and the session's access policy."

    struct Params: Decodable, Sendable {
        var _meta: JSONValue?
    }

    let dialect: MCPDialect
    let policy: SessionPolicy

    func handle(_ params: Params, context: RequestContext) async throws -> RawJSON {
        guard let envelope = try MCPEnvelope.parse(meta: params._meta) else {
            throw RPCError.invalidParams(path: "_meta.\(MCPEnvelope.protocolVersionKey)", "is required on every request")
        }
        var result = MCPEnvelope.resultFields
        result["supportedVersions"] = .array(MCPDialect.supportedVersions.map(JSONValue.string))
        result["capabilities"] = dialect.capabilities(for: envelope.isModern ? envelope.protocolVersion : MCPDialect.modernVersions.last!)
        if let instructions = dialect.instructions { result["instructions"] = .string(instructions) }
        result["ttlMs"] = .int(MCPCacheHints.processLifetimeMs)
        result["cacheScope"] = "private"
        var meta: [String: JSONValue] = [MCPEnvelope.serverInfoKey: MCPServerInfo.implementation(MCPServerInfo.worker)]
        if let facts = policy.policyFacts { meta["policy"] = facts }
        result["_meta"] = .object(meta)
        return RawJSON(.object(result))
    }
}
