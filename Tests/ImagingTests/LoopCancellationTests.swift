import Compute
import Deadlines
import Synchronization
import Testing
@testable import Imaging

/// Cancellation reaches Imaging's long loops through the loop they are handed (``ParallelLoop/isCancelled``), not
/// through anything the thread holds: a ``ComputePiece`` whose awaiting task is cancelled, on the pool's threads and
/// its helpers, and an ``InTurnLoop`` in a cancelled task. Each body repeats a loop whose own check is the only one
/// until ``repeatsFor`` has passed: it ends before only if that loop saw the cancellation (otherwise the test fails).
/// A time, not a count of rounds: in a full parallel run on two cores the cancel has come after 400 rounds had run.
@Suite(.timeLimit(.minutes(10)))
struct LoopCancellationTests {
    static let repeatsFor: Duration = .seconds(240)

    /// Calls `round` until ``repeatsFor`` has passed and returns how many rounds ran (none ends it early but a throw).
    static func repeated(_ round: () throws -> Void) rethrows -> Int {
        let end = ContinuousClock.now + repeatsFor
        var rounds = 0
        while ContinuousClock.now < end {
            try round()
            rounds += 1
        }
        return rounds
    }

    /// A 400x300 gradient: twelve bands of rows between a resize's checks.
    static let image: Image = {
        var pixels = [UInt8](repeating: 255, count: 400 * 300 * 4)
        for y in 0..<300 {
            for x in 0..<400 {
                let p = (y * 400 + x) * 4
                pixels[p] = UInt8(x * 255 / 399)
                pixels[p + 1] = UInt8(y * 255 / 299)
                pixels[p + 2] = 128
            }
        }
        return Image(width: 400, height: 300, pixels: pixels)
    }()

    /// Runs `work` in a task (`pool`'s piece, or in turn), waits for it to start, cancels the task, and returns how it
    /// ended.
    static func cancelled(on pool: ComputePool?, _ work: @escaping @Sendable (any ParallelLoop) throws -> Int) async throws
        -> Result<Int, any Error>
    {
        let (started, starting) = AsyncStream.makeStream(of: Void.self)
        let task = Task.detached { () throws -> Int in
            guard let pool else {
                starting.yield()
                return try work(InTurnLoop())
            }
            return try await pool.run(lease: .unleased) { (piece: ComputePiece) throws -> Int in
                starting.yield()
                return try work(piece)
            }
        }
        _ = try await Deadline.first(in: started, "the work started", within: Deadline.taskLimit) { _ in true }
        task.cancel()
        return try await Deadline.value(of: Task { await task.result }, "the cancelled work ended")
    }

    static func expectStopped(_ outcome: Result<Int, any Error>, _ what: String) {
        switch outcome {
        case .failure(let error): #expect(error is CancellationError, "\(what) ended with \(error)")
        case .success(let rounds):
            Issue.record("\(what) ran \(rounds) rounds for \(LoopCancellationTests.repeatsFor): its loop never saw the cancellation")
        }
    }

    @Test func aCancelledPieceStopsAResizeRunWithIt() async throws {
        let pool = ComputePool(threads: 2)
        pool.start()
        defer { pool.stop() }
        let image = Self.image
        let outcome = try await Self.cancelled(on: pool) { loop in
            try Self.repeated { _ = try Resampler.resize(image, width: 301, height: 211, on: loop) }
        }
        Self.expectStopped(outcome, "the resize on the cancelled piece")
    }

    /// The feather's bands spread over the piece's helpers: whichever thread runs a band checks the piece it closes
    /// over.
    @Test func aCancelledPieceStopsTheBandsItsHelpersRun() async throws {
        let pool = ComputePool(threads: 2)
        pool.start()
        defer { pool.stop() }
        let mask = (0..<(400 * 300)).map { UInt8($0 % 400 < 200 ? 255 : 0) }
        let outcome = try await Self.cancelled(on: pool) { loop in
            try Self.repeated {
                var values = mask
                try MaskFeather.feather(&values, width: 400, height: 300, sigma: 4, bandRows: 16, on: loop)
            }
        }
        Self.expectStopped(outcome, "the feather on the cancelled piece")
    }

    /// A loop in turn whose cancellation reads false until its `from`-th read, and true from then on: a cancel
    /// that comes in the middle of the work, after the checks before it have passed.
    struct CancelledMidWay: ParallelLoop {
        final class Reads: Sendable {
            let count = Mutex(0)
        }
        let from: Int
        let reads = Reads()

        var width: Int { 1 }
        var isCancelled: Bool { reads.count.withLock { $0 += 1; return $0 >= from } }
        func forEach(_ count: Int, _ body: @escaping @Sendable (_ thread: Int, _ index: Int) throws -> Void) throws {
            try InTurnLoop.inTurn.forEach(count, body)
        }
    }

    /// A PNG under the pieces' limit (one check before its one deflate, in turn) and one over it (streamed through
    /// zlib row by row, checked every 16 rows: a 19 MP photo's encode ran 1-2 s past a cancel before): a cancel at
    /// any of its checks, the first, the middle one or the last, stops the encode there, as cancelled.
    @Test(arguments: [(600, 1), (1600, 100)])
    func aCancelAtAnyCheckStopsAPNGsEncode(side: Int, leastChecks: Int) throws {
        var random = SplitMix64(seed: 3)
        let image = Image(width: side, height: side, pixels: (0..<(side * side * 4)).map { _ in UInt8(random.next() % 256) })
        func encode(on loop: CancelledMidWay) -> String {
            do {
                return "wrote \(try ImageCodec.encodePNG(image, compressionLevel: 1, on: loop).count) bytes"
            } catch is CancellationError {
                return "cancelled"
            } catch {
                return "\(error)"
            }
        }
        // How many times the whole encode asks.
        let counting = CancelledMidWay(from: .max)
        let whole = encode(on: counting)
        let checks = counting.reads.count.withLock { $0 }
        #expect(whole.hasPrefix("wrote"), "\(whole)")
        #expect(checks >= leastChecks, "the encode of a \(side)x\(side) image asked \(checks) times")
        for from in Set([1, max(1, checks / 2), checks]).sorted() {
            let loop = CancelledMidWay(from: from)
            let outcome = encode(on: loop)
            let asked = loop.reads.count.withLock { $0 }
            // The check that saw the cancel, and at most one more on the way out (the Swift side's, after C's).
            #expect(outcome == "cancelled" && asked <= from + 1,
                    "cancelled at check \(from) of \(checks): \(outcome), after \(asked) checks")
        }
    }

    @Test func anInTurnLoopInACancelledTaskStopsABlur() async throws {
        let image = Self.image
        let outcome = try await Self.cancelled(on: nil) { loop in
            try Self.repeated { _ = try image.applying([ImageEffect.blur(radius: 3)], on: loop) }
        }
        Self.expectStopped(outcome, "the blur in the cancelled task")
    }
}
