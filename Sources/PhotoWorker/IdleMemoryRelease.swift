import Foundation
import Inference
import JSONRPC
import Synchronization

/// Hands back the memory the worker keeps for its next job once no compute job has run for `delay`: the network
/// passes' activation blocks and malloc's free arena memory. Kept while jobs follow each other (a script sending
/// stickers one by one reuses blocks already mapped: fresh ones cost a sticker ~10%), returned when the worker
/// sits idle (an editor's worker between uses goes back to its size at start-up, plus the model).
final class IdleMemoryRelease: Sendable {
    private struct State {
        var running = 0
        /// Counts job starts: a timer armed when the last job ended releases only if none started since (the check
        /// for a timer firing as a job starts, which the cancel below may not catch).
        var generation = 0
        /// The idle stretch's timer, cancelled when a job starts.
        var timer: ScheduledTimer?
    }

    private let state = Mutex(State())
    private let delay: Duration
    private let timers: any TimerScheduler
    private let release: @Sendable () -> Void

    /// - Parameter release: called on the timer's queue, at most once per idle stretch.
    init(after delay: Duration, timers: any TimerScheduler, release: @escaping @Sendable () -> Void) {
        self.delay = delay
        self.timers = timers
        self.release = release
    }

    /// The worker's: its activation blocks, then what malloc holds free, off the timer's queue (the protocol
    /// side's: a trim walks every arena).
    convenience init(after delay: Duration, timers: any TimerScheduler, activations: ActivationMemory) {
        self.init(after: delay, timers: timers) {
            Task.detached(priority: .utility) { activations.handBack() }
        }
    }

    /// Runs a compute job, counted.
    func job<T>(_ body: () async throws -> T) async rethrows -> T {
        let idleTimer = state.withLock { s -> ScheduledTimer? in
            s.running += 1
            s.generation += 1
            defer { s.timer = nil }
            return s.timer
        }
        idleTimer?.cancel()
        defer { ended() }
        return try await body()
    }

    private func ended() {
        let generation = state.withLock { s -> Int? in
            s.running -= 1
            return s.running == 0 ? s.generation : nil
        }
        guard let generation else { return }
        let timer = timers.after(delay) { [weak self] in
            guard let self, state.withLock({ $0.running == 0 && $0.generation == generation }) else { return }
            release()
        }
        // Kept for the next job to cancel; a job that started meanwhile has made it stale.
        let stale = state.withLock { s -> ScheduledTimer? in
            guard s.running == 0, s.generation == generation else { return timer }
            s.timer = timer
            return nil
        }
        stale?.cancel()
    }
}
