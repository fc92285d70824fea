import Synchronization

/// A clock the test advances: timers fire when the test says so, never by waiting (package API: the
/// in-process tests give it to ``ServerConfiguration/timers``).
package final class ManualTimers: TimerScheduler {
    private let pending = Mutex<[@Sendable () -> Void]>([])

    package init() {}

    package func after(_ delay: Duration, _ body: @escaping @Sendable () -> Void) {
        pending.withLock { $0.append(body) }
    }

    /// How many timers wait to fire.
    package var count: Int { pending.withLock { $0.count } }

    /// Fires the timer scheduled first (if any).
    package func fireOldest() {
        let body = pending.withLock { p in p.isEmpty ? nil : p.removeFirst() }
        body?()
    }

    /// Fires every timer scheduled so far.
    package func fireAll() {
        for body in pending.withLock({ p in defer { p = [] }; return p }) { body() }
    }
}
