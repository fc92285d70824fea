import Waiting

/// Callers suspended until a condition of their owner becomes true, each with its own deadline or none.
///
/// Kept by a main-actor owner (the registry, the job runner), which calls ``resumeAll(returning:)`` at the moment the
/// condition turns true; a waiter whose deadline passes first (on the server's ``TimerScheduler``), or whose task is
/// cancelled, is resumed with `false`. Each waiter is resumed exactly once (a ``WaiterQueue``: the first outcome wins).
@MainActor
final class ConditionWaiters {
    private var queue = ContinuationQueue<Bool>()
    private let timers: any TimerScheduler

    nonisolated init(timers: any TimerScheduler) {
        self.timers = timers
    }

    var isEmpty: Bool { queue.isEmpty }

    /// Waiters parked (tests).
    var parkedCount: Int { queue.parkedCount }

    /// Waits until the owner calls ``resumeAll(returning:)``: its value, or `false` when `timeout` passes first or
    /// the task is cancelled. A nil `timeout` arms no timer: the wait ends with the condition or the task.
    func wait(timeout: Duration?) async -> Bool {
        let ticket = queue.enqueue()
        // Cancelled when the wait ends, however it ends: a waiter resolved in time leaves no timer behind.
        let deadline = timeout.map { timeout in
            timers.after(timeout) { [weak self] in
                Task { @MainActor in self?.end(ticket) }
            }
        }
        defer { deadline?.cancel() }
        let value = try? await Parking.wait({ queue.park(ticket, $0).perform() }, onCancel: {
            Task { @MainActor in self.end(ticket) }
        })
        return value ?? false
    }

    /// One waiter's deadline passed or its task was cancelled: it gets `false` unless it was already resumed.
    private func end(_ ticket: ContinuationQueue<Bool>.Ticket) {
        queue.resolve(ticket, with: .success(false)).perform()
    }

    /// The condition became true: resumes every waiter.
    func resumeAll(returning value: Bool = true) {
        queue.resolveAll(with: .success(value)).perform()
    }
}
