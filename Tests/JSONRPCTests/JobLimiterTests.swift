import Deadlines
@testable import JSONRPC
import JSONRPCTransport
import Synchronization
import Testing

@MainActor
@Suite(.timeLimit(.minutes(10)))
struct JobLimiterTests {
    final class Order: Sendable {
        let values = Mutex<[Int]>([])
    }

    @Test func waitersAreServedInFIFOOrder() async throws {
        let limiter = JobLimiter(slots: 1)
        let held = try await limiter.acquire()
        let order = Order()
        let (started, startedCont) = AsyncStream.makeStream(of: Int.self)
        var tasks: [Task<Void, any Error>] = []
        for i in 0..<5 {
            tasks.append(Task {
                startedCont.yield(i)
                let ticket = try await limiter.acquire()
                order.values.withLock { $0.append(i) }
                limiter.release(ticket)
            })
            // Make sure waiter i is queued before i+1 is created.
            var it = started.makeAsyncIterator()
            _ = await it.next()
            try await Deadline.until("waiter \(i) in line, \(limiter.waiting) in line") { limiter.waiting >= i + 1 }
        }
        limiter.release(held)
        for t in tasks { try await Deadline.value(of: t, "a waiter to get and give back its slot") }
        #expect(order.values.withLock { $0 } == [0, 1, 2, 3, 4])
    }

