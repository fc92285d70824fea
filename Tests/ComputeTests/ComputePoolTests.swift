import Compute
import Deadlines
import Glibc
import Dispatch
import Synchronization
import Testing

/// The compute threads' lifecycle and cancellation, in process.
@Suite(.timeLimit(.minutes(10)))
struct ComputePoolTests {
    @Test func runsWorkAndRefusesItAfterStop() async throws {
        let pool = ComputePool(threads: 2)
        pool.start()
        #expect(try await pool.run(lease: .unleased) { 6 * 7 } == 42)
        pool.stop()
        await #expect(throws: CancellationError.self) { try await pool.run(lease: .unleased) { 1 } }
    }

    /// Hand-offs from a running piece are processed by the pool's idle thread while the piece goes on: the
    /// producer waits for its first item to be processed before it produces the rest, which only a helper can do.
    @Test func pipelinedItemsRunOnAnIdleThreadWhileTheProducerGoesOn() async throws {
        let pool = ComputePool(threads: 2)
        pool.start()
        defer { pool.stop() }
        let seen = Mutex<[Int]>([])
        let (helped, producerThread) = try await pool.run(lease: .unleased) { loop throws -> (Bool, Int) in
            let first = DispatchSemaphore(value: 0)
            let producer = Int(bitPattern: pthread_self())
            let processedElsewhere = Mutex(false)
            try loop.pipelined({ handOff in
                handOff(0)
                // Only a helper on the other thread can process item 0 while this thread waits here.
                let answered = first.wait(timeout: .now() + 30) == .success
                for i in 1..<20 { handOff(i) }
                if !answered { throw CancellationError() }
            }, process: { (i: Int) in
                if Int(bitPattern: pthread_self()) != producer { processedElsewhere.withLock { $0 = true } }
                seen.withLock { $0.append(i) }
                if i == 0 { first.signal() }
            })
            return (processedElsewhere.withLock { $0 }, producer)
        }
        #expect(helped, "no item was processed by the pool's other thread (producer \(producerThread))")
        #expect(seen.withLock { $0 }.sorted() == Array(0..<20), "\(seen.withLock { $0 })")
    }

    /// When the producer throws, items not yet taken are dropped and the call returns once no helper is inside
    /// `process`; in turn (off the pool), each item is processed at once on the caller's thread.
    @Test func pipelinedStopsOnErrorAndRunsInlineOutsideAPool() async throws {
        let pool = ComputePool(threads: 2)
        pool.start()
        defer { pool.stop() }
        let inside = Mutex(0)
        await #expect(throws: CancellationError.self) {
            try await pool.run(lease: .unleased) { loop in
                try loop.pipelined({ handOff in
                    for i in 0..<100 { handOff(i) }
                    throw CancellationError()
                }, process: { (_: Int) in
                    inside.withLock { $0 += 1 }
                    usleep(100)
                    inside.withLock { $0 -= 1 }
                })
            }
        }
        #expect(inside.withLock { $0 } == 0, "a helper was still processing after the call returned")
        var order: [Int] = []
        let log = Mutex<[Int]>([])
        try InTurnLoop().pipelined({ handOff in
            for i in 0..<3 {
                handOff(i)
                order.append(log.withLock { $0.count })
            }
        }, process: { (i: Int) in log.withLock { $0.append(i) } })
        #expect(order == [1, 2, 3], "outside a pool each item is processed at hand-off: \(order)")
    }

    @Test func aCancelledCallerIsSeenByTheLoop() async throws {
        let pool = ComputePool(threads: 1)
        pool.start()
        defer { pool.stop() }
        let task = Task {
            try await pool.run(lease: .unleased) { (piece: ComputePiece) throws -> Int in
                var spins = 0
                while !piece.isCancelled { spins += 1 }  // a pixel loop's check
                throw CancellationError()
            }
        }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await Deadline.value(of: task, "the cancelled caller's run to end") }
        #expect(try await pool.run(lease: .unleased) { 1 } == 1, "the thread is free again")
    }
}

/// The pool serves leases, not submissions (``ComputeLease``), in process.
@Suite(.timeLimit(.minutes(10)))
struct ComputeLeaseSchedulingTests {
    /// Records which piece of work started, in order, and lets the test wait for the n-th start.
    final class StartLog: Sendable {
        private let names = Mutex<[String]>([])
        let starts: AsyncStream<String>
        private let continuation: AsyncStream<String>.Continuation

        init() { (starts, continuation) = AsyncStream.makeStream() }

        func started(_ name: String) {
            names.withLock { $0.append(name) }
            continuation.yield(name)
        }

        var order: [String] { names.withLock { $0 } }
    }

