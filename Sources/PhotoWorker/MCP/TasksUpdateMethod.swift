import JSONRPC
import JSONRPCTransport

/// MCP 2026-07-28 tasks extension `tasks/update {"taskId", "inputResponses"}`: acknowledged for a known task. The
/// worker's tools never ask for input, so there is never an outstanding request to answer and the responses are
/// ignored, as the extension says of responses to keys not outstanding.
struct TasksUpdateMethod: RPCMethod {
    static let name = "tasks/update"
    static let cost = MethodCost.immediate
    static let summary = "MCP 2026-07-28: input for a task (the worker's tasks never need any)."

    struct Params: Decodable, Sendable {
        var taskId: String
        var inputResponses: JSONValue?
        var _meta: JSONValue?
    }

    let tasks: MCPTaskStore

    func handle(_ params: Params, context: RequestContext) async throws -> RawJSON {
        guard try MCPEnvelope.parse(meta: params._meta)?.isModern == true else {
            throw MCPTaskStore.notInRevision(Self.name, modern: false)
        }
        _ = try tasks.find(params.taskId)
        return RawJSON(.object(MCPEnvelope.resultFields))
    }
}

extension TasksUpdateMethod {
    static let contract: MethodContract = #"""
        {
          "description": "MCP 2026-07-28 tasks extension: input for a task; acknowledged (the worker's tasks never need input). -32601 without the envelope.",
          "params": [
            {
              "name": "taskId",
              "schema": {"type": "string"},
              "required": true,
              "description": "The id tools/call answered with."
            },
            {"name": "inputResponses", "schema": {"type": "object"}, "required": false},
            {
              "name": "_meta",
              "schema": {
                "type": "object",
                "description": "The 2026-07-28 envelope (see server/discover); without it the 2025-11-25 form answers."
              },
              "required": false,
              "description": "The 2026-07-28 envelope."
            }
          ],
          "result": {"name": "Ack", "schema": {"type": "object"}},
          "errors": [{"$ref": "#/components/errors/InvalidParams"}]
        }
        """#
}
