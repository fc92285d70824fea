@testable import Compute
import Deadlines
import Synchronization
import Testing

/// ``StageRunner``: the same stages give the same results whichever runner runs them; a concurrent runner runs a
/// pair's stages at the same time, an inline one in the order named; a guess not needed is never part of the result.
@Suite(.timeLimit(.minutes(10)))
struct StageRunnerTests {
    final class Log: Sendable {
        private let entries = Mutex<[String]>([])
        func add(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }
    }

    @Test("A pair in turn runs its stages in the order named; at once, each stage sees the other running")
    func pairs() async throws {
        let inline = Log()
        let r = try await InlineStages().pair({ inline.add("a"); return 1 }, { inline.add("b"); return "two" })
        #expect(r.0 == 1 && r.1 == "two" && inline.all == ["a", "b"], "\(r), \(inline.all)")

        let pool = ComputePool(threads: 2)
        pool.start()
        defer { pool.stop() }
        let inTurn = Log()
        let s = try await PoolStages(ComputeJob(pool, lease: .unleased), concurrent: false).pair({
            try await PoolStages(ComputeJob(pool, lease: .unleased)).stage { inTurn.add("a"); return 1 }
        }, {
            try await PoolStages(ComputeJob(pool, lease: .unleased)).stage { inTurn.add("b"); return 2 }
        })
        #expect(s == (1, 2) && inTurn.all == ["a", "b"], "\(s), \(inTurn.all)")

        // At once: `a` finishes only after `b` has started, which a runner in turn could never do (it would wait for
        // the deadline and fail).
        let bStarted = Mutex(false)
        let atOnce = try await PoolStages(ComputeJob(pool, lease: .unleased)).pair({
            try await Deadline.until("the pair's second stage to start beside the first") { bStarted.withLock { $0 } }
            return "a"
        }, {
            bStarted.withLock { $0 = true }
            return "b"
        })
        #expect(atOnce == ("a", "b"), "\(atOnce)")
    }

    @Test("A guess is kept only when needed, whichever runner runs it")
    func speculation() async throws {
        let pool = ComputePool(threads: 2)
        pool.start()
        defer { pool.stop() }
        let runners: [(String, any StageRunner)] = [("inline", InlineStages()), ("in turn", PoolStages(ComputeJob(pool, lease: .unleased), concurrent: false)),
                                                    ("at once", PoolStages(ComputeJob(pool, lease: .unleased)))]
        for (name, runner) in runners {
            let guesses = Log()
            let kept = try await runner.speculate({ _ in 5 }, then: { _ in guesses.add("guess"); return "guess" }, if: { $0 > 3 })
            #expect(kept.0 == 5 && kept.1 == "guess", "\(name): \(kept)")
            let dropped = try await runner.speculate({ _ in 1 }, then: { _ in guesses.add("guess"); return "guess" }, if: { $0 > 3 })
            #expect(dropped.0 == 1 && dropped.1 == nil, "\(name): \(dropped)")
            if name != "at once" {
                #expect(guesses.all == ["guess"], "\(name): a guess not needed was run in turn: \(guesses.all)")
            }
        }
    }

    @Test("Inside a stage, both in turn run in the order named and a guess not needed is not made; at once, each sees the other running")
    func bothInsideAStage() async throws {
        let pool = ComputePool(threads: 2)
        pool.start()
        defer { pool.stop() }
        let runners: [(String, any StageRunner)] = [("inline", InlineStages()), ("in turn", PoolStages(ComputeJob(pool, lease: .unleased), concurrent: false)),
                                                    ("at once", PoolStages(ComputeJob(pool, lease: .unleased)))]
        for (name, runner) in runners {
            let log = Log()
            let pair = try await runner.stage { loop in try loop.both({ log.add("a"); return 1 }, { log.add("b"); return "two" }) }
            #expect(pair.0 == 1 && pair.1 == "two", "\(name): \(pair)")
            let kept = try await runner.stage { loop in try loop.both({ 5 }, then: { log.add("guess"); return 2 }, if: { $0 > 3 }) }
            let dropped = try await runner.stage { loop in try loop.both({ 1 }, then: { log.add("guess"); return 2 }, if: { $0 > 3 }) }
            #expect(kept.0 == 5 && kept.1 == 2 && dropped.0 == 1 && dropped.1 == nil, "\(name): \(kept), \(dropped)")
            if name != "at once" {
                #expect(log.all == ["a", "b", "guess"], "\(name): \(log.all)")
            }
        }
        // At once: `a` finishes only after `b` has started (the stage's thread runs `a`, the idle one `b`).
        let bStarted = Atomic<Bool>(false)
        let atOnce = try await PoolStages(ComputeJob(pool, lease: .unleased)).stage { loop in
            try loop.both({
                let deadline = ContinuousClock.now + .seconds(60)
                while !bStarted.load(ordering: .acquiring) {
                    guard ContinuousClock.now < deadline else { return "a alone" }
                }
                return "a"
            }, {
                bStarted.store(true, ordering: .releasing)
                return "b"
            })
        }
        #expect(atOnce == ("a", "b"), "\(atOnce)")
    }

    @Test("Spare memory is handed back by runners in turn, left for reuse by one at once")
    func spareMemory() {
        let pool = ComputePool(threads: 2)
        let runners: [(String, any StageRunner, Bool)] = [("inline", InlineStages(), true),
                                                          ("in turn", PoolStages(ComputeJob(pool, lease: .unleased), concurrent: false), true),
                                                          ("at once", PoolStages(ComputeJob(pool, lease: .unleased)), false)]
        for (name, runner, handsBack) in runners {
            var handed = false
            runner.handBackSpareMemory { handed = true }
            #expect(handed == handsBack, "\(name): handed back \(handed)")
        }
    }

    @Test("An inline loop calls every index on thread 0; a pool's loop covers every index once")
    func loops() async throws {
        let seen = Log()
        try await InlineStages().stage { loop in try loop.forEach(5) { thread, index in seen.add("\(thread):\(index)") } }
        #expect(seen.all == ["0:0", "0:1", "0:2", "0:3", "0:4"], "\(seen.all)")

        let pool = ComputePool(threads: 2)
        pool.start()
        defer { pool.stop() }
        let stages = PoolStages(ComputeJob(pool, lease: .unleased))
        let indices = try await stages.stage { loop -> [Int] in
            #expect(loop.width == 2, "width \(loop.width)")
            let got = Mutex<[Int]>([])
            try loop.forEach(64) { _, index in got.withLock { $0.append(index) } }
            return got.withLock { $0 }.sorted()
        }
        #expect(indices == Array(0..<64), "indices covered: \(indices.count)")
    }
}
