import Foundation
import Synchronization

/// A task executor backed by its own threads, for CPU-heavy jobs.
///
/// The cooperative pool has one thread per core; if pixel loops ran there, two busy jobs on a
/// 2-core machine would starve the I/O loop and the registry, and a cancel or a `ping` would
/// wait behind them. Heavy jobs therefore run with this executor as their task-executor
/// preference (their child tasks inherit it), and the cooperative pool stays free for protocol
/// work. The kernel time-slices the two sets of threads, so protocol latency stays low.
public final class ThreadPoolExecutor: TaskExecutor, Sendable {
    private struct Queue {
        var jobs: [UnownedJob] = []
        var head = 0
    }

    private let queue = Mutex(Queue())
    private let available = DispatchSemaphore(value: 0)
    public let threadCount: Int

    public init(threads: Int, name: String = "photoworker.pixels") {
        threadCount = max(1, threads)
        for i in 0..<threadCount {
            let thread = Thread { [self] in self.serve() }
            thread.name = "\(name).\(i)"
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        queue.withLock { $0.jobs.append(unowned) }
        available.signal()
    }

    private func serve() {
        while true {
            available.wait()
            let job = queue.withLock { q -> UnownedJob in
                let j = q.jobs[q.head]
                q.head += 1
                if q.head == q.jobs.count {
                    q.jobs.removeAll(keepingCapacity: true)
                    q.head = 0
                } else if q.head > 4096 {
                    q.jobs.removeFirst(q.head)
                    q.head = 0
                }
                return j
            }
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
