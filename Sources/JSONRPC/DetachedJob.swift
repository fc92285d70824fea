import JSONRPCTransport

/// A job that outlives the request that started it (an MCP task): registered in the same ``RequestRegistry`` as
/// every request, under an id of its own, so it queues for a slot, shows in `jobs.list`, is cancelled by id and
/// drained like any request; only its final response goes to the application instead of the client.
extension RequestContext {
    /// Starts `handler` with `params` as a detached job `id`.
    /// - Parameters:
    ///   - reporter: how the job's progress goes out (nil: the native `$/progress` under `id`).
    ///   - deliver: receives the job's final response (a whole JSON-RPC response for `id`) exactly once, on the
    ///     main actor: its result, its error, -32800 when cancelled, -32802 when the server gave up on it.
    /// - Returns: whether it was admitted (not when `id` is in flight or the queue is full).
    public func startDetachedJob(id: RequestID, handler: MethodHandler, params: JSONValue?,
                                 reporter: (any ProgressReporter)? = nil,
                                 deliver: @escaping @Sendable @MainActor ([UInt8]) -> Void) async -> RequestRegistry.Admission {
        guard let registry else { return .overloaded }
        let context = RequestContext(id: id, method: handler.name, registry: registry, reporter: reporter, peer: peer,
                                     memoryBudget: memoryBudget)
        return await registry.admit(Job(handler: handler, params: params, context: context), id: id, sink: .detached(deliver))
    }

    /// Cancels job `id` (its task; the job then delivers -32800). False when it is not in flight.
    public func cancelJob(_ id: RequestID) async -> Bool {
        await registry?.cancel(id) ?? false
    }

    /// What `jobs.list` shows of job `id`; nil when it is not in flight.
    public func job(_ id: RequestID) async -> RequestRegistry.Snapshot? {
        await registry?.snapshot().first { $0.id == id.json }
    }
}
