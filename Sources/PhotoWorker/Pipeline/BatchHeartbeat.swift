import JSONRPC
import Synchronization

/// A batch's progress between its items: the items done so far, and, while a clip inside it is being made, a message
/// at most once a `period` saying how far that clip is ("sources[2]: 40 of 180 steps"), so a batch never goes quiet
/// for the length of a clip. Items are counted by the batch (``itemEnded()``); the clips' steps are their own
/// (``AnimatedProgress``).
final class BatchHeartbeat: Sendable {
    private struct State {
        var itemsDone = 0
        var lastBeat: ContinuousClock.Instant?
    }

    private let state = Mutex(State())
    let total: Int
    let period: Duration
    private let context: RequestContext

    init(context: RequestContext, total: Int, period: Duration = .seconds(1)) {
        (self.context, self.total, self.period) = (context, total, period)
    }

    /// One item ended (made or failed): the items done, for the batch's own progress.
    func itemEnded() -> Int { state.withLock { $0.itemsDone += 1; return $0.itemsDone } }

    /// The progress callback of the clip at `path` in the batch: its steps, said at most once a period.
    func clip(_ path: String) -> ImageAnimatedStickerMethod.Progress {
        { [self] done, total, message in
            let now = ContinuousClock.now
            let items: Int? = state.withLock { s in
                if let last = s.lastBeat, now - last < period { return nil }
                s.lastBeat = now
                return s.itemsDone
            }
            guard let items else { return }
            let said = "\(path): \(done) of \(total) steps" + (message.map { " (\($0))" } ?? "")
            await context.progress(done: items, total: self.total, message: said)
        }
    }
}
