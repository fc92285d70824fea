import Compute
import Testing

/// A guess waits for its gate without holding anything, starts when it opens, and stops waiting when cancelled.
struct SpeculationGateTests {
    @Test func aWaiterStartsWhenTheGateOpens() async throws {
        let gate = SpeculationGate()
        let (waiting, waitingContinuation) = AsyncStream.makeStream(of: Void.self)
        let waiter = Task {
            waitingContinuation.yield()
            try await gate.wait()
            return gate.isOpen
        }
        for await _ in waiting { break }
        #expect(!gate.isOpen)
        gate.open()
        let sawOpen = try await waiter.value
        #expect(sawOpen, "the waiter returned before the gate opened")
        try await gate.wait()  // an open gate lets every later waiter through at once
    }

    @Test func aCancelledWaiterStopsWaiting() async {
        let gate = SpeculationGate()
        let waiter = Task { try await gate.wait() }
        waiter.cancel()
        let result = await waiter.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(!gate.isOpen, "a cancelled waiter opened the gate for the others")
    }
}
