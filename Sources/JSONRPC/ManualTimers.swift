import Synchronization

/// A clock the test advances: timers fire when the test says so, never by waiting (package API: the
/// in-process tests give it to ``ServerConfiguration/timers``).
package final class ManualTimers: TimerScheduler {
    private struct State {
        /// Pending timers in the order they were scheduled, by number.
        var pending: [(number: UInt64, delay: Duration, body: @Sendable () -> Void)] = []
        var lastNumber: UInt64 = 0
    }

    private let state = Mutex(State())

    package init() {}

    @discardableResult
    package func after(_ delay: Duration, _ body: @escaping @Sendable () -> Void) -> ScheduledTimer {
        let number = state.withLock { s in
            s.lastNumber += 1
            s.pending.append((s.lastNumber, delay, body))
            return s.lastNumber
        }
        return ScheduledTimer { [weak self] in
            self?.state.withLock { s in s.pending.removeAll { $0.number == number } }
        }
    }

    /// How many timers wait to fire (cancelled ones are gone).
    package var count: Int { state.withLock { $0.pending.count } }

    /// The delays of the timers waiting to fire, in the order they were scheduled (a test tells one owner's timers
    /// from another's by their delays).
    package var pendingDelays: [Duration] { state.withLock { $0.pending.map(\.delay) } }

    /// Fires the timer scheduled first (if any).
    package func fireOldest() {
        let body = state.withLock { s in s.pending.isEmpty ? nil : s.pending.removeFirst().body }
        body?()
    }

    /// Fires every timer scheduled so far.
    package func fireAll() {
        for timer in state.withLock({ s in defer { s.pending = [] }; return s.pending }) { timer.body() }
    }
}
