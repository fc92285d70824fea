import Dispatch
import Glibc
import Synchronization
import Testing
import Waiting

/// `Parking.wait` runs `park` in the caller's isolation: an actor's queue is touched only on that actor.
@Suite(.timeLimit(.minutes(1)))
struct ParkingTests {
    /// A serial executor that knows which thread is running its jobs, so a test can ask, without trapping,
    /// whether code runs on it (the standard library's `preconditionIsolated` can only trap).
    final class ObservedExecutor: SerialExecutor {
        private let queue = DispatchQueue(label: "ParkingTests.owner")
        private let runningThread = Mutex<pthread_t?>(nil)

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            queue.async {
                self.runningThread.withLock { $0 = pthread_self() }
                job.runSynchronously(on: self.asUnownedSerialExecutor())
                self.runningThread.withLock { $0 = nil }
            }
        }

        var isRunningHere: Bool { runningThread.withLock { $0.map { pthread_equal($0, pthread_self()) != 0 } ?? false } }
    }

    actor Owner {
        let executor = ObservedExecutor()
        nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
        var queue = ContinuationQueue<Int>()
        private(set) var parkedOnTheActor: Bool?

        func wait() async throws -> Int {
            let ticket = queue.enqueue()
            return try await Parking.wait({ c in
                // Off the actor, the queue would be raced by the actor's other calls (JobLimiter's crash).
                parkedOnTheActor = executor.isRunningHere
                queue.park(ticket, c).perform()
            }, onCancel: {})
        }

        func serve(_ value: Int) -> Bool {
            guard let served = queue.resolveFirst(with: .success(value)) else { return false }
            served.resume.perform()
            return true
        }
    }

    @Test func parkRunsOnTheCallersActor() async throws {
        let owner = Owner()
        async let value = owner.wait()
        let deadline = ContinuousClock.now + .seconds(30)
        while await !owner.serve(7) {
            try #require(ContinuousClock.now < deadline, "the waiter never took its place in line")
            await Task.yield()
        }
        #expect(try await value == 7)
        let parked = await owner.parkedOnTheActor
        #expect(parked == true, "park ran off the owner's actor: \(String(describing: parked))")
    }
}
