import Synchronization

/// Where a loop's independent indices may run on more than one thread: the caller's scheduler, which knows which
/// threads are idle. A ``StageRunner`` is one (a stage's bands go to the runner's idle threads); Inference's
/// network takes one for each pass's bands; without one every index runs on the calling thread.
public protocol ParallelLoop: Sendable {
    /// The most threads one loop may use at once, the caller's included.
    var width: Int { get }
    /// Calls `body(thread, index)` for every index in `0..<count` and returns when all have run. `thread` is 0
    /// on the calling thread and 1, 2, ... on helpers, each number used by one thread at a time. Helpers see the
    /// calling thread's ``Cancellation`` (a ``ComputePool``'s do): the loop's work checks no cancellation of its own.
    /// - Throws: the first error `body` threw.
    func forEach(_ count: Int, _ body: @escaping @Sendable (_ thread: Int, _ index: Int) throws -> Void) throws
}
