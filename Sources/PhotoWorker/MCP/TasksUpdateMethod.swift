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
