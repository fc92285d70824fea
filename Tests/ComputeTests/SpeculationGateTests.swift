import Compute
import Synchronization
import Testing

/// A guess waits for its gate without holding anything, starts when it opens, and stops waiting when cancelled.
@Suite(.timeLimit(.minutes(10)))
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

/// A gate is the scheduler's, applied by the runner: `speculate` under ``SpeculationGate/current`` holds its guess
/// until the gate opens, opens it when the guess is needed, and passes no gate to the stages inside.
@Suite(.timeLimit(.minutes(10)))
struct GatedSpeculationTests {
    final class Runs: Sendable {
        private let state = Mutex<(guesses: Int, gateSeenInside: Bool)>((0, false))
        func guessed() { state.withLock { $0.guesses += 1 } }
        func sawGate(_ gate: SpeculationGate?) { if gate != nil { state.withLock { $0.gateSeenInside = true } } }
        var guesses: Int { state.withLock { $0.guesses } }
        var gateSeenInside: Bool { state.withLock { $0.gateSeenInside } }
    }

    @Test func aNeededGuessOpensTheGateAndRuns() async throws {
        let pool = ComputePool(threads: 2)
        pool.start()
        defer { pool.stop() }
        let gate = SpeculationGate(), runs = Runs()
        let (first, guess) = try await SpeculationGate.$current.withValue(gate) {
            try await PoolStages(pool).speculate({
                runs.sawGate(SpeculationGate.current)
                return 1
            }, then: {
                runs.sawGate(SpeculationGate.current)
                runs.guessed()
                return 2
            }, if: { _ in true })
        }
        #expect(first == 1 && guess == 2, "got \(first), \(String(describing: guess))")
        #expect(gate.isOpen, "a needed guess left its gate closed")
        #expect(!runs.gateSeenInside, "the stages inside saw the gate")
    }

    @Test func anUnneededGuessBehindAClosedGateNeverRuns() async throws {
        let pool = ComputePool(threads: 2)
        pool.start()
        defer { pool.stop() }
        let gate = SpeculationGate(), runs = Runs()
        let (first, guess) = try await SpeculationGate.$current.withValue(gate) {
            try await PoolStages(pool).speculate({
                // Time for an ungated guess to start on the idle thread.
                for _ in 0..<1000 { await Task.yield() }
                return 1
            }, then: {
                runs.guessed()
                return 2
            }, if: { _ in false })
        }
        #expect(first == 1 && guess == nil, "got \(first), \(String(describing: guess))")
        #expect(runs.guesses == 0, "the guess ran behind a closed gate")
        #expect(!gate.isOpen)
    }
}
