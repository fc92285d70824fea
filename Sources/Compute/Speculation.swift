import Synchronization

/// Work a job may turn out not to need, passed with a submission like its ``ComputeLease``: a ``ComputePool``
/// runs pieces submitted under a speculation only on threads that no other piece of work (of any job) wants, so
/// guessing costs nothing when the machine is busy, until the job finds it needs the work after all and
/// ``promote()``s it to ordinary work. ``PoolStages/speculate(_:then:if:)`` makes and promotes them, and hands the guess a
/// runner whose stages are submitted as it.
public final class Speculation: Sendable {
    private let promoted = Atomic<Bool>(false)

    public init() {}

    /// The job needs the work: from now on its pieces are scheduled as ordinary work.
    public func promote() { promoted.store(true, ordering: .relaxed) }

    /// Whether ``promote()`` was called.
    public var isPromoted: Bool { promoted.load(ordering: .relaxed) }
}
