import Synchronization

/// When a guess may start: a ``StageRunner/speculate(_:then:if:)`` guess that waits on a gate submits no work (so
/// holds no thread) until the gate opens. The sticker's classical maps wait for the first sign that the network's
/// map will not decide the cut alone: started at once, the guess took the thread the mirror pass freed and held it
/// while the photo's pass still had bands to share out, which made every decisive photo ~30 ms slower.
public final class SpeculationGate: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    public init() {}

    /// Lets the guess start (again and again: opening an open gate does nothing).
    public func open() {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.isOpen = true
            defer { s.waiters.removeAll() }
            return s.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    public var isOpen: Bool { state.withLock { $0.isOpen } }

    /// Returns once the gate is open.
    /// - Throws: `CancellationError` when the waiting task is cancelled first (a guess found unneeded).
    public func wait() async throws {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { s -> Bool in
                    if s.isOpen { return true }
                    s.waiters.append(c)
                    return false
                }
                if resumeNow { c.resume() }
            }
        } onCancel: {
            // The one waiter of a sticker's gate is its guess: cancelled, it no longer waits for anything.
            open()
        }
        try Task.checkCancellation()
    }
}
