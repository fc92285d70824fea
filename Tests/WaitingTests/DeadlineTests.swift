import Deadlines
import Glibc
import Synchronization
import Testing

/// `Deadline`'s waits for a task and for a body: what they wait for comes through (a value, or the error thrown),
/// and a wait that never ends fails, naming what it waited for, once its limit passes.
@Suite(.timeLimit(.minutes(10)))
struct DeadlineTests {
    struct Refused: Error, Equatable {}

    @Test func aThrowingTasksValueAndErrorComeThrough() async throws {
        #expect(try await Deadline.value(of: Task { () throws -> Int in 7 }, "a task that returns") == 7)
        await #expect(throws: Refused()) {
            try await Deadline.value(of: Task { () throws -> Int in throw Refused() }, "a task that throws")
        }
        #expect(try await Deadline.run("a body that returns") { 8 } == 8)
        await #expect(throws: Refused()) { try await Deadline.run("a body that throws") { () throws -> Int in throw Refused() } }
    }

    @Test func aWaitThatNeverEndsFailsNamingWhatItWaitedFor() async throws {
        let (never, end) = AsyncStream.makeStream(of: Int.self)
        defer { end.finish() }  // lets the hung task and body end once the test is done with them
        let hung = Task { () throws -> Int in
            for await _ in never {}
            return 0
        }
        do {
            _ = try await Deadline.value(of: hung, "the hung task", within: .milliseconds(20))
            Issue.record("the hung task's wait returned")
        } catch let passed as Deadline.Passed {
            #expect(passed.description.hasSuffix("for the hung task"), "\(passed)")
        }
        do {
            _ = try await Deadline.run("the hung body", within: .milliseconds(20)) {
                for await _ in never {}
                return 0
            }
            Issue.record("the hung body's wait returned")
        } catch let passed as Deadline.Passed {
            #expect(passed.description.hasSuffix("for the hung body"), "\(passed)")
        }
    }

    /// A wait that was not run for longer than its limit (its thread held: here by its own first check) gets its
    /// time back: the next check, which holds, ends it. Before, the first look after the stall failed it.
    @Test func timeTheWaitWasNotRunDoesNotCountAgainstIt() async throws {
        let looks = Mutex(0)
        try await Deadline.until("the second look", within: .milliseconds(100)) {
            let look = looks.withLock { $0 += 1; return $0 }
            if look == 1 {
                let held = Deadline.stall * 2
                usleep(UInt32(held.components.seconds * 1_000_000 + held.components.attoseconds / 1_000_000_000_000))
            }
            return look == 2
        }
        #expect(looks.withLock { $0 } == 2)
    }
}
