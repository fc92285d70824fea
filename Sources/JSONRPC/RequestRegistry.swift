import Foundation
import JSONRPCTransport
import Logging

/// Everything in flight, keyed by request id: the one place that decides who answers a request.
///
/// - Important: Exactly-once replies. A request's entry is removed by exactly one path,
///   ``remove(_:)``, called by ``finish(_:outcome:)`` when its task ends or by
///   ``terminateAll(reason:includingLifecycle:)`` when the server gives up on it, and only the caller
///   that removed the entry writes the final response. Progress and item notifications are written
///   only while the entry exists, so nothing can be written for a request after its final response.
///
/// On the main actor, the protocol side's one serial executor (see ``Server``): the read loop's
/// calls into it are plain calls, and jobs reach it with one hop.
@MainActor
public final class RequestRegistry {
    /// Where a job is in its life. `cancelling`: a cancel was asked for and the job has not ended yet (it ends
    /// at its next check, with -32800); `jobs.list` shows it so, never as still running.
    /// `waitingForMemory`: in line, its estimate not fitting beside the running jobs' under the memory budget.
    public enum State: String, Sendable, Codable { case queued, waitingForMemory, running, cancelling }

    /// What `jobs.list` shows of a job.
    public struct Snapshot: Sendable, Encodable {
        public var id: JSONValue
        public var method: String
        public var state: State
        /// ISO 8601, UTC, with milliseconds.
        public var startedAt: String
        public var elapsedMs: Int
        public var progress: JSONValue?
        /// The job's estimated peak memory, once estimated.
        public var memoryBytes: Int?
    }

    /// The outcome of trying to admit a request.
    public enum Admission: Sendable { case admitted, duplicateID, overloaded }

    private struct Entry {
        let method: String
        var state: State
        let startedAt: Date
        let started: ContinuousClock.Instant
        var progress: JSONValue?
        var task: Task<Void, Never>?
        let sink: ReplySink
        var cancelRequested = false
        /// A dialect's cancel (MCP's `notifications/cancelled`): no response at all.
        var silentCancel = false
        let usesSlot: Bool
        let isLifecycle: Bool
    }

    /// Compute jobs running at once, and how many more may wait for a slot.
    private let maxJobs: Int, maxQueue: Int
    private let runner: JobRunner

    private var entries: [RequestID: Entry] = [:]
    private var queuedCount = 0
    /// Admitted compute jobs, queued or running.
    private var slotJobCount = 0
    private var workCount = 0
    /// Callers of ``waitUntilIdle(timeout:)``, resumed when `workCount` reaches zero.
    private let idleWaiters: ConditionWaiters
    private let writer: MessageWriter
    private let stats: ServerStats
    /// Each request's outcome at `debug` (method, id, duration, outcome), its admission at `trace`.
    private let logger: Logger

    /// - Parameter timers: the timeouts' clock (the main queue; a manual one in tests).
    nonisolated init(writer: MessageWriter, stats: ServerStats, maxJobs: Int, maxQueue: Int,
                     timers: any TimerScheduler, jobScope: ComputeJobScope? = nil, memory: MemoryBudget? = nil,
                     logger: Logger = Logger(label: "photoworker.requests", factory: { _ in SwiftLogNoOpLogHandler() })) {
        self.logger = logger
        self.writer = writer
        self.stats = stats
        self.maxJobs = maxJobs
        self.maxQueue = maxQueue
        idleWaiters = ConditionWaiters(timers: timers)
        runner = JobRunner(slots: maxJobs, timers: timers, scope: jobScope, memory: memory)
    }

