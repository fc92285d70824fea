import Foundation
import JSONRPC
import JSONRPCTransport
import Synchronization
import Waiting

/// What MCP's tasks add to a job: the task's id, times, lifetime and, once the job has ended, its outcome, kept
/// until the client fetches it. The job itself (queued or running, its progress, its cancellation) lives in the
/// worker's ``RequestRegistry`` under the task's id (``RequestContext/startDetachedJob(id:handler:params:reporter:deliver:)``),
/// so `jobs.list` and `jobs.cancel` see tasks too; this store holds no second job table, only what outlives a job.
final class MCPTaskStore: Sendable {
    /// A task's status (MCP 2025-11-25 `TaskStatus`; the worker's tools never need input).
    enum Status: String, Sendable { case working, completed, failed, cancelled }

    enum Outcome: Sendable {
        /// The tool's result (a `CallToolResult`, tool errors included).
        case result(JSONValue)
        /// A JSON-RPC error of the job (the server gave up on it, say).
        case error(RPCError)
    }

    struct Record: Sendable {
        var taskId: String
        var tool: String
        var createdAt: Date
        var lastUpdatedAt: Date
        var ttlMs: Int
        var outcome: Outcome?
        /// Set by `tasks/cancel` before it answers: a cancelled task stays cancelled whatever the job does next.
        var cancelled = false
        /// The job's latest progress (done of total).
        var done: Int?
        var total: Int?

        var status: Status {
            if cancelled { return .cancelled }
            switch outcome {
            case nil: return .working
            case .result?: return .completed
            case .error(let e)? where e.code == .requestCancelled: return .cancelled
            case .error?: return .failed
            }
        }

        var isTerminal: Bool { status != .working }
    }

    private typealias Ticket = ContinuationQueue<Void>.Ticket

    private struct State {
        var records: [String: Record] = [:]
        /// `tasks/result` requests parked until their task is terminal: one queue, so an outcome given before its
        /// request parks is kept for it; `waiting` says which tickets wait for which task.
        var waiters = ContinuationQueue<Void>()
        var waiting: [String: [Ticket]] = [:]

        /// Resolves every request waiting for `taskId`; returns what to resume after leaving the lock.
        mutating func wake(_ taskId: String) -> [ContinuationQueue<Void>.Resume] {
            (waiting.removeValue(forKey: taskId) ?? []).compactMap { waiters.resolve($0, with: .success(())) }
        }
    }

    /// The 2026-07-28 tasks extension's identifier.
    static let extensionID = "io.modelcontextprotocol/tasks"

    /// Suggested polling interval: a photo takes about a second.
    static let pollIntervalMs = 500
    static let defaultTTLMs = 3_600_000
    static let maxTTLMs = 86_400_000
    /// Ended tasks kept at most (the oldest go first), so a host that never fetches results cannot grow the worker.
    static let maxKept = 1000

    private let state = Mutex(State())

    /// A new task for `tool` (its job not started yet). `ttlMs`: the client's wish, clamped.
    func create(tool: String, ttlMs: Int?) -> Record {
        let now = Date()
        let ttl = min(max(ttlMs ?? Self.defaultTTLMs, 1000), Self.maxTTLMs)
        let record = Record(taskId: "mcp-task-" + UUID().uuidString.lowercased(), tool: tool, createdAt: now,
                            lastUpdatedAt: now, ttlMs: ttl)
        state.withLock { s in
            purge(&s, now: now)
            s.records[record.taskId] = record
        }
        return record
    }

    /// Forgets a task whose job could not be started.
    func discard(_ taskId: String) {
        _ = state.withLock { $0.records.removeValue(forKey: taskId) }
    }

    func record(_ taskId: String) -> Record? {
        state.withLock { s in
            purge(&s, now: Date())
            return s.records[taskId]
        }
    }

    /// Every task kept, oldest first.
    func all() -> [Record] {
        state.withLock { s in
            purge(&s, now: Date())
            return s.records.values.sorted { $0.createdAt < $1.createdAt }
        }
    }

    func progress(_ taskId: String, done: Int?, total: Int?) {
        state.withLock { s in
            guard s.records[taskId]?.outcome == nil else { return }
            if let done { s.records[taskId]?.done = done }
            if let total { s.records[taskId]?.total = total }
            s.records[taskId]?.lastUpdatedAt = Date()
        }
    }

    /// The job's final response (a whole JSON-RPC response) arrived: keep its outcome and wake `tasks/result`.
    func finish(_ taskId: String, response: [UInt8]) {
        let outcome: Outcome
        if let message = try? JSONParser.parse(response), let result = message["result"] {
            outcome = .result(result)
        } else if let message = try? JSONParser.parse(response), let e = message["error"] {
            outcome = .error(RPCError(code: ErrorCode(rawValue: e["code"]?.intValue ?? ErrorCode.internalError.rawValue),
                                      message: e["message"]?.stringValue ?? "error", data: e["data"]))
        } else {
            outcome = .error(RPCError(code: .internalError, message: "the task's job gave no readable response"))
        }
        state.withLock { s in
            if s.records[taskId] != nil {
                s.records[taskId]?.outcome = outcome
                s.records[taskId]?.lastUpdatedAt = Date()
            }
            return s.wake(taskId)
        }.perform()
    }

