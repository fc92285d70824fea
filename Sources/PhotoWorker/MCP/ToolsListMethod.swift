import JSONRPC
import JSONRPCTransport

/// MCP `tools/list`: the image methods as tools (no paging: the list is short), in a fixed order. A 2026-07-28
/// request (``MCPEnvelope``) gets `resultType`, the server's identity and cache hints (the list never changes
/// while the process runs, and is the same for every client).
struct ToolsListMethod: RPCMethod {
    static let name = "tools/list"
    static let cost = MethodCost.immediate
    static let summary = "MCP: the image methods as tools."

    struct Params: Decodable, Sendable {
        var cursor: String?
        var _meta: JSONValue?
    }

    func handle(_ params: Params, context: RequestContext) async throws -> RawJSON {
        let envelope = try MCPEnvelope.parse(meta: params._meta)
        if params.cursor != nil {
            throw RPCError.invalidParams(path: "cursor", "the tool list has one page; there is no cursor to continue from")
        }
        var result: [String: JSONValue] = ["tools": MCPToolCatalog.tools]
        if envelope?.isModern == true {
            result.merge(MCPEnvelope.resultFields) { _, new in new }
            result["ttlMs"] = .int(MCPCacheHints.processLifetimeMs)
            result["cacheScope"] = "public"
        }
        return RawJSON(.object(result))
    }
}
