import JSONRPC
import JSONRPCTransport
import Synchronization

/// How a tool's method reports inside an MCP `tools/call`: progress goes out only as MCP's
/// `notifications/progress` (for a `progressToken`; nothing without one, never the native `$/progress`),
/// and a batch's items are kept for the tool's result, which carries every item.
final class MCPToolCallReporter: ProgressReporter {
    /// One finished child of a batch.
    enum Item: Sendable {
        case result(RawJSON)
        case error(RPCError)
    }

    /// Progress for the host's token; nil: the host asked for none.
    private let progress: MCPProgressReporter?
    private let items = Mutex<[Int: Item]>([:])

    /// Told every update (a task's job records its progress for `tasks/get`).
    private let onProgress: (@Sendable (_ done: Int?, _ total: Int?) -> Void)?

    init(progressToken: JSONValue?, onProgress: (@Sendable (_ done: Int?, _ total: Int?) -> Void)? = nil) {
        progress = progressToken.map { MCPProgressReporter(token: $0) }
        self.onProgress = onProgress
    }

    /// The items so far, in input order.
    var collected: [(index: Int, item: Item)] {
        items.withLock { $0.sorted { $0.key < $1.key }.map { ($0.key, $0.value) } }
    }

    func notification(done: Int?, total: Int?, message: String?) -> (method: String, params: JSONValue)? {
        if done != nil { onProgress?(done, total) }
        return progress?.notification(done: done, total: total, message: message)
    }

    func item(index: Int, result: RawJSON) {
        items.withLock { $0[index] = .result(result) }
    }

    func item(index: Int, error: RPCError) {
        items.withLock { $0[index] = .error(error) }
    }
}
