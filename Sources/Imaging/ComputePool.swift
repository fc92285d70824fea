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
public final class ComputePool: Sendable {
    private typealias Work = @Sendable () -> Void

    private struct State {
        var queue: [Work] = []
        var head = 0

        mutating func push(_ work: @escaping Work) { queue.append(work) }

        mutating func pop() -> Work {
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

    public init(threads: Int) {
        threadCount = max(1, threads)
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
                state.withLock { $0.push(work) }
                available.signal()
            }
        } onCancel: {
            flag.cancel()
        }
    }

    private func serve() {
        while true {
            available.wait()
            let work = state.withLock { $0.pop() }
            work()
        }
    }
}
