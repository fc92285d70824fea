import JSONRPC
import JSONRPCTransport
import Synchronization

/// A batch's stream: its items' progress and results, and, while a clip inside it is being made, a message at most
/// once a `period` saying how far that clip is ("sources[2]: 40 of 180 steps"), so a batch never goes quiet for the
/// length of a clip.
///
/// Every event is put in order under one lock and sent by one consumer (``forward()``), so the count never goes back:
/// a clip's message can never overtake the end of an item that it read the count before. Items are counted by the
/// batch (``itemEnded(_:)``); a clip's steps are its own (``AnimatedProgress``).
final class BatchHeartbeat<Item: Encodable & Sendable>: Sendable {
    enum Event: Sendable {
        case progress(done: Int, total: Int, message: String?)
        case result(index: Int, Item)
        case failure(index: Int, RPCError)
    }

    private struct State {
        var itemsDone = 0
        var lastBeat: ContinuousClock.Instant?
    }

    private let state = Mutex(State())
    private let events: AsyncStream<Event>
    private let sink: AsyncStream<Event>.Continuation
    let total: Int
    let period: Duration
    /// The message that goes with each item's count (`pack.export`'s "cut out"), if any.
    let itemMessage: String?
    private let context: RequestContext

    init(context: RequestContext, total: Int, itemMessage: String? = nil, period: Duration = .seconds(1)) {
        (self.context, self.total, self.itemMessage, self.period) = (context, total, itemMessage, period)
        (events, sink) = AsyncStream.makeStream()
    }

    /// Sends the events in order until ``finish()``; await it before the batch's reply.
    func forward() async {
        for await event in events {
            switch event {
            case .progress(let done, let total, let message): await context.progress(done: done, total: total, message: message)
            case .result(let index, let item): await context.item(index: index, result: item)
            case .failure(let index, let error): await context.item(index: index, error: error)
            }
        }
    }

    func finish() { sink.finish() }

    /// One item ended: the count of items ended, then `outcome` (a result or an error to stream; nil: nothing).
    func itemEnded(_ outcome: Event? = nil) {
        state.withLock { s in
            s.itemsDone += 1
            sink.yield(.progress(done: s.itemsDone, total: total, message: itemMessage))
            if let outcome { sink.yield(outcome) }
        }
    }

    /// The progress callback of the clip at `path` in the batch: its steps, said at most once a period.
    func clip(_ path: String) -> ImageAnimatedStickerMethod.Progress {
        { [self] done, total, message in
            let now = ContinuousClock.now
            state.withLock { s in
                if let last = s.lastBeat, now - last < period { return }
                s.lastBeat = now
                let said = "\(path): \(done) of \(total) steps" + (message.map { " (\($0))" } ?? "")
                sink.yield(.progress(done: s.itemsDone, total: self.total, message: said))
            }
        }
    }
}
