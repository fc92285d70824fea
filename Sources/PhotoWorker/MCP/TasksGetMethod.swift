import JSONRPC
import JSONRPCTransport

/// MCP `tasks/get {"taskId"}`: the task's status (and what its job is doing). 2025-11-25: the `Task`;
/// 2026-07-28 (with the envelope): the `DetailedTask`, with the tool's result or the error once it has ended.
struct TasksGetMethod: RPCMethod {
    static let name = "tasks/get"
    static let cost = MethodCost.immediate
    static let summary = "MCP: a task's status; from 2026-07-28 with its result once it has ended."

    let tasks: MCPTaskStore

    func handle(_ params: MCPTaskStore.TaskParams, context: RequestContext) async throws -> RawJSON {
        let modern = try MCPEnvelope.parse(meta: params._meta)?.isModern == true
        let record = try tasks.find(params.taskId)
        let job = await context.job(.string(record.taskId))
        guard modern else { return RawJSON(.object(record.legacyJSON(job: job))) }
        var result = MCPEnvelope.resultFields
        result.merge(record.modernJSON(job: job, detailed: true)) { _, new in new }
        return RawJSON(.object(result))
    }
}

extension TasksGetMethod {
    static let contract: MethodContract = #"""
        {
          "description": "MCP: a task's status (and what its job is doing); from 2026-07-28 (with the envelope) also its tool result or error once it has ended. An unknown task is -32602 (`data.path` = `taskId`).",
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
          "result": {
            "name": "Task",
            "schema": {
              "type": "object",
              "description": "A task as MCP shows it: 2025-11-25 `{taskId, status, statusMessage?, createdAt, lastUpdatedAt, ttl, pollInterval}`; 2026-07-28 `{resultType, taskId, status, statusMessage?, createdAt, lastUpdatedAt, ttlMs, pollIntervalMs, result? | error?}`. `status`: working, completed, failed or cancelled.",
              "properties": {
                "taskId": {"type": "string"},
                "status": {"enum": ["working", "completed", "failed", "cancelled"]}
              },
              "required": ["taskId", "status"]
            }
          },
          "errors": [{"$ref": "#/components/errors/InvalidParams"}]
        }
        """#
}
