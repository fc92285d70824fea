/// Where a piece of work's independent parts may run on more than one thread: the one vocabulary algorithms use to
/// say what may run at once (``forEach(_:_:)``, ``both(_:_:)``, ``both(_:then:if:)``, ``pipelined(_:process:)``),
/// never how it is scheduled. It is a value passed in, the way swift-nio passes an `EventLoop`: a ``ComputePool``
/// hands the body of each piece of work its ``ComputePiece``, a ``StageRunner`` hands each stage's body its loop,
/// Inference's passes take one for their bands, and code off the pool passes ``InTurnLoop`` (`.inTurn`). Whichever
/// loop runs them, the results are the same: the parts write slots of their own and are combined in index order.
public protocol ParallelLoop: Sendable {
    /// The most threads one loop may use at once, the caller's included.
    var width: Int { get }
    /// Whether ``both(_:_:)`` makes its two computations at once where a thread is idle; false: one after the other
    /// (at once, each thread's malloc arena grows by the other's buffers: a 6000x4000 sticker's classical maps peaked
    /// 20 MB higher). Loops spread over idle threads either way.
    var pairsAtOnce: Bool { get }
    /// Whether the work this loop runs has been asked to stop: a ``ComputePiece``'s flag (raised when its awaiting task
    /// is cancelled), the calling task's cancellation for ``InTurnLoop``. Long loops ask it per band of rows, on
    /// whichever thread runs the band (the loop's parts close over the loop they were handed).
    var isCancelled: Bool { get }
    /// Throws `CancellationError` when ``isCancelled``.
    func checkCancellation() throws
    /// Calls `body(thread, index)` for every index in `0..<count` and returns when all have run. `thread` is 0
    /// on the calling thread and 1, 2, ... on helpers, each number used by one thread at a time (so it can pick that
    /// thread's scratch). `body` checks cancellation through the loop it closes over (``checkCancellation()``), on
    /// whichever thread it runs.
    /// - Throws: the first error `body` threw (indices not yet taken are then skipped), once every thread has left
    ///   `body`.
    func forEach(_ count: Int, _ body: @escaping @Sendable (_ thread: Int, _ index: Int) throws -> Void) throws
    /// Items handed off while the caller goes on producing them: `produce` calls `handOff(item)` as each item is
    /// ready, and an idle thread processes handed-off items while `produce` goes on; whatever no helper has taken by
    /// the time `produce` returns, the caller processes itself. Returns once every item is processed; when `produce`
    /// throws, items not yet taken are dropped and the error is rethrown. A loop of one thread processes each item at
    /// once, on the calling thread.
    ///
    /// For two stages of one stream on two cores: a decoder's colour conversion of each band of rows while it
    /// decodes the next. What the items point at must stay alive until this returns, which it may rely on:
    /// helpers have left `process` by then, on every path.
    func pipelined<Item: Sendable>(_ produce: (_ handOff: (Item) -> Void) throws -> Void,
                                   process: @escaping @Sendable (Item) -> Void) throws
}

extension ParallelLoop {
    public var pairsAtOnce: Bool { true }

    public func checkCancellation() throws {
        if isCancelled { throw CancellationError() }
    }

    public func pipelined<Item: Sendable>(_ produce: (_ handOff: (Item) -> Void) throws -> Void,
                                          process: @escaping @Sendable (Item) -> Void) throws {
        try produce { process($0) }
    }

    /// `a` and `b`, two computations that do not depend on each other: at once when the loop pairs at once and an
    /// idle thread can take one, otherwise `a` then `b`.
    public func both<A: Sendable, B: Sendable>(_ a: @escaping @Sendable () throws -> A,
                                               _ b: @escaping @Sendable () throws -> B) throws -> (A, B) {
        guard pairsAtOnce, width > 1 else {
            let first = try a()
            return (first, try b())
        }
        let results = ResultPair<A, B>()
        try forEach(2) { _, index in
            if index == 0 {
                let value = try a()
                results.slots.withLock { $0.a = value }
            } else {
                let value = try b()
                results.slots.withLock { $0.b = value }
            }
        }
        return results.slots.withLock { ($0.a!, $0.b!) }
    }

    /// `a`, and `b` only if `needed` says so of `a`'s result: made beside `a` (as ``both(_:_:)``) and dropped when
    /// not needed by a loop that pairs at once; otherwise made after `a`, when needed.
    public func both<A: Sendable, B: Sendable>(_ a: @escaping @Sendable () throws -> A,
                                               then b: @escaping @Sendable () throws -> B,
                                               if needed: @escaping @Sendable (A) -> Bool) throws -> (A, B?) {
        guard pairsAtOnce, width > 1 else {
            let first = try a()
            return (first, needed(first) ? try b() : nil)
        }
        let (first, second) = try both(a, b)
        return (first, needed(first) ? second : nil)
    }
}

/// Every part on the calling thread, one after another: the loop of code off the compute pool (tests, benchmarks,
/// in-process use) and of ``InlineStages``. Its cancellation is the calling task's (`Task.isCancelled`), or, on a
/// thread that is no task's (a blocking pool's), the flag its owner raises when the awaiting task is cancelled.
public struct InTurnLoop: ParallelLoop {
    private let flag: CancellationFlag?

    /// - Parameter flag: raised by whoever runs this loop on a thread of its own when the task awaiting it is
    ///   cancelled (nil: the calling task's cancellation, for a loop that runs in a task).
    public init(cancelledBy flag: CancellationFlag? = nil) { self.flag = flag }

    public var width: Int { 1 }

    public var isCancelled: Bool { flag?.isCancelled ?? Task.isCancelled }

    public func forEach(_ count: Int, _ body: @escaping @Sendable (_ thread: Int, _ index: Int) throws -> Void) throws {
        for i in 0..<count { try body(0, i) }
    }
}

extension ParallelLoop where Self == InTurnLoop {
    /// Every part on the calling thread, one after another (``InTurnLoop``).
    public static var inTurn: InTurnLoop { InTurnLoop() }
}
