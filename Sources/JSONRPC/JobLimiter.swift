import Synchronization

/// A FIFO counting semaphore for job slots, cancellation-aware.
///
/// Waiters are served strictly in arrival order; a waiter whose task is cancelled leaves the
/// queue at once and throws `CancellationError`, so cancelling a queued job never costs a slot.
public final class JobLimiter: Sendable {
    private struct State {
        var available: Int
        var waiters: [UInt64: CheckedContinuation<Void, any Error>] = [:]
        var order: [UInt64] = []
        var head = 0
        var nextTicket: UInt64 = 0

        mutating func popFirstWaiter() -> CheckedContinuation<Void, any Error>? {
            while head < order.count {
                let ticket = order[head]
                head += 1
                if let c = waiters.removeValue(forKey: ticket) {
                    compact()
                    return c
                }
            }
            compact()
            return nil
        }

        mutating func compact() {
            if head > 1024 && head * 2 > order.count {
                order.removeFirst(head)
                head = 0
            }
        }
    }

    private let state: Mutex<State>

    /// - Parameter slots: how many holders may run at once (at least 1).
    public init(slots: Int) {
        state = Mutex(State(available: max(1, slots)))
    }

    /// How many tasks are waiting for a slot.
    public var waiting: Int { state.withLock { $0.waiters.count } }

    /// Waits for a slot in FIFO order. Throws `CancellationError` if the task is cancelled
    /// while waiting (or before).
    public func acquire() async throws {
        let ticket = state.withLock { s -> UInt64 in
            s.nextTicket += 1
            return s.nextTicket
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                enum Decision { case go, wait, cancelled }
                let decision = state.withLock { s -> Decision in
                    if Task.isCancelled { return .cancelled }
                    if s.available > 0 && s.waiters.isEmpty {
                        s.available -= 1
                        return .go
                    }
                    s.waiters[ticket] = c
                    s.order.append(ticket)
                    return .wait
                }
                switch decision {
                case .go: c.resume()
                case .cancelled: c.resume(throwing: CancellationError())
                case .wait: break
                }
            }
        } onCancel: {
            let c = state.withLock { $0.waiters.removeValue(forKey: ticket) }
            c?.resume(throwing: CancellationError())
        }
    }

    /// Returns a slot: hands it straight to the longest waiter, if any.
    public func release() {
        let next = state.withLock { s -> CheckedContinuation<Void, any Error>? in
            if let c = s.popFirstWaiter() { return c }
            s.available += 1
            return nil
        }
        next?.resume()
    }
}
