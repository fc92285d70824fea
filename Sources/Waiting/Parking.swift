/// How a task parks in a ``WaiterQueue``: its continuation filed by `park`, cancellation an input of the queue.
public enum Parking {
    /// Suspends the calling task until the continuation `park` is given is resumed.
    ///
    /// `park` runs at once, in the caller's isolation (its actor, or under the owner's lock if it takes it): it
    /// files the continuation with ``WaiterQueue/park(_:_:)`` and performs what the queue returns. `onCancel` runs
    /// when the task is cancelled, at once if it already is, on any thread (possibly before `park`): it resolves
    /// the ticket as cancelled (under the owner's lock, or by hopping to its actor) and performs what that
    /// returns. Take the ticket before calling, so that a cancellation that comes first finds it.
    ///
    /// - Parameter isolation: the caller's actor, passed on explicitly to both standard-library calls. Without it
    ///   the operation closure of `withTaskCancellationHandler` ran on the global executor, so an actor-isolated
    ///   `park` (JobLimiter's, on the main actor) touched its queue off the actor while the actor ran: a data race
    ///   the compiler did not report, which crashed the soak test (SIGSEGV in the queue's dictionary). `WaitingTests`
    ///   checks that `park` runs isolated.
    public static func wait<Value>(isolation: isolated (any Actor)? = #isolation,
                                   _ park: (CheckedContinuation<Value, any Error>) -> Void,
                                   onCancel: @Sendable () -> Void) async throws -> Value {
        try await withTaskCancellationHandler(operation: {
            try await withCheckedThrowingContinuation(isolation: isolation) { park($0) }
        }, onCancel: onCancel, isolation: isolation)
    }
}