    /// Marks the task cancelled (before `tasks/cancel` answers). Returns the record as it was; nil if unknown.
    func cancel(_ taskId: String) -> Record? {
        let (before, waiters) = state.withLock { s -> (Record?, [ContinuationQueue<Void>.Resume]) in
            guard let r = s.records[taskId] else { return (nil, []) }
            guard !r.isTerminal else { return (r, []) }
            s.records[taskId]?.cancelled = true
            s.records[taskId]?.lastUpdatedAt = Date()
            return (r, s.wake(taskId))
        }
        waiters.perform()
        return before
    }

    /// Waits until the task is terminal (or gone, or the waiting request is cancelled).
    func waitUntilTerminal(_ taskId: String) async {
        guard let ticket = state.withLock({ s -> Ticket? in
            guard let r = s.records[taskId], !r.isTerminal else { return nil }
            let ticket = s.waiters.enqueue()
            s.waiting[taskId, default: []].append(ticket)
            return ticket
        }) else { return }
        // Cancelled: the request stops waiting (its answer says what the task is now), and leaves the task's list.
        _ = try? await Parking.wait({ c in state.withLock { $0.waiters.park(ticket, c) }.perform() }, onCancel: {
            state.withLock { s in
                s.waiting[taskId]?.removeAll { $0 == ticket }
                if s.waiting[taskId]?.isEmpty == true { s.waiting[taskId] = nil }
                return s.waiters.resolve(ticket, with: .failure(CancellationError()))
            }.perform()
        })
    }

    /// Drops ended tasks past their lifetime, and the oldest ended ones beyond ``maxKept``.
    private func purge(_ s: inout State, now: Date) {
        for (id, r) in s.records where r.isTerminal && now.timeIntervalSince(r.createdAt) * 1000 > Double(r.ttlMs) {
            s.records[id] = nil
        }
        let ended = s.records.values.filter(\.isTerminal)
        if ended.count > Self.maxKept {
            for r in ended.sorted(by: { $0.lastUpdatedAt < $1.lastUpdatedAt }).prefix(ended.count - Self.maxKept) {
                s.records[r.taskId] = nil
            }
        }
    }
}

extension MCPTaskStore.Record {
    private static func time(_ d: Date) -> String {
        d.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// What the job is doing, from the registry's view of it and the progress it reported.
    func statusMessage(job: RequestRegistry.Snapshot?) -> String? {
        switch status {
        case .working:
            if job?.state == .queued { return "queued: waiting for a job slot" }
            if let done, let total { return "\(done) of \(total) done" }
            return "running"
        case .completed: return "done"
        case .failed:
            if case .error(let e)? = outcome { return e.message }
            return nil
        case .cancelled: return "cancelled"
        }
    }

    /// The task as MCP 2025-11-25 shows it (`Task`).
    func legacyJSON(job: RequestRegistry.Snapshot?) -> [String: JSONValue] {
        var t: [String: JSONValue] = [
            "taskId": .string(taskId), "status": .string(status.rawValue), "createdAt": .string(Self.time(createdAt)),
            "lastUpdatedAt": .string(Self.time(lastUpdatedAt)), "ttl": .int(ttlMs), "pollInterval": .int(MCPTaskStore.pollIntervalMs),
        ]
        if let m = statusMessage(job: job) { t["statusMessage"] = .string(m) }
        return t
    }

    /// The task as the 2026-07-28 tasks extension shows it (`DetailedTask`: with its result or error once ended).
    func modernJSON(job: RequestRegistry.Snapshot?, detailed: Bool) -> [String: JSONValue] {
        var t: [String: JSONValue] = [
            "taskId": .string(taskId), "status": .string(status.rawValue), "createdAt": .string(Self.time(createdAt)),
            "lastUpdatedAt": .string(Self.time(lastUpdatedAt)), "ttlMs": .int(ttlMs), "pollIntervalMs": .int(MCPTaskStore.pollIntervalMs),
        ]
        if let m = statusMessage(job: job) { t["statusMessage"] = .string(m) }
        guard detailed else { return t }
        switch (status, outcome) {
        case (.completed, .result(let r)?): t["result"] = r
        case (.failed, .error(let e)?): t["error"] = e.json
        default: break
        }
        return t
    }
}

extension MCPTaskStore {
    /// The params every `tasks/*` method takes.
    struct TaskParams: Decodable, Sendable {
        var taskId: String
        var _meta: JSONValue?
    }

    /// The task `taskId`, or -32602 naming it.
    func find(_ taskId: String) throws -> Record {
        guard let r = record(taskId) else {
            throw RPCError.invalidParams(path: "taskId", "no task \(taskId) (unknown, or its lifetime ended)")
        }
        return r
    }

    /// -32601 for a `tasks/*` method that the request's revision does not have.
    static func notInRevision(_ method: String, modern: Bool) -> RPCError {
        MCPEnvelope.methodNotFound(method, modern ? "\(method) is not part of the 2026-07-28 tasks extension"
                                                  : "\(method) is part of the 2026-07-28 tasks extension; send the request's envelope")
    }
}
