import Deadlines
import JSONRPC
@testable import PhotoWorker
import Synchronization
import Testing

/// The worker keeps its memory while jobs follow each other (a job's start cancels the idle timer) and hands it back
/// once it has been idle.
@Suite(.timeLimit(.minutes(10)))
struct IdleMemoryReleaseTests {
    @Test func memoryGoesBackOnlyAfterAStretchWithoutJobs() async throws {
        let timers = ManualTimers()
        let releases = Mutex(0)
        let idle = IdleMemoryRelease(after: .seconds(5), timers: timers) { releases.withLock { $0 += 1 } }
        await idle.job {}
        #expect(timers.count == 1, "the first job's end arms one timer, got \(timers.count)")
        // A second job starts before the first one's timer fires: that timer must not release.
        let (started, startedContinuation) = AsyncStream.makeStream(of: Void.self)
        let (finish, finishContinuation) = AsyncStream.makeStream(of: Void.self)
        let second = Task {
            await idle.job {
                startedContinuation.yield()
                for await _ in finish { break }
            }
        }
        for await _ in started { break }
        #expect(timers.count == 0, "the job's start cancels the idle timer, not left to fire: \(timers.count) pending")
        timers.fireAll()
        #expect(releases.withLock { $0 } == 0, "released while a job was running")
        finishContinuation.yield()
        try await Deadline.value(of: second, "the second job to end")
        #expect(timers.count == 1, "the second job's end arms its own timer, got \(timers.count)")
        timers.fireOldest()
        #expect(releases.withLock { $0 } == 1, "released \(releases.withLock { $0 }) times after the idle stretch")
    }
}
