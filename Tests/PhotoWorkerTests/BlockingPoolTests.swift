import Deadlines
import Foundation
@testable import PhotoWorker
import Synchronization
import Testing

/// The blocking pool: bounded threads started as work comes, cancellation before a body starts, threads that end
/// when it stops.
@Suite(.timeLimit(.minutes(10)))
struct BlockingPoolTests {
    /// A gate a blocking body waits on (a semaphore: the body runs on a pool thread, not a task).
    final class Gate: Sendable {
        let semaphore = DispatchSemaphore(value: 0)
        let entered = Atomic<Int>(0)
        func pass() {
            entered.add(1, ordering: .relaxed)
            semaphore.wait()
        }
        func open(_ count: Int) { for _ in 0..<count { semaphore.signal() } }
    }

    @Test func atMostItsThreadsRunAndTheRestWaitInLine() async throws {
        let pool = BlockingPool(threads: 2, name: "bp-bound")
        defer { pool.stop() }
        let gate = Gate()
        let calls = (0..<5).map { i in Task { try await pool.run { gate.pass(); return i } } }
        try await Deadline.until("two bodies running, \(gate.entered.load(ordering: .relaxed)) so far") {
            gate.entered.load(ordering: .relaxed) == 2
        }
        #expect(pool.threadCount == 2)
        gate.open(5)
        var results: [Int] = []
        for call in calls { results.append(try await Deadline.value(of: call, "a pool call to end")) }
        #expect(results == [0, 1, 2, 3, 4])
        #expect(pool.threadCount == 2, "no more threads than its bound")
    }

    @Test func aCallCancelledBeforeItsBodyStartsNeverRunsIt() async throws {
        let pool = BlockingPool(threads: 1, name: "bp-cancel")
        defer { pool.stop() }
        let gate = Gate()
        let blocker = Task { try await pool.run { gate.pass() } }
        try await Deadline.until("the blocker running") { gate.entered.load(ordering: .relaxed) == 1 }
        let ran = Atomic<Bool>(false)
        let queued = Task { try await pool.run { ran.store(true, ordering: .relaxed) } }
        queued.cancel()
        await #expect(throws: CancellationError.self) { try await Deadline.value(of: queued, "the cancelled queued call") }  // while the one thread is held
        gate.open(1)
        try await Deadline.value(of: blocker, "the blocker call to end")
        try await pool.run {}  // the line has moved past the dropped call
        let bodyRan = ran.load(ordering: .relaxed)
        #expect(!bodyRan, "the cancelled call's body ran")
    }

    @Test func aStartedBodyRunsToItsEndAndHearsTheCancel() async throws {
        let pool = BlockingPool(threads: 1, name: "bp-started")
        defer { pool.stop() }
        let gate = Gate()
        let heard = Atomic<Bool>(false)
        let call = Task { try await pool.run({ gate.pass(); return 7 }, onCancel: { heard.store(true, ordering: .relaxed); gate.open(1) }) }
        try await Deadline.until("the body running") { gate.entered.load(ordering: .relaxed) == 1 }
        call.cancel()
        #expect(try await Deadline.value(of: call, "the started body to end") == 7)
        let toldToStop = heard.load(ordering: .relaxed)
        #expect(toldToStop)
    }

    /// A body on the pool's thread (no task's) hears its caller's cancel through the loop it is handed: before, a
    /// write there polled `Task.isCancelled`, which no cancel reaches on that thread, so it always renamed.
    @Test func aBodyHandedItsLoopSeesTheCallersCancel() async throws {
        let pool = BlockingPool(threads: 1, name: "bp-polling")
        defer { pool.stop() }
        let entered = Atomic<Bool>(false)
        let call = Task {
            try await pool.run(polling: { loop -> Int in
                entered.store(true, ordering: .relaxed)
                var spins = 0
                // Bounded: a loop that never sees the cancel ends the test with the count, not a hang.
                let end = ContinuousClock.now + .seconds(240)
                while !loop.isCancelled && ContinuousClock.now < end { spins += 1 }
                try loop.checkCancellation()
                return spins
            })
        }
        try await Deadline.until("the body running") { entered.load(ordering: .relaxed) }
        call.cancel()
        do {
            let spins = try await Deadline.value(of: call, "the polling body to end")
            Issue.record("the body never saw the cancel: \(spins) spins in 240 s")
        } catch {
            #expect(error is CancellationError, "the body ended with \(error)")
        }
    }

    @Test func itsThreadsEndWhenItStops() async throws {
        let pool = BlockingPool(threads: 3, name: "bp-stop")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<6 { group.addTask { try await pool.run { _ = usleep(1000) } } }
            try await group.waitForAll()
        }
        #expect(pool.threadCount >= 1 && pool.threadCount <= 3, "\(pool.threadCount)")
        #expect(!ThreadCensus.named("bp-stop").isEmpty)
        pool.stop()
        try await Deadline.until("the pool's threads to end: \(ThreadCensus.named("bp-stop"))") {
            ThreadCensus.named("bp-stop").isEmpty
        }
        await #expect(throws: CancellationError.self) { try await pool.run {} }
    }
}