    /// A gate a piece of work blocks on (on its pool thread) until the test opens it.
    final class Gate: Sendable {
        private let semaphore = DispatchSemaphore(value: 0)
        func wait() { semaphore.wait() }
        func open() { semaphore.signal() }
    }

    @Test func aLeaseWithNothingRunningIsServedBeforeAnotherLeasesQueuedWork() async throws {
        let pool = ComputePool(threads: 2)
        pool.start()
        defer { pool.stop() }
        let log = StartLog()
        var starts = log.starts.makeAsyncIterator()
        let gates = (0..<4).map { _ in Gate() }
        // A batch-like job queues four pieces; two run (one per thread), two wait.
        let batch = Task {
            let job = ComputeJob(pool, lease: ComputeLease(order: 1))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for i in 0..<4 {
                    group.addTask { try await job.run { log.started("A\(i)"); gates[i].wait() } }
                }
                try await group.waitForAll()
            }
        }
        let first = try #require(await starts.next())
        _ = await starts.next()
        try await Deadline.until("the batch's third piece queued, \(pool.activity.queued) queued") { pool.activity.queued >= 2 }
        // A second job arrives with one piece: it must get the next free thread, before the batch's third piece.
        let single = Task {
            try await pool.run(lease: ComputeLease(order: 2)) { log.started("B") }
        }
        try await Deadline.until("B queued behind the batch, \(pool.activity.queued) queued") { pool.activity.queued >= 3 }
        // One thread frees (the other piece stays blocked): B has no thread, the batch has one.
        gates[Int(first.dropFirst())!].open()
        let next = await starts.next()
        #expect(next == "B", "after \(first) ended, \(next ?? "nothing") started; order \(log.order)")
        for gate in gates { gate.open() }
        try await Deadline.value(of: single, "job B to end")
        try await Deadline.value(of: batch, "the batch's four pieces to end")
        let order = log.order
        #expect(order.count == 5 && order[2] == "B", "start order \(order)")
        #expect(pool.activity.peakBusy == 2, "peak \(pool.activity)")
    }

    @Test func amongEqualLeasesTheEarliestAdmittedGoesFirst() async throws {
        let held = await HeldPool()
        defer { held.pool.stop() }
        // Submitted latest-admitted first: a FIFO of submissions would run them C, B, A.
        var jobs: [Task<Void, any Error>] = []
        for (name, order) in [("C", UInt64(3)), ("B", 2), ("A", 1)] {
            jobs.append(try await held.submit(name, order: order))
        }
        try await held.release()
        for job in jobs { try await Deadline.value(of: job, "the submitted jobs to end") }
        let order = held.log.order
        #expect(order == ["blocker", "A", "B", "C"], "start order \(order)")
        #expect(held.pool.activity.peakBusy == 1, "peak \(held.pool.activity)")
    }
}

/// A one-thread pool whose thread a first piece ("blocker") holds until ``release()``, so whatever is submitted
/// meanwhile queues; `log` records the order pieces start in.
final class HeldPool: Sendable {
    let pool = ComputePool(threads: 1)
    let log = ComputeLeaseSchedulingTests.StartLog()
    private let gate = ComputeLeaseSchedulingTests.Gate()
    private let blocker: Task<Void, any Error>

    init() async {
        let (pool, log, gate) = (self.pool, self.log, self.gate)
        pool.start()
        var starts = log.starts.makeAsyncIterator()
        blocker = Task { try await pool.run(lease: .unleased) { log.started("blocker"); gate.wait() } }
        _ = await starts.next()
    }

    /// Submits a piece named `name` as work of a lease of `order` (under `speculation`, if any); returns once it
    /// waits in the queue.
    func submit(_ name: String, order: UInt64, speculation: Speculation? = nil) async throws -> Task<Void, any Error> {
        let (pool, log) = (self.pool, self.log)
        let queued = pool.activity.queued
        let job = Task {
            try await pool.run(lease: ComputeLease(order: order), speculation: speculation) { log.started(name) }
        }
        try await Deadline.until("piece \(name) queued") { pool.activity.queued > queued }
        return job
    }

    /// Lets the blocker end, and waits for it.
    func release() async throws {
        gate.open()
        try await Deadline.value(of: blocker, "the blocker to end once released")
    }
}

/// Speculative work (``Speculation``) on the compute threads, in process.
@Suite(.timeLimit(.minutes(10)))
struct SpeculationSchedulingTests {
    @Test func speculativeWorkWaitsForOrdinaryWorkUntilPromoted() async throws {
        let held = await HeldPool()
        defer { held.pool.stop() }
        let promotedGuess = Speculation()
        // Submitted in this order: a guess, a guess that will be promoted, ordinary work of a later lease.
        let jobs = [try await held.submit("guess", order: 1, speculation: Speculation()),
                    try await held.submit("promoted", order: 1, speculation: promotedGuess),
                    try await held.submit("ordinary", order: 2)]
        promotedGuess.promote()
        try await held.release()
        for job in jobs { try await Deadline.value(of: job, "the submitted jobs to end") }
        let order = held.log.order
        #expect(order == ["blocker", "promoted", "ordinary", "guess"], "start order \(order)")
    }

