import Deadlines
@testable import JSONRPC
import JSONRPCTransport
import Testing

/// The registry's and the job runner's waits: resumed together when the condition turns true, each alone when its
/// deadline passes on the injected clock or its task is cancelled, and exactly once.
@MainActor
@Suite(.timeLimit(.minutes(10)))
struct ConditionWaitersTests {
    @Test func everyWaiterIsResumedWhenTheConditionTurnsTrue() async throws {
        let timers = ManualTimers()
        let waiters = ConditionWaiters(timers: timers)
        let waits = (0..<3).map { _ in Task { await waiters.wait(timeout: .seconds(1)) } }
        try await Deadline.until("three waiters parked, \(waiters.parkedCount) so far") { waiters.parkedCount == 3 }
        #expect(timers.count == 3, "a timer per waiter: \(timers.count)")
        waiters.resumeAll()
        for w in waits { #expect(try await Deadline.value(of: w, "a waiter resumed by resumeAll") == true) }
        #expect(waiters.isEmpty)
        #expect(timers.count == 0, "the resolved waiters' timers are cancelled, not left to fire: \(timers.count) pending")
    }

    @Test func anExpiredWaiterGetsFalseOnceAndTheOthersStillWait() async throws {
        let timers = ManualTimers()
        let waiters = ConditionWaiters(timers: timers)
        let first = Task { await waiters.wait(timeout: .seconds(1)) }
        let second = Task { await waiters.wait(timeout: nil) }
        try await Deadline.until("two waiters parked") { waiters.parkedCount == 2 }
        #expect(timers.count == 1, "a wait without a deadline arms no timer")
        timers.fireAll()
        #expect(try await Deadline.value(of: first, "the expired waiter to return") == false)
        #expect(!waiters.isEmpty)
        waiters.resumeAll()
        #expect(try await Deadline.value(of: second, "the second waiter to return") == true)
    }

    @Test func aCancelledWaiterWithADeadlineLeavesNoTimer() async throws {
        let timers = ManualTimers()
        let waiters = ConditionWaiters(timers: timers)
        let waiting = Task { await waiters.wait(timeout: .seconds(1)) }
        try await Deadline.until("the waiter parked") { waiters.parkedCount == 1 }
        waiting.cancel()
        #expect(try await Deadline.value(of: waiting, "the cancelled waiter to return") == false)
        #expect(timers.count == 0, "\(timers.count) pending")
    }

    @Test func aCancelledWaiterGetsFalseAtOnceWithoutItsTimer() async throws {
        let timers = ManualTimers()
        let waiters = ConditionWaiters(timers: timers)
        let waiting = Task { await waiters.wait(timeout: nil) }
        try await Deadline.until("the waiter parked") { waiters.parkedCount == 1 }
        waiting.cancel()
        #expect(try await Deadline.value(of: waiting, "the cancelled waiter to return") == false)
        #expect(waiters.isEmpty)
        waiters.resumeAll()  // nothing left to resume twice
    }
}
