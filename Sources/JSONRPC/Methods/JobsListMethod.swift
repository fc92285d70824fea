import JSONRPCTransport

/// `jobs.list`: what is in flight, with state, start time and latest progress.
struct JobsListMethod: RPCMethod {
    static let name = "jobs.list"
    static let cost = MethodCost.immediate
    static let summary = "In-flight jobs: id, method, state, start time, latest progress (not counting this request)."

    struct Result: Encodable, Sendable {
        var jobs: [RequestRegistry.Snapshot]
    }

    let registry: RequestRegistry

    func handle(_ params: NoParams, context: RequestContext) async throws -> Result {
        Result(jobs: await registry.snapshot(excluding: context.id))
    }
}

extension JobsListMethod {
    static let contract: MethodContract = #"""
        {
          "params": [],
          "result": {
            "name": "JobsList",
            "schema": {
              "type": "object",
              "properties": {"jobs": {"type": "array", "items": {"$ref": "#/components/schemas/Job"}}},
              "required": ["jobs"],
              "additionalProperties": false
            }
          }
        }
        """#
}
