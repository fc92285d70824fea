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

    nonisolated init(slots: Int, timers: any TimerScheduler, scope: ComputeJobScope? = nil) {
        limiter = JobLimiter(slots: slots)
        taskWaiters = ConditionWaiters(timers: timers)
        self.scope = scope
    }

    /// Starts a job's task. A compute job takes its place in the slot queue here, synchronously and
    /// in admission order: tasks started one after the other may begin running in either order, and
    /// the queue's FIFO promise is about the order requests arrived in.
    /// - Parameter finish: called with the outcome when the job ends (not for notifications).
    func start(_ job: Job, running: @escaping @MainActor (RequestID) -> Void,
               finish: @escaping @MainActor (RequestID, Result<RawJSON, any Error>) -> Void) -> Task<Void, Never> {
        activeTasks += 1
        let ticket = job.usesSlot ? limiter.enqueue() : nil
        return Task {
            await self.run(job, ticket: ticket, running: running, finish: finish)
        }
    }

    /// - Parameter ticket: the job's place in the slot queue (compute jobs), passed to
    ///   `JobLimiter.acquire(_:)` before anything else so it is always either served or given up.
    private func run(_ job: Job, ticket: JobLimiter.Ticket?, running: @MainActor (RequestID) -> Void,
                     finish: @MainActor (RequestID, Result<RawJSON, any Error>) -> Void) async {
        defer { activeTasks -= 1 }
        let outcome: Result<RawJSON, any Error>
        do {
            if let ticket {
                try await limiter.acquire(ticket)
                if let id = job.context.id { running(id) }
            }
            defer { if ticket != nil { limiter.release() } }
            if job.handler.cost == .immediate {
                outcome = .success(try await job.handler.run(job.params, job.context))
            } else {
                outcome = .success(try await Self.runOffProtocolExecutor(job, in: ticket.flatMap { t in
                    scope.map { scope in (t.number, scope) }
                }))
            }
        } catch {
            outcome = .failure(error)
        }
        if let id = job.context.id { finish(id, outcome) }
    }

    /// `@concurrent`: the handler's async work runs on the cooperative pool, not here; inside the application's
    /// scope for a compute job, when it has one.
    @concurrent
    private static func runOffProtocolExecutor(_ job: Job, in scope: (admission: UInt64, ComputeJobScope)?)
        async throws -> RawJSON {
        guard let (admission, scope) = scope else { return try await job.handler.run(job.params, job.context) }
        return try await scope(admission) { try await job.handler.run(job.params, job.context) }
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
