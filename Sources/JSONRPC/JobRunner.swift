import Foundation
import JSONRPCTransport

/// Runs admitted jobs: takes a compute job's place in the slot queue, starts its task, and knows
/// how many job tasks are still executing (so the process can wait for cancelled jobs to clean up).
///
/// On the main actor, the protocol side's one serial executor (see ``Server``): a job's task starts
/// here, waits for its slot here (so a cancelled queued job is answered at once), runs cheap
/// handlers here, and leaves for the cooperative pool for compute and waiting work, whose pixel
/// loops in turn run on the application's compute threads.
@MainActor
final class JobRunner {
    private let limiter: JobLimiter
    /// Job tasks still executing, including ones already answered by a server-side cancel.
    private var activeTasks = 0 {
        didSet { if activeTasks == 0 && !taskWaiters.isEmpty { taskWaiters.resumeAll() } }
    }
    /// Callers of ``waitForTasks(upTo:)``, resumed when `activeTasks` reaches zero.
    private let taskWaiters: ConditionWaiters
    private let scope: ComputeJobScope?
    /// The memory budget jobs are admitted against (nil: none).
    let memory: MemoryBudget?
    /// The tickets of jobs in line or running, by request id (so `jobs.list` can say which wait for memory).
    private var tickets: [RequestID: JobLimiter.Ticket] = [:]
    /// The estimates of jobs in line or running, by place.
    private var estimatedBytes: [UInt64: Int] = [:]
    /// Turns to estimate: at most this many estimates at once.
    private let estimateLine: JobLimiter
    let estimatesAtOnce: Int

    nonisolated init(slots: Int, timers: any TimerScheduler, scope: ComputeJobScope? = nil, memory: MemoryBudget? = nil) {
        limiter = JobLimiter(slots: slots, memory: memory)
        self.memory = memory
        estimatesAtOnce = max(2, slots)
        estimateLine = JobLimiter(slots: estimatesAtOnce)
        taskWaiters = ConditionWaiters(timers: timers)
        self.scope = scope
    }

    /// Starts a job's task. A compute job takes its place in line here, synchronously and in admission order
    /// (tasks started one after the other may begin running in either order, and the queue's order is the order
    /// requests arrived in); under a memory budget, a method that estimates its memory takes it without bytes, which
    /// its estimate gives before it waits (the estimate's own turn comes from a second line, `estimateLine`, in the
    /// same order).
    /// - Parameter finish: called with the outcome when the job ends (not for notifications).
    func start(_ job: Job, running: @escaping @MainActor (RequestID) -> Void,
               finish: @escaping @MainActor (RequestID, Result<RawJSON, any Error>) -> Void) -> Task<Void, Never> {
        activeTasks += 1
        var places: Places?
        if job.usesSlot {
            places = estimates(job)
                ? Places(line: limiter.enqueue(bytes: nil), estimate: estimateLine.enqueue())
                : Places(line: limiter.enqueue(), estimate: nil)
        }
        if let id = job.context.id, let places { tickets[id] = places.line }
        return Task {
            await self.run(job, places: places, running: running, finish: finish)
        }
    }

    /// A compute job's places: in the line for slots and memory, and (when it estimates) in the estimates' line.
    private struct Places {
        let line: JobLimiter.Ticket
        let estimate: JobLimiter.Ticket?
    }

    /// Whether the job's memory is estimated before it waits: under a budget, for a method that estimates.
    private func estimates(_ job: Job) -> Bool { memory != nil && job.handler.estimatesMemory }