    /// Registers a request and starts its task, in one step, so a cancel processed after this
    /// call always finds it. At most `maxJobs + maxQueue` compute jobs are admitted at once: those
    /// that would have to wait beyond `maxQueue` are refused.
    /// - Parameter isLifecycle: `shutdown`-like requests, which do not count as work to drain.
    func admit(_ job: Job, id: RequestID, sink: ReplySink, isLifecycle: Bool = false) -> Admission {
        if entries[id] != nil { return .duplicateID }
        if job.usesSlot && slotJobCount >= maxJobs + maxQueue { return .overloaded }
        entries[id] = Entry(
            method: job.context.method, state: job.usesSlot ? .queued : .running, startedAt: Date(),
            started: .now, sink: sink, usesSlot: job.usesSlot, isLifecycle: isLifecycle)
        if job.usesSlot {
            queuedCount += 1
            slotJobCount += 1
        }
        if !isLifecycle { workCount += 1 }
        logger.trace("request admitted", metadata: [
            "id": "\(id)", "method": "\(job.context.method)",
            "params": "\(job.params.map { $0.serialized.count } ?? 0) bytes", "queue": "\(job.usesSlot ? "compute" : "none")",
        ])
        entries[id]!.task = start(job)
        return .admitted
    }

    /// Starts a job without an entry (a notification: nobody hears about its outcome).
    @discardableResult
    func start(_ job: Job) -> Task<Void, Never> {
        runner.start(job, running: { [weak self] in self?.markRunning($0) },
                     finish: { [weak self] in self?.finish($0, outcome: $1) })
    }

    /// Waits (up to `limit`) until every job task has ended, answered or not.
    func waitForTasks(upTo limit: Duration) async {
        await runner.waitForTasks(upTo: limit)
    }

    /// A queued job got its slot.
    private func markRunning(_ id: RequestID) {
        guard var e = entries[id], e.state == .queued else { return }
        e.state = .running
        entries[id] = e
        queuedCount -= 1
    }

    /// The job's task ended: write its final response unless someone else already did.
    private func finish(_ id: RequestID, outcome: Result<RawJSON, any Error>) {
        guard let entry = remove(id) else { return }
        if entry.cancelRequested && entry.silentCancel {
            stats.cancelled += 1
            log(id, entry, "cancelled (no reply, as the dialect asks)")
            return
        }
        let message: [UInt8]
        switch outcome {
        case .success(let result):
            stats.completed += 1
            message = OutgoingMessage.success(id: id, result: result)
            log(id, entry, "ok")
        case .failure(let error):
            if entry.cancelRequested || error is CancellationError {
                stats.cancelled += 1
                message = OutgoingMessage.failure(id: id, error: .cancelled)
                log(id, entry, "cancelled")
            } else {
                stats.failed += 1
                let rpc = RPCError(error)
                message = OutgoingMessage.failure(id: id, error: rpc)
                log(id, entry, "error \(rpc.code.rawValue) \(rpc.message)", data: rpc.data)
            }
        }
        entry.sink.deliver(message)
    }

    /// One line per finished request at `debug`; the error's data too at `trace`.
    private func log(_ id: RequestID, _ entry: Entry, _ outcome: String, data: JSONValue? = nil) {
        guard logger.logLevel <= .debug else { return }
        var metadata: Logger.Metadata = [
            "id": "\(id)", "method": "\(entry.method)", "outcome": "\(outcome)",
            "ms": "\(String(format: "%.1f", (ContinuousClock.now - entry.started).inSeconds * 1000))",
        ]
        if logger.logLevel <= .trace, let data { metadata["data"] = "\(data.jsonString)" }
        logger.debug("request finished", metadata: metadata)
    }

    /// Client cancel: cancels the job's task (and so its children and its wait for a slot). The
    /// task's own completion then answers -32800, unless ``CancelRule`` says this cancel is not answered.
    /// Unknown or finished ids are ignored.
    ///
    /// - Parameters:
    ///   - method: the cancel notification that asked (nil for a method such as `jobs.cancel`).
    ///   - sessionDialect: the dialect the session speaks, if any.
    @discardableResult
    public func cancel(_ id: RequestID, by method: String? = nil, sessionDialect: (any ProtocolDialect)? = nil) -> Bool {
        guard var e = entries[id], !e.isLifecycle else { return false }
        e.cancelRequested = true
        e.silentCancel = e.silentCancel || !CancelRule.answers(cancelledBy: method, sessionDialect: sessionDialect, sink: e.sink)
        entries[id] = e
        e.task?.cancel()
        return true
    }

