import JSONRPCTransport

/// `jobs.cancel {"id"}` -> `{"cancelled": bool}`: a cancel with an acknowledgement. The cancelled
/// request still gets its own final reply (-32800).
struct JobsCancelMethod: RPCMethod {
    static let name = "jobs.cancel"
    static let cost = MethodCost.immediate
    static let summary = "Cancel a request by id; answers whether it was in flight."

    struct Params: Decodable, Sendable {
        var id: RequestID
    }

    struct Result: Encodable, Sendable {
        var cancelled: Bool
    }

    let registry: RequestRegistry

    func handle(_ params: Params, context: RequestContext) async throws -> Result {
        Result(cancelled: await registry.cancel(params.id))
    }
}

extension JobsCancelMethod {
    static let contract: MethodContract = #"""
        {
          "description": "Cancel a request by id; answers whether it was in flight. The cancelled request still gets its own -32800 reply.",
          "params": [{"name": "id", "schema": {"$ref": "#/components/schemas/RequestId"}, "required": true}],
          "result": {
            "name": "JobsCancel",
            "schema": {
              "type": "object",
              "properties": {"cancelled": {"type": "boolean"}},
              "required": ["cancelled"],
              "additionalProperties": false
            }
          },
          "errors": [{"$ref": "#/components/errors/InvalidParams"}]
        }
        """#
}
