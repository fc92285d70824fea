import JSONRPCTransport

/// `shutdown`: stop accepting jobs, let in-flight ones finish, then answer `{}`. `exit` follows.
struct ShutdownMethod: RPCMethod {
    static let name = "shutdown"
    static let cost = MethodCost.waiting
    static let summary = "Stop accepting jobs, let in-flight ones finish, then reply {}. Send `exit` next."

    let lifecycle: Lifecycle
    let registry: RequestRegistry

    func handle(_ params: NoParams, context: RequestContext) async throws -> EmptyResult {
        await lifecycle.beginShutdown()
        // No deadline: `shutdown` waits for the jobs in flight however long they take (the client can cancel
        // them, and `exit`, a signal or end of input end the wait).
        _ = await registry.waitUntilIdle(timeout: nil)
        await lifecycle.completeShutdown()
        return EmptyResult()
    }
}

extension ShutdownMethod {
    static let contract: MethodContract = #"""
        {"params": [], "result": {"name": "Empty", "schema": {"$ref": "#/components/schemas/Empty"}}}
        """#
}
