import JSONRPC
import JSONRPCTransport

/// `rpc.discover`: the OpenRPC document (the native protocol's own introspection; MCP's `tools/list` reads
/// the same document).
struct RPCDiscoverMethod: RPCMethod {
    static let name = "rpc.discover"
    static let cost = MethodCost.immediate
    static let summary = "The OpenRPC document describing every method."

    func handle(_ params: NoParams, context: RequestContext) async throws -> RawJSON {
        OpenRPCDocument.compact
    }
}

extension RPCDiscoverMethod {
    static let contract: MethodContract = #"""
        {"params": [], "result": {"name": "OpenRPC", "schema": {"type": "object", "required": ["openrpc", "methods"]}}}
        """#
}
