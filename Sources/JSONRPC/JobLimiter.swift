import Waiting

/// A FIFO counting semaphore for job slots, cancellation-aware, on the main actor with the job runner
/// that drives it (no lock: every call but a cancellation's arrives there, and a cancellation hops there).
///
/// Places in line are tickets, taken with `enqueue()` when a job is admitted, and slots go to
/// tickets strictly in the order they were taken, whether or not their tasks have started waiting
/// yet: two jobs admitted one after the other are served in that order even when the second one's
/// task happens to reach `acquire(_:)` first (a slot freed for a ticket whose task has not arrived is
/// kept for it). A waiter whose task is cancelled leaves the line at once and throws
/// `CancellationError`, so cancelling a queued job never costs a slot. The line is a ``WaiterQueue``.
@MainActor
final class JobLimiter {
    typealias Ticket = ContinuationQueue<Void>.Ticket

    private var available: Int
    private var line = ContinuationQueue<Void>()

    /// - Parameter slots: how many holders may run at once (at least 1).
    nonisolated init(slots: Int) {
        available = max(1, slots)
    }

    /// How many tickets are in line without a slot yet (waiting, or taken and not yet waiting).
    package var waiting: Int { line.unresolvedCount }

    /// How many tasks are parked in `acquire` (for tests that need a waiter to have arrived).
    package var arrived: Int { line.parkedCount }

    /// Takes the next place in line (served at once, for its task to find, when a slot is free).
    func enqueue() -> Ticket {
        let ticket = line.enqueue()
        dispatch()
        return ticket
    }

    /// Takes a place in line and waits for a slot: `acquire(enqueue())` (tests).
    package func acquire() async throws {
        try await acquire(enqueue())
    }

    /// Waits until every earlier ticket has been served or given up and a slot is free. Throws
    /// `CancellationError` if the task is cancelled while waiting (or before), giving up the place
    /// in line, or the slot if one had already been kept for this ticket.
    func acquire(_ ticket: Ticket) async throws {
        try await Parking.wait({ line.park(ticket, $0).perform() }, onCancel: {
            Task { @MainActor in self.line.resolve(ticket, with: .failure(CancellationError())).perform() }
        })
        if Task.isCancelled {
            // Served before the cancellation reached the line: the slot goes to the next in line.
            release()
            throw CancellationError()
        }
    }

    /// Returns a slot: hands it straight to the first ticket in line, if any.
    func release() {
        available += 1
        dispatch()
    }

    /// Hands free slots to the tickets at the head of the line.
    private func dispatch() {
        while available > 0, let served = line.resolveFirst(with: .success(())) {
            available -= 1
            served.resume.perform()
        }
    }
}
