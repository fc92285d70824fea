import ServiceLifecycle
import Synchronization
import Waiting

/// Parks a service until its group shuts it down gracefully, in Waiting's waiter queue and resumed by the group's
/// shutdown handler directly. swift-service-lifecycle's own `gracefulShutdown()` resumes its caller from an
/// unstructured task on the cooperative pool, so a busy pool (a full test run's synchronous tests hold its few
/// threads for minutes) held every step of the server's shutdown up; this one needs nothing but the service's own
/// executor (the main queue: ``Server/run()``).
public enum GracefulShutdownWait {
    /// Returns once the group shuts the calling service down gracefully (at once if it already has).
    /// - Throws: `CancellationError` when the calling task is cancelled first (the group was cancelled).
    public static func untilShutdown() async throws {
        let wait = Wait()
        try await withGracefulShutdownHandler {
            try await wait.park()
        } onGracefulShutdown: {
            wait.resolve(.success(()))
        }
    }

    /// One waiting service: a waiter queue of one ticket, resolved by the shutdown or by cancellation.
    private final class Wait: Sendable {
        private let waiter: Mutex<ContinuationQueue<Void>>
        private let ticket: ContinuationQueue<Void>.Ticket

        init() {
            var queue = ContinuationQueue<Void>()
            ticket = queue.enqueue()
            waiter = Mutex(queue)
        }

        func resolve(_ outcome: Result<Void, any Error>) {
            waiter.withLock { $0.resolve(ticket, with: outcome) }.perform()
        }

        func park() async throws {
            try await Parking.wait({ c in waiter.withLock { $0.park(ticket, c) }.perform() }, onCancel: { [self] in
                resolve(.failure(CancellationError()))
            })
        }
    }
}
