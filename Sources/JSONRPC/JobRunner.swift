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

    nonisolated init(slots: Int, timers: any TimerScheduler, scope: ComputeJobScope? = nil, memory: MemoryBudget? = nil) {
        limiter = JobLimiter(slots: slots, memory: memory)
        self.memory = memory
        taskWaiters = ConditionWaiters(timers: timers)
        self.scope = scope
    }

    /// Starts a job's task. A compute job of a method that does not estimate its memory takes its place in line
    /// here, synchronously and in admission order (tasks started one after the other may begin running in either
    /// order, and the queue's FIFO promise is about the order requests arrived in); one that does, once its
    /// estimate is made (headers read, so in the order they were read).
    /// - Parameter finish: called with the outcome when the job ends (not for notifications).
    func start(_ job: Job, running: @escaping @MainActor (RequestID) -> Void,
               finish: @escaping @MainActor (RequestID, Result<RawJSON, any Error>) -> Void) -> Task<Void, Never> {
        activeTasks += 1
        let ticket = job.usesSlot && !job.handler.estimatesMemory ? limiter.enqueue() : nil
        return Task {
            await self.run(job, ticket: ticket, running: running, finish: finish)
        }
    }

    /// - Parameter ticket: the job's place in line when it was taken at start, passed to `JobLimiter.acquire(_:)`
    ///   before anything else so it is always either granted or given up.
    private func run(_ job: Job, ticket early: JobLimiter.Ticket?, running: @MainActor (RequestID) -> Void,
                     finish: @MainActor (RequestID, Result<RawJSON, any Error>) -> Void) async {
        defer { activeTasks -= 1 }
        let outcome: Result<RawJSON, any Error>
        do {
            var ticket = early
            var prepared: PreparedCall?
            if let early { try await wait(early, for: job, running: running) }
            if ticket == nil && job.usesSlot {
                // Estimated before it takes its place: the estimate is what it waits for.
                let call = try await Self.prepareOffProtocolExecutor(job)
                guard limiter.canEverFit(call.memoryBytes) else {
                    throw RPCError.overMemoryBudget(neededBytes: call.memoryBytes, budget: memory)
                }
                let late = limiter.enqueue(bytes: call.memoryBytes)
                ticket = late
                prepared = call
                try await wait(late, for: job, running: running)
            }
            defer {
                if let ticket { limiter.release(ticket) }
                if let id = job.context.id { tickets[id] = nil }
            }
            if job.handler.cost == .immediate {
                outcome = .success(try await job.handler.call(job.params, context: job.context))
            } else {
                outcome = .success(try await Self.runOffProtocolExecutor(job, prepared: prepared, in: ticket.flatMap { t in
                    scope.map { scope in (t.number, scope) }
                }))
            }
        } catch {
            outcome = .failure(error)
        }
        if let id = job.context.id { finish(id, outcome) }
    }

    /// Waits for the ticket's grant, known to `jobs.list` meanwhile; tells the registry the job runs.
    private func wait(_ ticket: JobLimiter.Ticket, for job: Job, running: @MainActor (RequestID) -> Void) async throws {
        let id = job.context.id
        if let id { tickets[id] = ticket }
        do {
            try await limiter.acquire(ticket)
        } catch {
            if let id { tickets[id] = nil }
            throw error
        }
        if let id { running(id) }
    }

    /// Whether the job with this id waits in line for memory (its estimate does not fit beside the running jobs').
    func waitsForMemory(_ id: RequestID) -> Bool {
        tickets[id].map(limiter.waitsForMemory) ?? false
    }

    /// The estimate the job with this id was admitted (or waits) with; nil before it is made, and for jobs outside
    /// the line.
    func memoryBytes(of id: RequestID) -> Int? {
        guard memory != nil, let ticket = tickets[id] else { return nil }
        return ticket.bytes
    }

    /// What the budget's figures are now: running jobs' bytes and jobs waiting for memory.
    var memoryCounts: (reservedBytes: Int, waitingForMemory: Int) { (limiter.reservedBytes, limiter.waitingForMemory) }

    /// `@concurrent`: decoding the params and estimating the job's memory (headers read) happen off the protocol's
    /// executor.
    @concurrent
    private static func prepareOffProtocolExecutor(_ job: Job) async throws -> PreparedCall {
        try await job.handler.prepare(job.params, context: job.context)
    }

    /// `@concurrent`: the handler's async work runs on the cooperative pool, not here; inside the application's
    /// scope for a compute job, when it has one.
    @concurrent
    /// - Parameter prepared: the call, when its estimate was made before it waited; nil: prepared here.
    private static func runOffProtocolExecutor(_ job: Job, prepared: PreparedCall?,
                                               in scope: (admission: UInt64, ComputeJobScope)?) async throws -> RawJSON {
        func call() async throws -> RawJSON {
            let call = if let prepared { prepared } else { try await job.handler.prepare(job.params, context: job.context) }
            return try await call(context: job.context)
        }
        guard let (admission, scope) = scope else { return try await call() }
        return try await scope(admission) { try await call() }
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
