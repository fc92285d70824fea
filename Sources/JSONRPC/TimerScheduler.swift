import Foundation
import JSONRPCTransport

/// Runs a callback after a delay: the main queue (the protocol side's executor) in the server, a
/// clock the test advances in in-process tests.
public protocol TimerScheduler: Sendable {
    func after(_ delay: Duration, _ body: @escaping @Sendable () -> Void)
}

/// Timers on the main queue.
public struct MainQueueTimers: TimerScheduler {
    public init() {}

    public func after(_ delay: Duration, _ body: @escaping @Sendable () -> Void) {
        let nanos = delay.inSeconds * 1e9
        let capped = min(nanos, 1e16)  // about four months; DispatchTime must not overflow
        DispatchQueue.main.asyncAfter(deadline: .now() + .nanoseconds(Int(capped)), execute: body)
    }
}
