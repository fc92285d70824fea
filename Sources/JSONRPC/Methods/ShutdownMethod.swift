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
        _ = await registry.waitUntilIdle(timeout: .seconds(365 * 24 * 3600))
        await lifecycle.completeShutdown()
        return EmptyResult()
    }
}

extension ShutdownMethod {
    static let contract: MethodContract = #"""
        {
          "params": [],
          "result": {
            "name": "Empty",
            "schema": {
              "$ref": "#/components/schemas/Empty"
            }
          }
        }
        """#
}
