import Imaging
import Testing

/// The compute threads' lifecycle and cancellation, in process.
struct ComputePoolTests {
    @Test func runsWorkAndRefusesItAfterStop() async throws {
        let pool = ComputePool(threads: 2)
        pool.start()
        #expect(try await pool.run { 6 * 7 } == 42)
        pool.stop()
        await #expect(throws: CancellationError.self) { try await pool.run { 1 } }
    }

    @Test func aCancelledCallerIsSeenByTheLoop() async throws {
        let pool = ComputePool(threads: 1)
        pool.start()
        defer { pool.stop() }
        let task = Task {
            try await pool.run { () throws -> Int in
                var spins = 0
                while !Cancellation.isRequested { spins += 1 }  // a pixel loop's check
                throw CancellationError()
            }
        }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(try await pool.run { 1 } == 1, "the thread is free again")
    }
}
