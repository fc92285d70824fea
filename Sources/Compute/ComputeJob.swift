/// A job's claim on a compute pool: the pool, and the ``ComputeLease`` every piece of work the job submits is
/// scheduled as. What the application's handlers and pipeline code take instead of the bare ``ComputePool``, the
/// way swift-nio's handlers take an `EventLoop`: which job a piece of work belongs to is read from the
/// declarations, never from the task that happens to submit it (a batch's task group passes it on by capture).
public struct ComputeJob: Sendable {
    public let pool: ComputePool
    public let lease: ComputeLease

    /// - Parameter lease: the job's (``ComputeLease/unleased`` for work outside any job: tests, benchmarks,
    ///   in-process use).
    public init(_ pool: ComputePool, lease: ComputeLease) {
        self.pool = pool
        self.lease = lease
    }

    /// Runs `body` on a pool thread as work of this job (``ComputePool/run(lease:speculation:_:)``), handed the piece
    /// it runs as: the loop its parts spread over.
    public func run<T: Sendable>(_ body: @escaping @Sendable (ComputePiece) throws -> T) async throws -> T {
        try await pool.run(lease: lease, body)
    }

    /// Runs `body` on a pool thread as work of this job, spreading over no other thread.
    public func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await pool.run(lease: lease, body)
    }
}
