import Deadlines
import Foundation
import Glibc
import Synchronization
import Testing
import Waiting

/// `Parking.wait` runs `park` in the caller's isolation: an actor's queue is touched only on that actor.
@Suite(.timeLimit(.minutes(10)))
struct ParkingTests {
    /// A serial executor with a thread of its own, which knows whether code runs on it: the standard library can
    /// only trap when code is off an actor (`preconditionIsolated`), and a test must fail saying so instead. Its own
    /// thread, not a dispatch queue, so a loaded run's busy pool cannot starve the actor the test watches.
    final class ObservedExecutor: SerialExecutor {
        private let jobs = Mutex<(queue: [UnownedJob], stopped: Bool)>(([], false))
        private let ready = DispatchSemaphore(value: 0)
        private let runner = Mutex<pthread_t?>(nil)

        init() {
            let thread = Thread { [self] in
                runner.withLock { $0 = pthread_self() }
                while true {
                    ready.wait()
                    let (job, stopped) = jobs.withLock { j in (j.queue.isEmpty ? nil : j.queue.removeFirst(), j.stopped) }
                    if let job { job.runSynchronously(on: asUnownedSerialExecutor()) } else if stopped { return }
                }
            }
            thread.name = "parking-owner"
            thread.start()
        }

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            jobs.withLock { $0.queue.append(job) }
            ready.signal()
        }

        /// Ends the thread once the jobs queued so far have run.
        func stop() {
            jobs.withLock { $0.stopped = true }
            ready.signal()
        }

        var isRunningHere: Bool { runner.withLock { $0.map { pthread_equal($0, pthread_self()) != 0 } ?? false } }
    }

    actor Owner {
        let executor = ObservedExecutor()
        nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
        var queue = ContinuationQueue<Int>()
        private(set) var parkedOnTheActor: Bool?
        /// One element when the waiter has parked: the test waits for it without polling, which a loaded run's
        /// busy cooperative pool made take minutes (each poll a hop to the back of its queue).
        nonisolated let parked: AsyncStream<Void>
        private let parkedContinuation: AsyncStream<Void>.Continuation

        init() {
            (parked, parkedContinuation) = AsyncStream.makeStream(of: Void.self)
        }

        func wait() async throws -> Int {
            let ticket = queue.enqueue()
            return try await Parking.wait({ c in
                // Off the actor, the queue would be raced by the actor's other calls (JobLimiter's crash).
                parkedOnTheActor = executor.isRunningHere
                queue.park(ticket, c).perform()
                parkedContinuation.yield()
            }, onCancel: {
                Task { await self.cancel(ticket) }
            })
        }

        private func cancel(_ ticket: ContinuationQueue<Int>.Ticket) {
            queue.resolve(ticket, with: .failure(CancellationError())).perform()
        }

        func serve(_ value: Int) {
            queue.resolveFirst(with: .success(value))?.resume.perform()
        }
    }

    @Test func parkRunsOnTheCallersActor() async throws {
        let owner = Owner()
        defer { owner.executor.stop() }
        let waiting = Task { try await owner.wait() }
        defer { waiting.cancel() }  // a test that fails below must not leave the waiter parked
        for await _ in owner.parked { break }  // bounded by the suite's time limit
        await owner.serve(7)
        #expect(try await Deadline.value(of: waiting, "the parked wait to return") == 7)
        let parked = await owner.parkedOnTheActor
        #expect(parked == true, "park ran off the owner's actor: \(String(describing: parked))")
    }
}
