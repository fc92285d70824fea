/// The pool and lease of the piece this thread is running (pool threads only).
final class PieceContext: Sendable {
    let pool: ComputePool
    let lease: ComputeLease

    init(pool: ComputePool, lease: ComputeLease) {
        self.pool = pool
        self.lease = lease
    }

    /// Set by the thread's `serve` loop around each piece.
    static let local = ThreadLocalReference<PieceContext>()
}
