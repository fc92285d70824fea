@testable import Compute
import Deadlines
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
        let sawOpen = try await Deadline.value(of: waiter, "the waiter to start once the gate opens")
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

/// A gate is the scheduler's, given to the runner explicitly: a runner made with a gate holds its guess until the
/// gate opens (submitting nothing to the pool meanwhile), opens it when the guess is needed, and hands `a` and `b`
/// runners without it; the guess's runner submits its stages as a speculation.
@Suite(.timeLimit(.minutes(10)))
struct GatedSpeculationTests {
    final class Runs: Sendable {
        private let state = Mutex<(guesses: Int, gateSeenInside: Bool, guessSpeculative: Bool)>((0, false, false))
        func guessed() { state.withLock { $0.guesses += 1 } }
        func sawGate(_ gate: SpeculationGate?) { if gate != nil { state.withLock { $0.gateSeenInside = true } } }
        func guessRan(on runner: PoolStages) { state.withLock { $0.guessSpeculative = runner.speculation != nil } }
        var guesses: Int { state.withLock { $0.guesses } }
        var gateSeenInside: Bool { state.withLock { $0.gateSeenInside } }
        var guessSpeculative: Bool { state.withLock { $0.guessSpeculative } }
    }

    @Test func aNeededGuessOpensTheGateAndRuns() async throws {
        let pool = ComputePool(threads: 2)
        pool.start()
        defer { pool.stop() }
        let gate = SpeculationGate(), runs = Runs()
        let stages = PoolStages(ComputeJob(pool, lease: .unleased), gate: gate)
        let (first, guess) = try await stages.speculate({ inside in
            runs.sawGate(inside.gate)
            return try await inside.stage { 1 }
        }, then: { guessing in
            runs.sawGate(guessing.gate)
            runs.guessRan(on: guessing)
            return try await guessing.stage { runs.guessed(); return 2 }
        }, if: { _ in true })
        #expect(first == 1 && guess == 2, "got \(first), \(String(describing: guess))")
        #expect(gate.isOpen, "a needed guess left its gate closed")
        #expect(!runs.gateSeenInside, "the runners inside had the gate")
        #expect(runs.guessSpeculative, "the guess's runner did not submit its stages as a speculation")
    }

    @Test func anUnneededGuessBehindAClosedGateSubmitsNothing() async throws {
        let pool = ComputePool(threads: 2)
        pool.start()
        defer { pool.stop() }
        let gate = SpeculationGate(), runs = Runs()
        let stages = PoolStages(ComputeJob(pool, lease: .unleased), gate: gate)
        let (first, guess) = try await stages.speculate({ inside in
            // Time for an ungated guess to submit its stage and start on the idle thread.
            for _ in 0..<1000 { await Task.yield() }
            let queued = pool.activity.queued + pool.activity.busy
            return try await inside.stage { queued }
        }, then: { guessing in
            try await guessing.stage { runs.guessed(); return 2 }
        }, if: { _ in false })
        #expect(first == 0 && guess == nil, "got \(first) pieces submitted besides, guess \(String(describing: guess))")
        #expect(runs.guesses == 0, "the guess ran behind a closed gate")
        #expect(!gate.isOpen)
    }

    @Test func aRunnerWithoutAGateStartsItsGuessAtOnce() async throws {
        let pool = ComputePool(threads: 2)
        pool.start()
        defer { pool.stop() }
        let runs = Runs()
        let stages = PoolStages(ComputeJob(pool, lease: .unleased))
        let (first, guess) = try await stages.speculate({ inside in
            try await Deadline.until("the ungated guess to run beside") { runs.guesses > 0 }
            return try await inside.stage { 1 }
        }, then: { guessing in
            try await guessing.stage { runs.guessed(); return 2 }
        }, if: { _ in true })
        #expect(first == 1 && guess == 2, "got \(first), \(String(describing: guess))")
    }
}