    @Test func aCancelledPieceStillQueuedAnswersAtOnce() async throws {
        let held = await HeldPool()
        defer { held.pool.stop() }
        let guess = try await held.submit("guess", order: 1, speculation: Speculation())
        guess.cancel()
        // Answered while the only thread is still held: the piece never waited for it.
        await #expect(throws: CancellationError.self) { try await Deadline.value(of: guess, "the cancelled queued piece to answer") }
        #expect(held.pool.activity.queued == 0, "\(held.pool.activity)")
        try await held.release()
        #expect(held.log.order == ["blocker"], "start order \(held.log.order)")
    }
}

/// One piece spread over idle threads (``ComputePiece/forEach(_:_:)``, the piece its body is handed), in process.
@Suite(.timeLimit(.minutes(10)))
struct ComputePoolForEachTests {
    struct Failure: Error {}

    @Test func anIdleThreadHelpsAndEveryIndexRunsOnce() async throws {
        let pool = ComputePool(threads: 2)
        pool.start()
        defer { pool.stop() }
        let count = 64
        let (runs, helped) = try await pool.run(lease: .unleased) { loop throws -> ([Int], Bool) in
            let runs = Mutex([Int](repeating: 0, count: count))
            let secondRan = DispatchSemaphore(value: 0)
            let helped = Mutex(false)
            try loop.forEach(count) { thread, index in
                runs.withLock { $0[index] += 1 }
                if thread > 0 { helped.withLock { $0 = true } }
                // The caller takes index 0 and waits here until another thread has run index 1: only a helper can.
                if index == 1 { secondRan.signal() }
                if index == 0 { _ = secondRan.wait(timeout: .now() + 30) }
            }
            return (runs.withLock { $0 }, helped.withLock { $0 })
        }
        #expect(runs == [Int](repeating: 1, count: count), "runs per index \(runs)")
        #expect(helped, "no helper thread took part")
        #expect(pool.activity.queued == 0, "\(pool.activity)")
    }

    @Test func theErrorIsThrownOnceEveryThreadHasLeftTheBody() async throws {
        let pool = ComputePool(threads: 2)
        pool.start()
        defer { pool.stop() }
        let inside = try await pool.run(lease: .unleased) { loop -> Int in
            let inside = Atomic<Int>(0)
            #expect(throws: Failure.self) {
                try loop.forEach(10_000) { _, index in
                    inside.add(1, ordering: .sequentiallyConsistent)
                    defer { inside.subtract(1, ordering: .sequentiallyConsistent) }
                    if index == 3 { throw Failure() }
                }
            }
            return inside.load(ordering: .sequentiallyConsistent)
        }
        #expect(inside == 0, "\(inside) threads still in the body when forEach threw")
    }

    @Test func inTurnEveryIndexRunsOnTheCallingThread() throws {
        let threads = Mutex(Set<Int>())
        try InTurnLoop().forEach(16) { thread, _ in threads.withLock { _ = $0.insert(thread) } }
        #expect(threads.withLock { $0 } == [0], "threads \(threads.withLock { $0 })")
    }
    /// ``ParallelLoop/both(_:_:)`` on a piece: the two at once (each waits for the other to start, so one after the
    /// other would never return: the wait gives up after 30 s and the test fails), each result where it belongs.
    @Test func bothRunsItsTwoAtOnceOnAPoolAndInTurnElsewhere() async throws {
        let pool = ComputePool(threads: 2)
        pool.start()
        defer { pool.stop() }
        let (a, b) = try await pool.run(lease: .unleased) { loop throws -> (String, Bool) in
            let started = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
            return try loop.both({ () -> String in
                started.0.signal()
                return started.1.wait(timeout: .now() + 30) == .success ? "a" : "b never started"
            }, { () -> Bool in
                started.1.signal()
                return started.0.wait(timeout: .now() + 30) == .success
            })
        }
        #expect(a == "a" && b, "a: \(a), b saw a start: \(b)")
        let order = Mutex([String]())
        let inline = try InTurnLoop().both({ order.withLock { $0.append("a") }; return 1 },
                                          { order.withLock { $0.append("b") }; return "two" })
        #expect(inline == (1, "two") && order.withLock { $0 } == ["a", "b"], "\(inline), order \(order.withLock { $0 })")
        #expect(throws: Failure.self) { _ = try InTurnLoop().both({ throw Failure() }, { 2 }) }
    }
}
