import Dispatch
import Synchronization

/// The queue of one ``ComputePiece/pipelined(_:process:)``: items not yet taken, the helper pieces submitted and not
/// yet finished (or removed), and the caller's wait for them.
final class HandOffLine<Item: Sendable>: Sendable {
    private struct State {
        var items: [Item] = []
        var head = 0
        /// A helper is queued or taking items: no other is submitted (the items are one stream).
        var helperActive = false
        /// Helper pieces submitted that have neither finished nor been removed from the pool's queue.
        var outstanding = 0
        var closed = false
        /// Flags of the helper pieces submitted, to remove those still queued at the end.
        var submitted: [CancellationFlag] = []
    }

    private let state = Mutex(State())
    private let process: @Sendable (Item) -> Void
    private let helpersLeft = DispatchSemaphore(value: 0)

    init(process: @escaping @Sendable (Item) -> Void) {
        self.process = process
    }

    /// Queues `item`; returns the flag of a helper piece to submit when no helper is queued or taking items.
    func add(_ item: Item) -> CancellationFlag? {
        state.withLock { s in
            s.items.append(item)
            guard !s.helperActive, !s.closed else { return nil }
            s.helperActive = true
            s.outstanding += 1
            let helper = CancellationFlag()
            s.submitted.append(helper)
            return helper
        }
    }

    /// The next item; nil when none is left (a helper then stops being active).
    private func take(asHelper: Bool) -> Item? {
        state.withLock { s -> Item? in
            if s.head < s.items.count {
                defer { s.head += 1 }
                return s.items[s.head]
            }
            if asHelper { s.helperActive = false }
            return nil
        }
    }

    /// A helper piece: processes items until none are left (`process` checks the loop it closes over, if it checks
    /// cancellation at all).
    func help() {
        while let item = take(asHelper: true) { process(item) }
        let lastForWaitingCaller = state.withLock { s -> Bool in
            s.outstanding -= 1
            return s.closed && s.outstanding == 0
        }
        if lastForWaitingCaller { helpersLeft.signal() }
    }

    /// No helper is submitted any more; returns the flags of those submitted (some may still be queued).
    func close() -> [CancellationFlag] {
        state.withLock { s in
            s.closed = true
            return s.submitted
        }
    }

    /// A submitted helper was removed from the pool's queue before any thread took it.
    func removed() {
        state.withLock { $0.outstanding -= 1 }
    }

    /// The caller's end, after `close` and the removal of queued helpers: processes what is left (or drops it),
    /// then waits for helpers still taking items (the last to finish signals, seeing `closed`).
    func finish(processingRest: Bool) {
        if processingRest {
            while let item = take(asHelper: false) { process(item) }
        } else {
            state.withLock { $0.head = $0.items.count }
        }
        if state.withLock({ $0.outstanding > 0 }) { helpersLeft.wait() }
    }
}