    /// - Parameter places: the job's places in line, taken at start, each always either granted or given up.
    private func run(_ job: Job, places: Places?, running: @MainActor (RequestID) -> Void,
                     finish: @MainActor (RequestID, Result<RawJSON, any Error>) -> Void) async {
        defer {
            activeTasks -= 1
            if let places {
                estimatedBytes[places.line.number] = nil
                // A request id may be reused once answered (after a server-side cancel, before this task ends).
                if let id = job.context.id, tickets[id]?.number == places.line.number { tickets[id] = nil }
            }
        }
        let outcome: Result<RawJSON, any Error>
        do {
            var prepared: PreparedCall?
            if let places, let turn = places.estimate {
                // The turn is held until the job starts: what an estimate read (a header, a URL's download) is held by
                // at most `estimatesAtOnce` jobs that have not started.
                do {
                    try await estimateLine.acquire(turn)
                } catch {
                    limiter.giveUp(places.line)
                    throw error
                }
                do {
                    prepared = try await estimate(job, line: places.line)
                    try await limiter.acquire(places.line)
                    estimateLine.release(turn)
                } catch {
                    estimateLine.release(turn)
                    throw error
                }
                if let id = job.context.id { running(id) }
            } else if let places {
                try await limiter.acquire(places.line)
                if let id = job.context.id { running(id) }
            }
            defer { if let places { limiter.release(places.line) } }
            if job.handler.cost == .immediate {
                outcome = .success(try await job.handler.call(job.params, context: job.context))
            } else {
                outcome = .success(try await Self.runOffProtocolExecutor(job, prepared: prepared,
                                                                         admission: places?.line.number, in: scope))
            }
        } catch {
            outcome = .failure(error)
        }
        if let id = job.context.id { finish(id, outcome) }
    }

    /// Estimates the job's memory (in its turn among the estimates: at most ``estimatesAtOnce`` jobs estimated and
    /// not started, in arrival order, so a burst of requests does not read every header, or fetch every URL, at once)
    /// and gives its place in line the bytes. A job that could never fit, or whose estimate fails, gives its place up
    /// and throws.
    private func estimate(_ job: Job, line: JobLimiter.Ticket) async throws -> PreparedCall {
        let call: PreparedCall
        do {
            call = try await Self.prepareOffProtocolExecutor(job)
        } catch {
            limiter.giveUp(line)
            throw error
        }
        guard limiter.canEverFit(call.memoryBytes) else {
            limiter.giveUp(line)
            throw RPCError.overMemoryBudget(neededBytes: call.memoryBytes, budget: memory)
        }
        estimatedBytes[line.number] = call.memoryBytes
        limiter.estimate(line, bytes: call.memoryBytes)
        return call
    }

    /// Whether the job with this id waits in line for memory (its estimate does not fit beside the running jobs').
    func waitsForMemory(_ id: RequestID) -> Bool {
        tickets[id].map(limiter.waitsForMemory) ?? false
    }

    /// The estimate the job with this id was admitted (or waits) with; nil before it is made, and for jobs that
    /// make none.
    func memoryBytes(of id: RequestID) -> Int? {
        tickets[id].flatMap { estimatedBytes[$0.number] }
    }

    /// What the budget's figures are now: running jobs' bytes and jobs waiting for memory.
    var memoryCounts: (reservedBytes: Int, waitingForMemory: Int) { (limiter.reservedBytes, limiter.waitingForMemory) }

    /// `@concurrent`: decoding the params and estimating the job's memory (headers read) happen off the protocol's
    /// executor.
    @concurrent
    private static func prepareOffProtocolExecutor(_ job: Job) async throws -> PreparedCall {
        try await job.handler.prepare(job.params, context: job.context, estimating: true)
    }

    /// `@concurrent`: the handler's async work runs on the cooperative pool, not here; inside the application's
    /// scope for a compute job, when it has one.
    /// - Parameters:
    ///   - prepared: the call, when its estimate was made before it waited; nil: prepared here.
    ///   - admission: a compute job's place in line, which its context carries (``RequestContext/admissionOrder``).
    @concurrent
    private static func runOffProtocolExecutor(_ job: Job, prepared: PreparedCall?, admission: UInt64?,
                                               in scope: ComputeJobScope?) async throws -> RawJSON {
        let context = admission.map(job.context.admitted) ?? job.context
        func call() async throws -> RawJSON {
            let call = if let prepared { prepared } else {
                try await job.handler.prepare(job.params, context: context, estimating: false)
            }
            return try await call(context: context)
        }
        guard admission != nil, let scope else { return try await call() }
        return try await scope { try await call() }
    }

    /// Waits (up to `limit`) until every job task has ended; resumed by the last task to end.
    func waitForTasks(upTo limit: Duration) async {
        if activeTasks == 0 { return }
        _ = await taskWaiters.wait(timeout: limit)
    }
}

/// One job to run: the method, its raw params and its context. Whether it waits for a job slot is
/// decided here, once, from the method's cost.
struct Job: Sendable {
    let handler: MethodHandler
    let params: JSONValue?
    let context: RequestContext

    var usesSlot: Bool { handler.usesSlot(params) }
}
