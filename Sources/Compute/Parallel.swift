/// The loop of the piece running on this thread, found through a thread-local (``PieceContext``): what the animated
/// pipeline's encoders and cut-outs (Imaging/Animation) still pass on, not yet handed their loop. Everything else
/// takes a ``ParallelLoop`` passed in (a ``ComputePiece``, a stage's loop, ``InTurnLoop``).
public enum Parallel {
    /// The running piece (``ComputePiece``) on a ``ComputePool`` thread; ``InTurnLoop`` anywhere else.
    public static var current: any ParallelLoop {
        guard let context = PieceContext.local.current else { return InTurnLoop() }
        return ComputePiece(pool: context.pool, lease: context.lease, flag: Cancellation.currentFlag ?? CancellationFlag())
    }
}
