import JSONRPC
import JSONRPCTransport

/// MCP `tasks/cancel {"taskId"}`: the task is marked cancelled before the answer and its job in the worker's
/// registry is cancelled (it stops at its next check, as any cancelled request does). 2025-11-25: answers the
/// cancelled `Task`, and an ended task is -32602; 2026-07-28: an empty acknowledgement (cancellation is
/// cooperative there, an ended task stays as it ended).
struct TasksCancelMethod: RPCMethod {
    static let name = "tasks/cancel"
    static let cost = MethodCost.immediate
    static let summary = "MCP: cancel a task (its job stops at its next check)."

    let tasks: MCPTaskStore

    func handle(_ params: MCPTaskStore.TaskParams, context: RequestContext) async throws -> RawJSON {
        let modern = try MCPEnvelope.parse(meta: params._meta)?.isModern == true
        let before = try tasks.find(params.taskId)
        if before.isTerminal {
            if modern { return RawJSON(.object(MCPEnvelope.resultFields)) }
            throw RPCError.invalidParams(path: "taskId", "task \(before.taskId) has already ended (\(before.status.rawValue))")
        }
        _ = tasks.cancel(before.taskId)
        _ = await context.cancelJob(.string(before.taskId))
        if modern { return RawJSON(.object(MCPEnvelope.resultFields)) }
        let after = try tasks.find(before.taskId)
        return RawJSON(.object(after.legacyJSON(job: nil)))
    }
}

extension TasksCancelMethod {
    static let contract: MethodContract = #"""
        {
          "description": "MCP: cancel a task: it is marked cancelled and its job (a job of the worker's registry, under the task's id) is cancelled. 2025-11-25: answers the cancelled task; an ended one is -32602. 2026-07-28: an empty acknowledgement.",
          "params": [
            {
              "name": "taskId",
              "schema": {"type": "string"},
              "required": true,
              "description": "The id tools/call answered with."
            },
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
          "result": {"name": "Task", "schema": {"type": "object"}},
          "errors": [{"$ref": "#/components/errors/InvalidParams"}]
        }
        """#
}