    @Test func cancelledWaiterLeavesTheQueue() async throws {
        let limiter = JobLimiter(slots: 1)
        let held = try await limiter.acquire()
        let waiter = Task { _ = try await limiter.acquire() }
        try await Deadline.until("the waiter in line") { limiter.waiting > 0 }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await Deadline.value(of: waiter, "the cancelled waiter to leave") }
        #expect(limiter.waiting == 0)
        limiter.release(held)
        // The slot was not lost to the cancelled waiter.
        _ = try await limiter.acquire()
    }

    /// The FIFO is the order tickets were taken (admission), not the order tasks reach `acquire`:
    /// the second ticket arriving first with a free slot still waits for the first.
    @Test func ticketsAreServedInTheOrderTakenNotTheOrderTheyArrive() async throws {
        let limiter = JobLimiter(slots: 1)
        let first = limiter.enqueue(), second = limiter.enqueue()
        let order = Order()
        let late = Task {
            try await limiter.acquire(second)
            order.values.withLock { $0.append(2) }
            limiter.release(second)
        }
        try await Deadline.until("the late ticket's task parked") { limiter.arrived > 0 }
        #expect(order.values.withLock { $0 }.isEmpty)  // the free slot is kept for the first ticket
        try await limiter.acquire(first)
        order.values.withLock { $0.append(1) }
        limiter.release(first)
        try await Deadline.value(of: late, "the late ticket's slot")
        #expect(order.values.withLock { $0 } == [1, 2])
        #expect(limiter.waiting == 0)
    }

    /// A ticket whose task is cancelled gives up its place, or the slot already kept for it.
    @Test func cancelledTicketGivesUpItsKeptSlot() async throws {
        let limiter = JobLimiter(slots: 1)
        let first = limiter.enqueue(), second = limiter.enqueue()
        let late = Task { try await limiter.acquire(second) }
        try await Deadline.until("the second ticket's task parked") { limiter.arrived > 0 }  // the slot is now kept for `first`
        let cancelled = Task {
            while !Task.isCancelled { await Task.yield() }
            try await limiter.acquire(first)
        }
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await Deadline.value(of: cancelled, "the cancelled ticket to give up") }
        try await Deadline.value(of: late, "the late ticket to get the slot given back")  // got the slot `first` gave back
        #expect(limiter.waiting == 0)
        limiter.release(second)
    }

    @Test func cancelledTicketStillInLineIsSkipped() async throws {
        let limiter = JobLimiter(slots: 1)
        let held = try await limiter.acquire()
        let first = limiter.enqueue(), second = limiter.enqueue()
        let cancelled = Task {
            while !Task.isCancelled { await Task.yield() }
            try await limiter.acquire(first)
        }
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await Deadline.value(of: cancelled, "the cancelled ticket to give up") }
        #expect(limiter.waiting == 1)
        let late = Task { try await limiter.acquire(second) }
        try await Deadline.until("the late ticket's task parked") { limiter.arrived > 0 }
        limiter.release(held)
        try await Deadline.value(of: late, "the late ticket's slot")
        #expect(limiter.waiting == 0)
    }

    /// A job waiting for memory that is cancelled leaves the line, and what waited behind it starts; the budget is
    /// told what the running jobs hold.
    @Test func cancelWhileWaitingForMemoryFreesItsPlace() async throws {
        let budget = MemoryBudget(bytes: 100, origin: "test")
        let limiter = JobLimiter(slots: 4, memory: budget)
        let running = limiter.enqueue(bytes: 70)
        try await limiter.acquire(running)
        #expect(budget.reservedBytes == 70)
        let large = limiter.enqueue(bytes: 60)
        #expect(limiter.waitsForMemory(large))
        #expect(limiter.waitingForMemory == 1)
        let waiter = Task { try await limiter.acquire(large) }
        try await Deadline.until("the large job's task parked, \(limiter.arrived) parked") { limiter.arrived > 0 }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await Deadline.value(of: waiter, "the cancelled memory waiter to leave") }
        #expect(limiter.waitingForMemory == 0, "still waiting: \(limiter.waitingForMemory)")
        let small = limiter.enqueue(bytes: 30)
        try await limiter.acquire(small)  // granted at once: 70 + 30 fits
        #expect(budget.reservedBytes == 100)
        limiter.release(small)
        limiter.release(running)
        #expect(budget.reservedBytes == 0)
    }

    /// A ticket taken before its bytes are known waits for them; one given up leaves the line.
    @Test func aTicketWaitsForItsEstimateAndCanBeGivenUp() async throws {
        let budget = MemoryBudget(bytes: 100, origin: "test")
        let limiter = JobLimiter(slots: 2, memory: budget)
        let pending = limiter.enqueue(bytes: nil)
        let waiter = Task { try await limiter.acquire(pending) }
        try await Deadline.until("the pending ticket's task parked") { limiter.arrived > 0 }
        #expect(!limiter.waitsForMemory(pending))
        limiter.estimate(pending, bytes: 40)
        try await Deadline.value(of: waiter, "the waiter to get its estimate's memory")
        #expect(budget.reservedBytes == 40)
        let abandoned = limiter.enqueue(bytes: nil)
        limiter.giveUp(abandoned)
        #expect(limiter.waiting == 0, "\(limiter.waiting) still in line")
        let next = limiter.enqueue(bytes: 60)
        try await limiter.acquire(next)  // the slot the abandoned ticket did not keep
        #expect(budget.reservedBytes == 100)
        limiter.release(next)
        limiter.release(pending)
    }

    /// Holders outside jobs are asked to fit in what running jobs leave, when jobs start.
    @Test func aStartingJobTrimsTheHolders() async throws {
        let budget = MemoryBudget(bytes: 100, origin: "test")
        let held = Order()
        held.values.withLock { $0 = [80] }
        budget.register(MemoryBudget.Holder(name: "cache", held: { held.values.withLock { $0[0] } },
                                            trim: { atMost in held.values.withLock { $0[0] = min($0[0], atMost) } }))
        let limiter = JobLimiter(slots: 2, memory: budget)
        let job = limiter.enqueue(bytes: 60)
        try await limiter.acquire(job)
        #expect(held.values.withLock { $0[0] } == 40, "the cache kept \(held.values.withLock { $0[0] }) of 100 - 60")
        #expect(budget.heldBytes == ["cache": 40])
        limiter.release(job)
    }
}
