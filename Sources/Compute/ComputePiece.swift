/// The piece of work a ``ComputePool`` thread is running, as the value its body is handed (``ComputePool/run(lease:speculation:_:)``):
/// the pool, the lease the piece runs as and its cancellation flag. As a ``ParallelLoop`` it spreads the piece's
/// loops over the pool's idle threads, as helpers of its lease after ordinary work (a busy machine does not pay for
/// them); it is cancelled (``isCancelled``) once its flag is raised, whichever thread asks.
///
/// - Important: valid inside the body it was handed to (and the loops that body starts), where its thread runs the
///   piece; the body must not keep it.
public struct ComputePiece: ParallelLoop {
    let pool: ComputePool
    /// The lease the piece runs as: its helpers are work of the same lease.
    public let lease: ComputeLease
    let flag: CancellationFlag
    public let pairsAtOnce: Bool

    init(pool: ComputePool, lease: ComputeLease, flag: CancellationFlag, pairsAtOnce: Bool = true) {
        self.pool = pool
        self.lease = lease
        self.flag = flag
        self.pairsAtOnce = pairsAtOnce
    }

    /// This piece, with ``both(_:_:)`` at once or one after the other (a ``PoolStages`` in turn, for memory).
    public func pairing(atOnce: Bool) -> ComputePiece {
        ComputePiece(pool: pool, lease: lease, flag: flag, pairsAtOnce: atOnce)
    }

    public var width: Int { pool.threadCount }

    public var isCancelled: Bool { flag.isCancelled }

    public func forEach(_ count: Int, _ body: @escaping @Sendable (_ thread: Int, _ index: Int) throws -> Void) throws {
        try pool.forEach(count, width: width, lease: lease, body)
    }

    public func pipelined<Item: Sendable>(_ produce: (_ handOff: (Item) -> Void) throws -> Void,
                                          process: @escaping @Sendable (Item) -> Void) throws {
        guard width > 1 else {
            try produce { process($0) }
            return
        }
        try pool.pipeline(produce, process: process, lease: lease)
    }
}
