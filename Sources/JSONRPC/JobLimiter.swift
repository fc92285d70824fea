import Synchronization

/// A FIFO counting semaphore for job slots, cancellation-aware.
///
/// Places in line are tickets, taken with `enqueue()` when a job is admitted, and slots go to
/// tickets strictly in the order they were taken, whether or not their tasks have started waiting
/// yet: two jobs admitted one after the other are served in that order even when the second one's
/// task happens to reach `acquire(_:)` first (a slot freed for a ticket whose task has not arrived is
/// kept for it). A waiter whose task is cancelled leaves the line at once and throws
/// `CancellationError`, so cancelling a queued job never costs a slot.
public final class JobLimiter: Sendable {
    /// A place in line. Every ticket must be passed to `acquire(_:)` exactly once, which either
    /// serves it or, for a cancelled task, gives its place (or its slot) up.
    public struct Ticket: Sendable, Hashable {
        fileprivate let number: UInt64
        /// The place in the order of arrival (1 for the first ticket taken).
        public var admission: UInt64 { number }
    }

    private struct State {
        var available: Int
        /// Tickets in the order taken, from `head` on, not yet given a slot (some abandoned).
        var line: [UInt64] = []
        var head = 0
        var nextNumber: UInt64 = 0
        /// Tickets whose tasks are waiting in `acquire`.
        var waiters: [UInt64: CheckedContinuation<Void, any Error>] = [:]
        /// Tickets given a slot before their tasks arrived.
        var granted: Set<UInt64> = []
        /// Tickets whose tasks were cancelled while still in line; skipped when they reach the head.
        var abandoned: Set<UInt64> = []

        /// Hands free slots to the tickets at the head of the line; returns the waiters to resume
        /// (outside the lock).
        mutating func dispatch() -> [CheckedContinuation<Void, any Error>] {
            var resume: [CheckedContinuation<Void, any Error>] = []
            while available > 0 && head < line.count {
                let number = line[head]
                head += 1
                if abandoned.remove(number) != nil { continue }
                available -= 1
                if let c = waiters.removeValue(forKey: number) { resume.append(c) } else { granted.insert(number) }
            }
            if head > 1024 && head * 2 > line.count {
                line.removeFirst(head)
                head = 0
            }
            return resume
        }
    }

    private let state: Mutex<State>

    /// - Parameter slots: how many holders may run at once (at least 1).
    public init(slots: Int) {
        state = Mutex(State(available: max(1, slots)))
    }

    /// How many tickets are in line without a slot yet (waiting, or taken and not yet waiting).
    public var waiting: Int {
        state.withLock { $0.line.count - $0.head - $0.abandoned.count }
    }

    /// How many tasks are parked in `acquire` (for tests that need a waiter to have arrived).
    var arrived: Int { state.withLock { $0.waiters.count } }

    /// Takes the next place in line.
    public func enqueue() -> Ticket {
        state.withLock { s in
            s.nextNumber += 1
            s.line.append(s.nextNumber)
            return Ticket(number: s.nextNumber)
        }
    }

    /// Takes a place in line and waits for a slot: `acquire(enqueue())`.
    public func acquire() async throws {
        try await acquire(enqueue())
    }

    /// Waits until every earlier ticket has been served or given up and a slot is free. Throws
    /// `CancellationError` if the task is cancelled while waiting (or before), giving up the place
    /// in line, or the slot if one had already been kept for this ticket.
    public func acquire(_ ticket: Ticket) async throws {
        let number = ticket.number
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                enum Decision { case go, wait, cancelled }
                var handOn: [CheckedContinuation<Void, any Error>] = []
                let decision = state.withLock { s -> Decision in
                    // Serve whatever is free first, so a ticket at the head with a free slot goes now.
                    handOn = s.dispatch()
                    let cancelled = Task.isCancelled
                    if s.granted.remove(number) != nil {
                        guard cancelled else { return .go }
                        s.available += 1
                        handOn += s.dispatch()
                        return .cancelled
                    }
                    if cancelled {
                        s.abandoned.insert(number)
                        return .cancelled
                    }
                    s.waiters[number] = c
                    return .wait
                }
                for waiter in handOn { waiter.resume() }
                switch decision {
                case .go: c.resume()
                case .cancelled: c.resume(throwing: CancellationError())
                case .wait: break
                }
            }
        } onCancel: {
            let c = state.withLock { s -> CheckedContinuation<Void, any Error>? in
                guard let c = s.waiters.removeValue(forKey: number) else { return nil }
                s.abandoned.insert(number)
                return c
            }
            c?.resume(throwing: CancellationError())
        }
    }

    /// Returns a slot: hands it straight to the first ticket in line, if any.
    public func release() {
        let resume = state.withLock { s -> [CheckedContinuation<Void, any Error>] in
            s.available += 1
            return s.dispatch()
        }
        for c in resume { c.resume() }
    }
}
