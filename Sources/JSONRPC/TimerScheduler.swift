import Foundation
import JSONRPCTransport

/// Runs a callback after a delay: the main queue (the protocol side's executor) in the server, a
/// clock the test advances in in-process tests.
public protocol TimerScheduler: Sendable {
    /// Schedules `body` to run once after `delay`. The returned ``ScheduledTimer`` cancels it; a caller that never
    /// cancels may drop it.
    @discardableResult
    func after(_ delay: Duration, _ body: @escaping @Sendable () -> Void) -> ScheduledTimer
}

/// A timer that has not fired yet, or has: ``cancel()`` removes a pending timer from its scheduler (its body and
/// what the body holds are released at once, not when it would have fired) and does nothing after it fired.
public struct ScheduledTimer: Sendable {
    private let cancelBody: @Sendable () -> Void

    public init(cancel: @escaping @Sendable () -> Void) { cancelBody = cancel }

    /// Removes the timer; its body will not run (unless it already has, or runs now on another thread).
    public func cancel() { cancelBody() }
}

/// Timers on the main queue.
public struct MainQueueTimers: TimerScheduler {
    public init() {}

    /// A dispatch timer source per timer, not `asyncAfter`: cancelling a source removes it from the queue and
    /// releases its handler, where a cancelled work item would stay queued, holding its captures, until its time.
    @discardableResult
    public func after(_ delay: Duration, _ body: @escaping @Sendable () -> Void) -> ScheduledTimer {
        let nanos = delay.inSeconds * 1e9
        let capped = min(max(nanos, 0), 1e16)  // about four months; DispatchTime must not overflow
        let source = DispatchSource.makeTimerSource(queue: .main)
        source.schedule(deadline: .now() + .nanoseconds(Int(capped)))
        // The handler holds the source until it runs or is cancelled: cancelling releases the handler, which
        // ends the cycle.
        source.setEventHandler {
            source.cancel()
            body()
        }
        source.resume()
        let handle = SourceHandle(source)
        return ScheduledTimer { handle.source.cancel() }
    }

    /// Proof for `@unchecked Sendable`: `DispatchSourceTimer` is thread-safe (its `cancel()` may be called from any
    /// thread, and more than once), it only lacks the annotation.
    private final class SourceHandle: @unchecked Sendable {
        let source: any DispatchSourceTimer
        init(_ source: any DispatchSourceTimer) { self.source = source }
    }
}
