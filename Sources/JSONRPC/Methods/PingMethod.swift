import JSONRPCTransport

/// `ping` -> `{}`: liveness check and latency probe.
public struct PingMethod: RPCMethod {
    public static let name = "ping"
    public static let cost = MethodCost.immediate
    public static let summary = "Liveness check; answers {}."
    public init() {}
    public func handle(_ params: NoParams, context: RequestContext) async throws -> EmptyResult { EmptyResult() }
}

extension PingMethod {
    public static let contract: MethodContract = #"""
        {"params": [], "result": {"name": "Empty", "schema": {"$ref": "#/components/schemas/Empty"}}}
        """#
}
