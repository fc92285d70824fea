/// A FIFO counting semaphore for job slots, cancellation-aware, on the main actor with the job runner
/// that drives it (no lock: every call but a cancellation's arrives there, and a cancellation hops there).
///
/// Places in line are tickets, taken with `enqueue()` when a job is admitted, and slots go to
/// tickets strictly in the order they were taken, whether or not their tasks have started waiting
/// yet: two jobs admitted one after the other are served in that order even when the second one's
/// task happens to reach `acquire(_:)` first (a slot freed for a ticket whose task has not arrived is
/// kept for it). A waiter whose task is cancelled leaves the line at once and throws
/// `CancellationError`, so cancelling a queued job never costs a slot.
@MainActor
final class JobLimiter {
    /// A place in line. Every ticket must be passed to `acquire(_:)` exactly once, which either
    /// serves it or, for a cancelled task, gives its place (or its slot) up.
    struct Ticket: Sendable, Hashable {
        fileprivate let number: UInt64
        /// The place in the order of arrival (1 for the first ticket taken).
        var admission: UInt64 { number }
    }

    private var available: Int
    /// Tickets in the order taken, from `head` on, not yet given a slot (some abandoned).
    private var line: [UInt64] = []
    private var head = 0
    private var nextNumber: UInt64 = 0
    /// Tickets whose tasks are waiting in `acquire`.
    private var waiters: [UInt64: CheckedContinuation<Void, any Error>] = [:]
    /// Tickets given a slot before their tasks arrived.
    private var granted: Set<UInt64> = []
    /// Tickets whose tasks were cancelled while still in line; skipped when they reach the head.
    private var abandoned: Set<UInt64> = []

    /// - Parameter slots: how many holders may run at once (at least 1).
    nonisolated init(slots: Int) {
        available = max(1, slots)
    }

    /// How many tickets are in line without a slot yet (waiting, or taken and not yet waiting).
    package var waiting: Int { line.count - head - abandoned.count }

    /// How many tasks are parked in `acquire` (for tests that need a waiter to have arrived).
    package var arrived: Int { waiters.count }

    /// Takes the next place in line.
    func enqueue() -> Ticket {
        nextNumber += 1
        line.append(nextNumber)
        return Ticket(number: nextNumber)
    }

    /// Takes a place in line and waits for a slot: `acquire(enqueue())` (tests).
    package func acquire() async throws {
        try await acquire(enqueue())
    }

    /// Waits until every earlier ticket has been served or given up and a slot is free. Throws
    /// `CancellationError` if the task is cancelled while waiting (or before), giving up the place
    /// in line, or the slot if one had already been kept for this ticket.
    func acquire(_ ticket: Ticket) async throws {
        let number = ticket.number
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                // Serve whatever is free first, so a ticket at the head with a free slot goes now.
                dispatch()
                let cancelled = Task.isCancelled
                if granted.remove(number) != nil {
                    guard cancelled else { return c.resume() }
                    release()
                    return c.resume(throwing: CancellationError())
                }
                if cancelled {
                    abandoned.insert(number)
                    return c.resume(throwing: CancellationError())
                }
                waiters[number] = c
            }
        } onCancel: {
            Task { @MainActor in self.abandon(number) }
        }
    }

    /// Returns a slot: hands it straight to the first ticket in line, if any.
    func release() {
        available += 1
        dispatch()
    }

    /// A waiting ticket's task was cancelled: it leaves the line and its task throws.
    private func abandon(_ number: UInt64) {
        guard let c = waiters.removeValue(forKey: number) else { return }
        abandoned.insert(number)
        c.resume(throwing: CancellationError())
    }

    /// Hands free slots to the tickets at the head of the line.
    private func dispatch() {
        while available > 0 && head < line.count {
            let number = line[head]
            head += 1
            if abandoned.remove(number) != nil { continue }
            available -= 1
            if let c = waiters.removeValue(forKey: number) { c.resume() } else { granted.insert(number) }
        }
        if head > 1024 && head * 2 > line.count {
            line.removeFirst(head)
            head = 0
        }
    }
}
