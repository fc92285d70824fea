import JSONRPC
import JSONRPCTransport

/// An MCP notification after which the client's roots are asked for (again).
protocol RootsRefreshingNotification: RPCMethod where Params == NoParams, Result == EmptyResult {
    var policy: SessionPolicy { get }
}

extension RootsRefreshingNotification {
    static var cost: MethodCost { .waiting }

    func handle(_ params: NoParams, context: RequestContext) async throws -> EmptyResult {
        if let peer = context.peer { await policy.refreshRoots(from: peer) }
        return EmptyResult()
    }
}

/// MCP `notifications/initialized`: the client is ready, so its roots can be asked for.
struct InitializedNotification: RootsRefreshingNotification {
    static let name = "notifications/initialized"
    static let summary = "MCP: the client is initialised (the worker then asks for its roots)."
    let policy: SessionPolicy
}

/// MCP `notifications/roots/list_changed`: the client's roots changed; ask again.
struct RootsListChangedNotification: RootsRefreshingNotification {
    static let name = "notifications/roots/list_changed"
    static let summary = "MCP: the client's roots changed (the worker asks for them again)."
    let policy: SessionPolicy
}

extension InitializedNotification {
    static let contract: MethodContract = #"""
        {
          "description": "Notification (MCP): the client finished initialisation. If it declared `capabilities.roots` (and no --allow-dir was given), the worker asks for its roots with a `roots/list` request and confines the session to them.",
          "params": []
        }
        """#
}

extension RootsListChangedNotification {
    static let contract: MethodContract = #"""
        {
          "description": "Notification (MCP): the client's roots changed; the worker asks for them again with `roots/list` (requests wait meanwhile).",
          "params": []
        }
        """#
}
