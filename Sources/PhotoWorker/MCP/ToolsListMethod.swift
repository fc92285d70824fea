import JSONRPC
import JSONRPCTransport

/// MCP `tools/list`: the image methods as tools (no paging: the list is short).
struct ToolsListMethod: RPCMethod {
    static let name = "tools/list"
    static let cost = MethodCost.immediate
    static let summary = "MCP: the image methods as tools."

    struct Params: Decodable, Sendable {
        var cursor: String?
    }

    struct Result: Encodable, Sendable {
        var tools: JSONValue
    }

    func handle(_ params: Params, context: RequestContext) async throws -> Result {
        Result(tools: MCPToolCatalog.tools)
    }
}
