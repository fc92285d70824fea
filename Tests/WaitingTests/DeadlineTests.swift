import Deadlines
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

    /// A wait that was not run for longer than its limit (a pause between checks that came back late: here a
    /// slow pause stands in for a stalled pool) gets that time back and looks on until a check holds. Before, the
    /// first check after the stall failed it.
    @Test func timeTheWaitWasNotRunDoesNotCountAgainstIt() async throws {
        // The second look comes after the limit (one stalled pause); the third, after another, holds.
        var looks = 0
        // An allowance past the suite's limit: in a full parallel run a pause of a second has come back a minute late.
        try await Deadline.until("the third look", within: .milliseconds(400), allowing: .seconds(3600),
                                 pausing: { _ in try await Task.sleep(for: Deadline.stall * 2) }) {
            looks += 1
            return looks == 3
        }
        #expect(looks == 3)
    }

    /// The allowance is a bound: a wait stalled at every pause and never satisfied still fails, once its limit and
    /// the allowance have passed, and says how long it was not run.
    @Test func stallsMoveTheDeadlineOnlyUpToTheAllowance() async throws {
        let started = ContinuousClock.now
        var looks = 0
        do {
            try await Deadline.until("what never comes", within: .seconds(1), allowing: .seconds(2),
                                     pausing: { _ in try await Task.sleep(for: Deadline.stall + .milliseconds(200)) }) {
                looks += 1
                return false
            }
            Issue.record("a wait that never holds returned after \(looks) looks")
        } catch let passed as Deadline.Passed {
            #expect(passed.description.contains("2.0 seconds more while the wait itself was not run"), "\(passed)")
            #expect(passed.description.hasSuffix("for what never comes"), "\(passed)")
        }
        // Pauses of at least 0.7 s use up the two seconds' allowance by the third; later ones are not forgiven, so
        // the wait ends within two more pauses (the limit's second, scaled), whatever their length: a count of looks,
        // not a time, since in a full parallel run a pause has come back a minute late.
        let took = ContinuousClock.now - started
        #expect(took >= .seconds(3), "\(took), \(looks) looks")
        let most = 4 + Int((Double(Deadline.scale) / 0.7).rounded(.up))  // 6, the limit unscaled
        #expect(looks <= most, "\(looks) looks in \(took)")
    }

    /// A slow check is the code under test being slow, not the wait being starved: it moves nothing.
    @Test func aSlowCheckGetsNoMoreTime() async throws {
        var looks = 0
        do {
            try await Deadline.until("a slow check", within: .milliseconds(100), allowing: .seconds(60),
                                     pausing: { _ in await Task.yield() }) {
                looks += 1
                try await Task.sleep(for: Deadline.stall * 2)
                return false
            }
            Issue.record("a wait that never holds returned after \(looks) looks")
        } catch let passed as Deadline.Passed {
            #expect(looks == 1, "\(passed)")
            #expect(!passed.description.contains("not run"), "\(passed)")
        }
    }
}
