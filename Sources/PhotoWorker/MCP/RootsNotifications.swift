import JSONRPC

/// MCP `notifications/initialized`: the client is ready, so its roots can be asked for.
struct InitializedNotification: RPCMethod {
    static let name = "notifications/initialized"
    static let cost = MethodCost.waiting
    static let summary = "MCP: the client is initialised (the worker then asks for its roots)."

    let policy: SessionPolicy

    func handle(_ params: NoParams, context: RequestContext) async throws -> EmptyResult {
        if let peer = context.peer { await policy.refreshRoots(from: peer) }
        return EmptyResult()
    }
}

/// MCP `notifications/roots/list_changed`: the client's roots changed; ask again.
struct RootsListChangedNotification: RPCMethod {
    static let name = "notifications/roots/list_changed"
    static let cost = MethodCost.waiting
    static let summary = "MCP: the client's roots changed (the worker asks for them again)."

    let policy: SessionPolicy

    func handle(_ params: NoParams, context: RequestContext) async throws -> EmptyResult {
        if let peer = context.peer { await policy.refreshRoots(from: peer) }
        return EmptyResult()
    }
}
