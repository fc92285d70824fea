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

extension ServerDiscoverMethod {
    static let contract: MethodContract = #"""
        {
          "description": "MCP 2026-07-28: the revisions the worker speaks (newest first; the older ones through `initialize`), its capabilities, identity (`_meta[\"io.modelcontextprotocol/serverInfo\"]`, with icons), instructions and the session's access policy (`_meta.policy`), with cache hints. The first request carrying a 2026-07-28 envelope opens a modern MCP session, confined to the --allow-* folders or the working directory (never to roots).",
          "params": [
            {
              "name": "_meta",
              "schema": {"$ref": "#/components/schemas/MCPRequestMeta"},
              "required": true,
              "description": "The per-request envelope."
            }
          ],
          "result": {
            "name": "DiscoverResult",
            "schema": {
              "type": "object",
              "properties": {
                "resultType": {"const": "complete"},
                "_meta": {"type": "object"},
                "supportedVersions": {"type": "array", "items": {"type": "string"}},
                "capabilities": {"type": "object"},
                "instructions": {"type": "string"},
                "ttlMs": {"type": "integer", "minimum": 0},
                "cacheScope": {"enum": ["public", "private"]}
              },
              "required": ["resultType", "supportedVersions", "capabilities", "ttlMs", "cacheScope"],
              "additionalProperties": false
            }
          },
          "errors": [{"$ref": "#/components/errors/InvalidParams"}]
        }
        """#
}
