import JSONRPC
import JSONRPCTransport

/// MCP 2025-11-25 `tasks/result {"taskId"}`: waits until the task has ended, then answers what the `tools/call`
/// would have (its result with `_meta["io.modelcontextprotocol/related-task"]`, or its JSON-RPC error; -32800 for
/// a cancelled task). The 2026-07-28 extension has no such method (`tasks/get` carries the result).
struct TasksResultMethod: RPCMethod {
    static let name = "tasks/result"
    static let cost = MethodCost.waiting
    static let summary = "MCP 2025-11-25: a task's result, once it has ended."

    let tasks: MCPTaskStore

    func handle(_ params: MCPTaskStore.TaskParams, context: RequestContext) async throws -> RawJSON {
        if try MCPEnvelope.parse(meta: params._meta)?.isModern == true {
            throw MCPTaskStore.notInRevision(Self.name, modern: true)
        }
        _ = try tasks.find(params.taskId)
        await tasks.waitUntilTerminal(params.taskId)
        try Task.checkCancellation()
        let record = try tasks.find(params.taskId)
        switch (record.status, record.outcome) {
        case (.completed, .result(.object(var result))?):
            var meta: [String: JSONValue] = [:]
            if case .object(let m)? = result["_meta"] { meta = m }
            meta["io.modelcontextprotocol/related-task"] = ["taskId": .string(record.taskId)]
            result["_meta"] = .object(meta)
            return RawJSON(.object(result))
        case (.failed, .error(let e)?):
            throw e
        default:
            throw RPCError.cancelled
        }
    }
}

extension TasksResultMethod {
    static let contract: MethodContract = #"""
        {
          "description": "MCP 2025-11-25: waits until the task has ended, then answers what tools/call would have (its result with `_meta[\"io.modelcontextprotocol/related-task\"]`, its JSON-RPC error, or -32800 for a cancelled task). -32601 with a 2026-07-28 envelope.",
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
          "result": {"name": "ToolResult", "schema": {"type": "object"}},
          "errors": [{"$ref": "#/components/errors/InvalidParams"}, {"$ref": "#/components/errors/RequestCancelled"}]
        }
        """#
}
