import Dispatch
import Synchronization

/// The shared state of one ``ComputePiece/forEach(_:_:)``: the next index to hand out, the helpers that
/// joined, and the first error.
final class ParallelRegion: Sendable {
    private struct State {
        var closed = false
        var active = 0
        var threads = 0
        var error: (any Error)?
    }

    private let count: Int
    private let next = Atomic<Int>(0)
    private let state = Mutex(State())
    private let helpersDone = DispatchSemaphore(value: 0)
    /// Dropped by `finish`: a helper piece may hold this region a moment after the caller has returned, and
    /// the caller's `body` must not outlive its call (it may borrow the caller's non-escaping closures).
    private let body: Mutex<(@Sendable (Int, Int) throws -> Void)?>

    init(count: Int, body: @escaping @Sendable (Int, Int) throws -> Void) {
        self.count = count
        self.body = Mutex(body)
    }

    /// Takes indices until none are left (or one failed).
    func run(thread: Int) {
        guard let body = body.withLock({ $0 }) else { return }
        while true {
            let i = next.add(1, ordering: .relaxed).oldValue
            guard i < count else { return }
            do {
                try body(thread, i)
            } catch {
                // No index starts from here on (an index another thread took before this still runs).
                next.store(count, ordering: .relaxed)
                state.withLock { if $0.error == nil { $0.error = error } }
                return
            }
        }
    }

    /// A helper piece: joins unless the caller has finished (`body` checks the cancellation of the loop it closes
    /// over, on whichever thread it runs).
    func help() {
        guard let thread = state.withLock({ s -> Int? in
            guard !s.closed else { return nil }
            s.active += 1
            s.threads += 1
            return s.threads
        }) else { return }
        run(thread: thread)
        let last = state.withLock { s -> Bool in
            s.active -= 1
            return s.closed && s.active == 0
        }
        if last { helpersDone.signal() }
    }

    /// The caller's end: no helper joins any more; waits for those that joined.
    func finish() throws {
        let wait = state.withLock { s -> Bool in
            s.closed = true
            return s.active > 0
        }
        if wait { helpersDone.wait() }
        body.withLock { $0 = nil }
        if let error = state.withLock({ $0.error }) { throw error }
    }
}
