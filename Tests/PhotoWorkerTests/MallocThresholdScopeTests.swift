import Deadlines
@testable import PhotoWorker
import Synchronization
import Testing

/// Motion jobs' malloc thresholds: in force from the first job's start to the last one's end, however they end.
@Suite(.timeLimit(.minutes(10)))
struct MallocThresholdScopeTests {
    private struct Failed: Error {}

    @Test func overlappingJobsChangeTheThresholdsOnceEachWayEvenWhenOneThrows() async throws {
        let applied = Mutex<[Int]>([])
        let scope = MallocThresholdScope(inside: (mmap: 1, trim: 10), after: (mmap: 2, trim: 20)) { thresholds in
            applied.withLock { $0.append(thresholds.mmap) }
        }
        let (release, releaser) = AsyncStream<Void>.makeStream()
        let entered = Atomic(false)
        let long = Task {
            try await scope.during {
                entered.store(true, ordering: .releasing)
                for await _ in release { break }
            }
        }
        try await Deadline.until("the first job inside the scope") { entered.load(ordering: .acquiring) }
        await #expect(throws: Failed.self) { try await scope.during { throw Failed() } }
        #expect(applied.withLock { $0 } == [1], "a job ending while another runs keeps the thresholds")
        releaser.yield()
        try await Deadline.value(of: long, "the long job to end")
        #expect(applied.withLock { $0 } == [1, 2], "the last job's end restores them")
        _ = try? await scope.during { throw Failed() }
        #expect(applied.withLock { $0 } == [1, 2, 1, 2], "a lone job that throws: in, then back")
    }
}
