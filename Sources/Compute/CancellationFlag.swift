import Synchronization

/// The cancellation of one piece of work on a ``ComputePool`` thread, which the awaiting task's cancellation cannot
/// reach (the thread is not the task's): raised by the pool when that task is cancelled, read through the
/// ``ComputePiece`` the work is handed (``ParallelLoop/isCancelled``).
public final class CancellationFlag: Sendable {
    private let flag = Atomic<Bool>(false)

    public init() {}

    public func cancel() { flag.store(true, ordering: .relaxed) }

    public var isCancelled: Bool { flag.load(ordering: .relaxed) }
}