    /// Server-side cancel of everything (signal, drain timeout, client gone): every entry is
    /// removed and answered -32802 now; the tasks are cancelled and their later outcomes dropped.
    public func terminateAll(reason: String, includingLifecycle: Bool = true) {
        let error = RPCError.serverCancelled(reason)
        for (id, entry) in entries where includingLifecycle || !entry.isLifecycle {
            _ = remove(id)
            entry.task?.cancel()
            stats.cancelled += 1
            entry.sink.deliver(OutgoingMessage.failure(id: id, error: error))
        }
    }

    /// Writes a `$/progress` notification for a live request; dropped if it already has its reply.
    func emit(_ id: RequestID, params: JSONValue, isProgress: Bool) {
        guard entries[id] != nil else { return }
        if isProgress { entries[id]!.progress = params }
        writer.send(OutgoingMessage.notification(method: "$/progress", params: params))
    }

    /// Writes a `$/progress` item whose params are already serialised (the child's result is
    /// spliced in as encoded, not parsed and written again); dropped if the request has its reply.
    func emitItem(_ id: RequestID, rawParams: [UInt8]) {
        guard entries[id] != nil else { return }
        writer.send(OutgoingMessage.notification(method: "$/progress", rawParams: rawParams))
    }

    /// Writes a dialect's progress notification for a live request; dropped if it has its reply.
    func emit(_ id: RequestID, method: String, params: JSONValue) {
        guard entries[id] != nil else { return }
        writer.send(OutgoingMessage.notification(method: method, params: params))
    }

    public func snapshot(excluding: RequestID? = nil) -> [Snapshot] {
        let now = ContinuousClock.now
        return entries.filter { $0.key != excluding }.sorted { $0.value.startedAt < $1.value.startedAt }.map { id, e in
            let state: State = if e.cancelRequested { .cancelling }
                else if e.state == .queued && runner.waitsForMemory(id) { .waitingForMemory } else { e.state }
            return Snapshot(
                id: id.json, method: e.method, state: state,
                startedAt: e.startedAt.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)),
                elapsedMs: Int((now - e.started).inSeconds * 1000), progress: e.progress,
                memoryBytes: runner.memoryBytes(of: id))
        }
    }

    public var counts: (running: Int, queued: Int) { (entries.count - queuedCount, queuedCount) }

    /// The memory budget, if any, with what running jobs hold and how many jobs wait for memory.
    var memory: (budget: MemoryBudget, reservedBytes: Int, waitingForMemory: Int)? {
        guard let budget = runner.memory else { return nil }
        let counts = runner.memoryCounts
        return (budget, counts.reservedBytes, counts.waitingForMemory)
    }

    /// Waits until no work (non-lifecycle entries) is in flight; false if `timeout` passed first (nil: no
    /// deadline) or the waiting task was cancelled.
    public func waitUntilIdle(timeout: Duration?) async -> Bool {
        if workCount == 0 { return true }
        return await idleWaiters.wait(timeout: timeout)
    }

    /// Waiters parked in ``waitUntilIdle(timeout:)`` (tests).
    var idleWaiterCount: Int { idleWaiters.parkedCount }

    private func remove(_ id: RequestID) -> Entry? {
        guard let e = entries.removeValue(forKey: id) else { return nil }
        if e.usesSlot {
            slotJobCount -= 1
            if e.state == .queued { queuedCount -= 1 }
        }
        if !e.isLifecycle {
            workCount -= 1
            if workCount == 0 && !idleWaiters.isEmpty { idleWaiters.resumeAll() }
        }
        return e
    }
}
