/// ``ParallelLoop``'s operations for code that is not handed its loop yet: the piece running on this thread, found
/// through a thread-local (``PieceContext``). Prefer a ``ParallelLoop`` passed in (a ``ComputePiece``, a stage's loop).
///
/// Called inside a piece of work running on a ``ComputePool``, the work spreads over that pool's idle threads, as
/// helpers of the piece's ``ComputeLease`` after ordinary work (so a busy machine does not pay for it); called
/// anywhere else, it runs in turn on the calling thread. Either way the results are the same: an algorithm that
/// uses these never knows, or needs to know, which happened.
public enum Parallel {
    /// The most threads ``forEach(_:_:)`` may use from here, the caller's included (1 off the pool).
    public static var width: Int { PieceContext.local.current?.pool.threadCount ?? 1 }

    /// Calls `body(thread, index)` for every index in `0..<count` and returns when all have run: on the calling
    /// thread (thread 0) and on idle threads of the pool running this piece (1, 2, ...: each number used by one
    /// thread at a time, so it can pick that thread's scratch). The helpers see the caller's cancellation flag.
    /// - Throws: the first error `body` threw (indices not yet taken are then skipped), once every thread has left
    ///   `body`.
    public static func forEach(_ count: Int, _ body: @escaping @Sendable (_ thread: Int, _ index: Int) throws -> Void)
        throws {
        if let context = PieceContext.local.current {
            try context.pool.forEach(count, width: context.pool.threadCount, lease: context.lease,
                                     flag: Cancellation.currentFlag ?? CancellationFlag(), body)
        } else {
            for i in 0..<count { try body(0, i) }
        }
    }

    /// `a` and `b`, two computations that do not depend on each other: at once when an idle thread can take one,
    /// otherwise `a` then `b`.
    public static func both<A: Sendable, B: Sendable>(_ a: @escaping @Sendable () throws -> A,
                                                      _ b: @escaping @Sendable () throws -> B) throws -> (A, B) {
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

    /// Items handed off while the caller goes on producing them: `produce` calls `handOff(item)` as each item is
    /// ready, and an idle thread of the pool running the calling piece processes handed-off items while `produce`
    /// goes on; whatever no helper has taken by the time `produce` returns, the caller processes itself. Returns
    /// once every item is processed; when `produce` throws, items not yet taken are dropped and the error is
    /// rethrown. Off a pool of two or more threads, each item is processed at once, on the calling thread.
    ///
    /// For two stages of one stream on two cores: a decoder's colour conversion of each band of rows while it
    /// decodes the next. What the items point at must stay alive until this returns, which it may rely on:
    /// helpers have left `process` by then, on every path.
    public static func pipelined<Item: Sendable>(_ produce: (_ handOff: (Item) -> Void) throws -> Void,
                                                process: @escaping @Sendable (Item) -> Void) throws {
        guard let context = PieceContext.local.current, context.pool.threadCount > 1 else {
            try produce { process($0) }
            return
        }
        try context.pool.pipeline(produce, process: process, lease: context.lease,
                                  flag: Cancellation.currentFlag ?? CancellationFlag())
    }
}
