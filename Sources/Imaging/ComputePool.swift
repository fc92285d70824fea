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
/// Lifecycle: the threads start with ``start()`` (the worker's server does it before serving; a
/// pool used without one starts on first use) and end with ``stop()``, after the work already
/// queued; work submitted after `stop()` fails with `CancellationError`.
public final class ComputePool: Sendable {
    private typealias Work = @Sendable () -> Void

    private struct State {
        var queue: [Work] = []
        var head = 0
        var started = false
        var stopped = false

        mutating func push(_ work: @escaping Work) { queue.append(work) }

        mutating func pop() -> Work? {
            guard head < queue.count else { return nil }
            let work = queue[head]
            head += 1
            if head == queue.count {
                queue.removeAll(keepingCapacity: true)
                head = 0
            }
            return work
        }
    }

    private let state = Mutex(State())
    private let available = DispatchSemaphore(value: 0)
    public let threadCount: Int

    /// - Parameter threads: how many pixel loops run at once (the worker's job limit).
    public init(threads: Int) {
        threadCount = max(1, threads)
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

    /// Runs `body` on a pool thread and returns its result. If the calling task is cancelled,
    /// the body sees ``Cancellation/isRequested`` become true (or does not start at all).
    public func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        start()
        let flag = CancellationFlag()
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
                    s.push(work)
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
            let next = state.withLock { s -> Work?? in
                if let work = s.pop() { return .some(work) }
                return s.stopped ? .none : .some(nil)
            }
            switch next {
            case .none: return
            case .some(let work?): work()
            case .some(nil): continue
            }
        }
    }
}
