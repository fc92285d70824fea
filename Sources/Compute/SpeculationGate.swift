import Synchronization
import Waiting

/// When a guess may start: the guess of a ``PoolStages`` runner's ``PoolStages/speculate(_:then:if:)``, when the
/// runner was made with a gate, submits no work (so holds no thread) until the gate opens. The gate is the
/// scheduler's (the sticker stage makes it and opens it from the network's first undecided map), never the
/// algorithm's, which only says that its guess may run beside. The sticker's classical maps wait for the first sign that the network's
/// map will not decide the cut alone: started at once, the guess took the thread the mirror pass freed and held it
/// while the photo's pass still had bands to share out, which made every decisive photo ~30 ms slower.
public final class SpeculationGate: Sendable {
    private struct State {
        var isOpen = false
        var waiters = ContinuationQueue<Void>()
    }

    private let state = Mutex(State())

    public init() {}

    /// Lets the guess start (again and again: opening an open gate does nothing).
    public func open() {
        state.withLock { s in
            s.isOpen = true
            return s.waiters.resolveAll(with: .success(()))
        }.perform()
    }

    public var isOpen: Bool { state.withLock { $0.isOpen } }

    /// Returns once the gate is open.
    /// - Throws: `CancellationError` when the waiting task is cancelled first (a guess found unneeded); the gate
    ///   stays as it was.
    public func wait() async throws {
        guard let ticket = state.withLock({ s in s.isOpen ? nil : s.waiters.enqueue() }) else {
            return try Task.checkCancellation()
        }
        try await Parking.wait({ c in state.withLock { $0.waiters.park(ticket, c) }.perform() }, onCancel: {
            state.withLock { $0.waiters.resolve(ticket, with: .failure(CancellationError())) }.perform()
        })
        try Task.checkCancellation()
    }
}
