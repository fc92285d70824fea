import JSONRPC
import JSONRPCTransport

extension ContinuousClock.Instant {
    /// Milliseconds since this instant, rounded to 0.01 ms.
    var millisecondsElapsed: Double { (ContinuousClock.now - self).inMilliseconds }
}
