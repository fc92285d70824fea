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
