import Synchronization

/// A cancellation flag for work that runs on a ``ComputePool`` thread, where `Cancellation.isRequested`
/// cannot see the awaiting task.
public final class CancellationFlag: Sendable {
    private let flag = Atomic<Bool>(false)

    public init() {}

    public func cancel() { flag.store(true, ordering: .relaxed) }

    public var isCancelled: Bool { flag.load(ordering: .relaxed) }
}

/// Where pixel loops ask whether to stop: the current compute-pool job's flag when running on a
/// ``ComputePool`` thread, otherwise the current Swift task.
///
/// Every long loop in Imaging checks this per band of rows, so work is cancellable both when a
/// caller runs it directly in a task and when the worker runs it on its compute threads.
public enum Cancellation {
    /// The flag of the compute-pool piece running on this thread, if any.
    private static let local = ThreadLocalReference<CancellationFlag>()

    /// True when the work running on this thread has been asked to stop.
    public static var isRequested: Bool {
        if let flag = local.current { return flag.isCancelled }
        return Task.isCancelled
    }

    /// The flag of the compute-pool piece running on this thread, if any.
    static var currentFlag: CancellationFlag? { local.current }

    /// Throws `CancellationError` when ``isRequested``.
    public static func check() throws {
        if isRequested { throw CancellationError() }
    }

    /// Runs `body` with `flag` as this thread's cancellation flag.
    static func with<T>(_ flag: CancellationFlag, _ body: () throws -> T) rethrows -> T {
        try local.with(flag, body)
    }
}
