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
        var result: [String: JSONValue] = ["tools": MCPToolCatalog.list]
        if envelope?.isModern == true {
            result.merge(MCPEnvelope.resultFields) { _, new in new }
            result["ttlMs"] = .int(MCPCacheHints.processLifetimeMs)
            result["cacheScope"] = "public"
        }
        return RawJSON(.object(result))
    }
}

extension ToolsListMethod {
    static let contract: MethodContract = #"""
        {
          "description": "MCP: the image methods as tools, input and output schemas derived from this document (JSON Schema 2020-12), with annotations and icons; one page (a cursor is -32602). A 2026-07-28 request also gets `resultType` and cache hints.",
          "params": [
            {"name": "cursor", "schema": {"type": "string"}, "required": false},
            {
              "name": "_meta",
              "schema": {"$ref": "#/components/schemas/MCPRequestMeta"},
              "required": false,
              "description": "The 2026-07-28 envelope."
            }
          ],
          "result": {
            "name": "ToolsList",
            "schema": {
              "type": "object",
              "properties": {
                "tools": {
                  "type": "array",
                  "items": {
                    "type": "object",
                    "properties": {
                      "name": {"type": "string", "pattern": "^[A-Za-z0-9_.-]+$"},
                      "title": {"type": "string"},
                      "description": {"type": "string"},
                      "inputSchema": {"type": "object", "required": ["type", "properties"]},
                      "outputSchema": {"type": "object"},
                      "annotations": {"type": "object"},
                      "icons": {"type": "array"},
                      "execution": {"type": "object"}
                    },
                    "required": ["name", "title", "description", "inputSchema"],
                    "additionalProperties": false
                  }
                },
                "resultType": {"const": "complete"},
                "_meta": {"type": "object"},
                "ttlMs": {"type": "integer", "minimum": 0},
                "cacheScope": {"enum": ["public", "private"]}
              },
              "required": ["tools"],
              "additionalProperties": false
            }
          }
        }
        """#
}
