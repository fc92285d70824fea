import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Dedicated threads for synchronous pixel work, awaited from async code.
///
/// Pixel loops block their thread for milliseconds to seconds. On the cooperative pool (one
/// thread per core) a few of them would leave no thread to wake anything else, so every other
/// task in the process (the protocol loop, cancellation, timers) would wait for them. Work
/// submitted here runs on the pool's own threads instead; the awaiting task is suspended, not
/// blocking. Cancelling the awaiting task raises the job's ``CancellationFlag``, which the loops see
/// through ``Cancellation``.
///
/// Scheduling: each submission belongs to the submitting task's ``ComputeLease`` (its job), and a
/// free thread serves leases, not submissions, in the order that type describes: the lease with the
/// fewest threads running first, the earliest among equals, each lease's work in the order it came.
///
/// Lifecycle: the threads start with ``start()`` (the worker's server does it before serving; a
/// pool used without one starts on first use) and end with ``stop()``, after the work already
/// queued; work submitted after `stop()` fails with `CancellationError`.
public final class ComputePool: Sendable {
    private typealias Work = @Sendable () -> Void

    /// One lease's queued work, and how many of the pool's threads run its work now.
    private struct LeaseQueue {
        var work: [Work] = []
        var head = 0
        var running = 0

        var hasWork: Bool { head < work.count }

        mutating func popFirst() -> Work {
            let next = work[head]
            head += 1
            if head == work.count {
                work.removeAll(keepingCapacity: true)
                head = 0
            }
            return next
        }
    }

    private struct State {
        var leases: [ComputeLease: LeaseQueue] = [:]
        var started = false
        var stopped = false
        var busy = 0
        var peakBusy = 0

        mutating func push(_ work: @escaping Work, for lease: ComputeLease) {
            leases[lease, default: LeaseQueue()].work.append(work)
        }

        /// The next piece of work to run and its lease: the lease with work waiting and the fewest threads
        /// running, the earliest among equals (a handful of leases at most: a linear scan).
        mutating func next() -> (ComputeLease, Work)? {
            var chosen: (lease: ComputeLease, running: Int)?
            for (lease, queue) in leases where queue.hasWork {
                if let c = chosen, (c.running, c.lease) <= (queue.running, lease) { continue }
                chosen = (lease, queue.running)
            }
            guard let lease = chosen?.lease else { return nil }
            busy += 1
            peakBusy = max(peakBusy, busy)
            leases[lease]!.running += 1
            return (lease, leases[lease]!.popFirst())
        }

        mutating func finished(_ lease: ComputeLease) {
            busy -= 1
            leases[lease]!.running -= 1
            if leases[lease]!.running == 0 && !leases[lease]!.hasWork { leases[lease] = nil }
        }
    }

    private let state = Mutex(State())
    private let available = DispatchSemaphore(value: 0)
    public let threadCount: Int

    /// - Parameter threads: how many pixel loops run at once (the worker's job limit).
    public init(threads: Int) {
        threadCount = max(1, threads)
    }

    /// What the threads are doing, for statistics and tests.
    public struct Activity: Sendable, Equatable {
        /// Threads running a piece of work now.
        public var busy: Int
        /// The most threads ever busy at once.
        public var peakBusy: Int
        /// Pieces of work waiting for a thread.
        public var queued: Int
    }

    public var activity: Activity {
        state.withLock { s in
            Activity(busy: s.busy, peakBusy: s.peakBusy,
                     queued: s.leases.values.reduce(0) { $0 + $1.work.count - $1.head })
        }
    }

    /// Starts the threads (once).
    public func start() {
        let first = state.withLock { s -> Bool in
            defer { s.started = true }
            return !s.started && !s.stopped
        }
        guard first else { return }
        for i in 0..<threadCount {
            let thread = Thread { [self] in
                Thread.current.name = "pw-compute-\(i)"
                #if os(Linux)
                // Pixel loops yield the CPU to everything else in the process: on Linux the nice
                // value is per thread, so the protocol threads keep answering promptly while these
                // threads keep both cores busy.
                setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 5)
                #endif
                self.serve()
            }
            // Deep recursion is not used, but libjpeg/libpng and large frames like room.
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    /// Runs `body` on a pool thread as work of the current task's ``ComputeLease`` and returns its result. If
    /// the calling task is cancelled, the body sees ``Cancellation/isRequested`` become true (or does not start).
    public func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        start()
        let flag = CancellationFlag()
        let lease = ComputeLease.current ?? .unleased
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<T, any Error>) in
                let work: Work = {
                    if flag.isCancelled {
                        c.resume(throwing: CancellationError())
                        return
                    }
                    c.resume(with: Result { try Cancellation.with(flag, body) })
                }
                let accepted = state.withLock { s -> Bool in
                    guard !s.stopped else { return false }
                    s.push(work, for: lease)
                    return true
                }
                guard accepted else {
                    c.resume(throwing: CancellationError())
                    return
                }
                available.signal()
            }
        } onCancel: {
            flag.cancel()
        }
    }

    /// Lets the threads end once the queued work is done; later work is refused.
    public func stop() {
        let wake = state.withLock { s -> Bool in
            defer { s.stopped = true }
            return s.started && !s.stopped
        }
        guard wake else { return }
        for _ in 0..<threadCount { available.signal() }
    }

    private func serve() {
        while true {
            available.wait()
            // A signal is either work or, after stop(), a wake-up to leave once the queue is empty.
            let next = state.withLock { s -> (ComputeLease, Work)?? in
                if let next = s.next() { return .some(next) }
                return s.stopped ? .none : .some(nil)
            }
            switch next {
            case .none: return
            case .some((let lease, let work)?):
                work()
                state.withLock { $0.finished(lease) }
            case .some(nil): continue
            }
        }
    }
}
