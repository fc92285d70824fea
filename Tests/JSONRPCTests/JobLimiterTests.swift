@testable import JSONRPC
import Synchronization
import Testing

struct JobLimiterTests {
    final class Order: Sendable {
        let values = Mutex<[Int]>([])
    }

    @Test func waitersAreServedInFIFOOrder() async throws {
        let limiter = JobLimiter(slots: 1)
        try await limiter.acquire()
        let order = Order()
        let (started, startedCont) = AsyncStream.makeStream(of: Int.self)
        var tasks: [Task<Void, any Error>] = []
        for i in 0..<5 {
            tasks.append(Task {
                startedCont.yield(i)
                try await limiter.acquire()
                order.values.withLock { $0.append(i) }
                limiter.release()
            })
            // Make sure waiter i is queued before i+1 is created.
            var it = started.makeAsyncIterator()
            _ = await it.next()
            while limiter.waiting < i + 1 { await Task.yield() }
        }
        limiter.release()
        for t in tasks { try await t.value }
        #expect(order.values.withLock { $0 } == [0, 1, 2, 3, 4])
    }

    @Test func cancelledWaiterLeavesTheQueue() async throws {
        let limiter = JobLimiter(slots: 1)
        try await limiter.acquire()
        let waiter = Task { try await limiter.acquire() }
        while limiter.waiting == 0 { await Task.yield() }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(limiter.waiting == 0)
        limiter.release()
        // The slot was not lost to the cancelled waiter.
        try await limiter.acquire()
    }
}
