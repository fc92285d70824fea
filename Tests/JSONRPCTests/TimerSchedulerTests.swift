import Deadlines
@testable import JSONRPC
import Synchronization
import Testing

/// Both schedulers' timers: a cancelled timer is gone (never fires, no longer counted), one that fired is not
/// affected by a late cancel, and the others fire as scheduled.
@Suite(.timeLimit(.minutes(10)))
struct TimerSchedulerTests {
    @Test func aCancelledManualTimerIsRemovedAndNeverFires() {
        let timers = ManualTimers()
        let fired = Mutex<[String]>([])
        let first = timers.after(.seconds(1)) { fired.withLock { $0.append("first") } }
        timers.after(.seconds(2)) { fired.withLock { $0.append("second") } }
        first.cancel()
        #expect(timers.count == 1, "the cancelled timer is removed: \(timers.count) pending")
        timers.fireAll()
        #expect(fired.withLock { $0 } == ["second"], "\(fired.withLock { $0 })")
        first.cancel()  // again, after the others fired: nothing happens
        #expect(timers.count == 0, "\(timers.count) pending")
    }

    @Test func cancellingAManualTimerThatFiredChangesNothing() {
        let timers = ManualTimers()
        let fired = Mutex(0)
        let timer = timers.after(.zero) { fired.withLock { $0 += 1 } }
        let other = timers.after(.zero) { fired.withLock { $0 += 10 } }
        timers.fireOldest()
        timer.cancel()
        #expect(timers.count == 1, "only the other timer is left: \(timers.count)")
        timers.fireOldest()
        other.cancel()
        #expect(fired.withLock { $0 } == 11, "\(fired.withLock { $0 })")
    }

    @Test func aCancelledMainQueueTimerNeverFiresAndReleasesItsBody() async throws {
        let timers = MainQueueTimers()
        let fired = Mutex<[String]>([])
        final class Held: Sendable {}
        weak var held: Held?
        let cancelled: ScheduledTimer
        do {
            let body = Held()
            held = body
            cancelled = timers.after(.milliseconds(50)) { [body] in
                _ = body
                fired.withLock { $0.append("cancelled") }
            }
        }
        cancelled.cancel()
        timers.after(.milliseconds(200)) { fired.withLock { $0.append("kept") } }
        try await Deadline.until("the kept timer fired") { fired.withLock { $0.contains("kept") } }
        #expect(fired.withLock { $0 } == ["kept"], "\(fired.withLock { $0 })")
        try await Deadline.until("the cancelled timer's body released") { held == nil }
    }
}
