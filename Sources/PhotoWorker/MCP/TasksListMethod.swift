import JSONRPC
import JSONRPCTransport

/// MCP 2025-11-25 `tasks/list`: every task kept, oldest first (one page: at most ``MCPTaskStore/maxKept`` ended
/// tasks are kept). The 2026-07-28 extension removed it.
struct TasksListMethod: RPCMethod {
    static let name = "tasks/list"
    static let cost = MethodCost.immediate
    static let summary = "MCP 2025-11-25: every task, oldest first."

    struct Params: Decodable, Sendable {
        var cursor: String?
        var _meta: JSONValue?
    }

    let tasks: MCPTaskStore

    func handle(_ params: Params, context: RequestContext) async throws -> RawJSON {
        if try MCPEnvelope.parse(meta: params._meta)?.isModern == true {
            throw MCPTaskStore.notInRevision(Self.name, modern: true)
        }
        if params.cursor != nil { throw RPCError.invalidParams(path: "cursor", "the task list has one page") }
        var list: [JSONValue] = []
        for record in tasks.all() {
            list.append(.object(record.legacyJSON(job: await context.job(.string(record.taskId)))))
        }
        return RawJSON(["tasks": .array(list)])
    }
}

extension TasksListMethod {
    static let contract: MethodContract = #"""
        {
          "description": "MCP 2025-11-25: every task kept (running, and ended ones until their ttl), oldest first, one page. -32601 with a 2026-07-28 envelope.",
          "params": [
            {"name": "cursor", "schema": {"type": "string"}, "required": false},
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
            "name": "TaskList",
            "schema": {
              "type": "object",
              "properties": {
                "tasks": {
                  "type": "array",
                  "items": {
                    "type": "object",
                    "description": "A task as MCP shows it: 2025-11-25 `{taskId, status, statusMessage?, createdAt, lastUpdatedAt, ttl, pollInterval}`; 2026-07-28 `{resultType, taskId, status, statusMessage?, createdAt, lastUpdatedAt, ttlMs, pollIntervalMs, result? | error?}`. `status`: working, completed, failed or cancelled.",
                    "properties": {
                      "taskId": {"type": "string"},
                      "status": {"enum": ["working", "completed", "failed", "cancelled"]}
                    },
                    "required": ["taskId", "status"]
                  }
                }
              },
              "required": ["tasks"]
            }
          }
        }
        """#
}
