import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Monotonic counters for `worker.stats`. Atomics, because every job touches them.
public final class ServerStats: Sendable {
    /// Messages received (requests, notifications, invalid lines).
    public let received = Atomic<Int>(0)
    public let completed = Atomic<Int>(0)
    public let failed = Atomic<Int>(0)
    public let cancelled = Atomic<Int>(0)
    let startedAt = ContinuousClock.now

    public init() {}

    public var uptimeSeconds: Double {
        (ContinuousClock.now - startedAt).inSeconds
    }

    /// The process's peak resident set size in bytes (getrusage).
    public static var peakRSSBytes: Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Int(usage.ru_maxrss) * 1024
    }
}

extension Atomic where Value == Int {
    @inline(__always) func increment() { _ = add(1, ordering: .relaxed) }
    @inline(__always) var value: Int { load(ordering: .relaxed) }
}
