import Synchronization
import Waiting

import Glibc

/// The single writer of the protocol stream.
///
/// `send` appends one whole framed message (a line, or a Content-Length header and body) to a queue under a
/// lock and returns at once, so callers (the main-actor registry, job tasks) never block on a slow client; a
/// dedicated thread drains the queue with a loop over partial `write(2)`s. Because a message is appended whole
/// under the lock, messages can never interleave, and their order is the order of `send` calls.
///
/// The thread sleeps in `poll(2)` until there is something to write, a ``flush()``, a ``stop()``, or the reader of
/// the stream going away (EPIPE, or `poll` reporting an error or hang-up on the idle descriptor); then the writer
/// calls the ``whenClosed(_:)`` handler once and drops everything after. ``stop()`` writes what is queued and
/// ends the thread: the thread lives as long as its owner serves.
///
/// The thread never sits in a `write(2)` that nothing can end: it waits in `poll(2)` for the descriptor to take
/// bytes, beside the wake-up pipe, and then writes at most `PIPE_BUF` bytes, which a pipe or socket that polls
/// writable takes without blocking. So a stop whose caller gives up (its task cancelled: a client that reads
/// nothing) ends the thread at once, the bytes not yet written dropped, instead of leaving it blocked for good.
///
/// Transport side: a thread for the blocking `write(2)` and a lock for the hand-over to it (the
/// protocol side above keeps its state on the main actor, without locks).
public final class MessageWriter: Sendable {
    private typealias Ticket = ContinuationQueue<Void>.Ticket

    private struct State {
        var pending: [UInt8] = []
        /// The writing thread has taken a chunk it has not finished writing.
        var writing = false
        /// Callers of `flush()` and `stop()`, resumed when their round is written or the thread ends.
        var waiters = ContinuationQueue<Void>()
        /// Flushes waiting for the next round (registered before the thread takes the queue).
        var nextRound: [Ticket] = []
        var stopping = false
        /// The caller of `stop()` gave up waiting: the thread drops what is not written and ends.
        var abandoned = false
        /// The thread found nothing to do and sleeps (or is about to) in poll(2): the next send, flush or stop
        /// wakes it, once; while it works, sends only append (a signal per message cost a system call each).
        var sleeping = false

        /// Whether a caller must wake the thread now; it is awake from here on.
        mutating func wakeNeeded() -> Bool {
            defer { sleeping = false }
            return sleeping
        }
        /// The thread has ended (the peer went away, or `stop()`): later messages are dropped.
        var closed = false
        var onClosed: (@Sendable () -> Void)?
        var framing = MessageFraming.ndjson
    }

    private let fd: Int32
    private let state = Mutex(State())
    private let wake = WakeupPipe()

    /// - Parameters:
    ///   - fd: the descriptor to write (the duplicated real stdout); left blocking, and open: the caller closes it
    ///     once the writer has stopped.
    ///   - threadName: the writing thread's name.
    public init(fd: Int32, threadName: String = "jsonrpc-writer") {
        self.fd = fd
        BlockingThread.start(name: threadName) { [self] in self.run() }
    }

    /// Calls `handler` once when the peer has closed the stream (at once if it already has).
    public func whenClosed(_ handler: @escaping @Sendable () -> Void) {
        let now = state.withLock { s -> Bool in
            if s.closed { return true }
            s.onClosed = handler
            return false
        }
        if now { handler() }
    }

    /// Queues one message (its bytes, without framing). Never blocks on I/O.
    public func send(_ message: [UInt8]) {
        let wakeNeeded = state.withLock { s -> Bool in
            if s.closed { return false }
            switch s.framing {
            case .ndjson:
                s.pending.append(contentsOf: message)
                s.pending.append(0x0A)
            case .contentLength:
                s.pending.append(contentsOf: "Content-Length: \(message.count)\r\n\r\n".utf8)
                s.pending.append(contentsOf: message)
            }
            return s.wakeNeeded()
        }
        if wakeNeeded { wake.signal() }
    }

    /// Answers in `framing` from the next message on (the reader sets it once it knows how the
    /// client speaks, before the first request is handled).
    public func setFraming(_ framing: MessageFraming) {
        state.withLock { $0.framing = framing }
    }

    /// Returns once everything queued before this call has been written (or the stream closed), or when the
    /// calling task is cancelled (a deadline is the caller's: cancel the task on its timer).
    public func flush() async {
        guard let (ticket, wakeNeeded) = state.withLock({ s -> (Ticket, Bool)? in
            if s.closed || (s.pending.isEmpty && !s.writing) { return nil }
            let ticket = s.waiters.enqueue()
            s.nextRound.append(ticket)
            return (ticket, s.wakeNeeded())
        }) else { return }
        if wakeNeeded { wake.signal() }
        await park(ticket)
    }

    /// Writes what is queued, ends the writing thread and returns once it has ended. Messages sent after are
    /// dropped. A deadline is the caller's: when the calling task is cancelled (a client that reads nothing will
    /// not take the rest), the thread drops what it has not written and ends, and `stop` returns at once.
    public func stop() async {
        guard let (ticket, wakeNeeded) = state.withLock({ s -> (Ticket, Bool)? in
            if s.closed { return nil }
            s.stopping = true
            return (s.waiters.enqueue(), s.wakeNeeded())
        }) else { return }
        if wakeNeeded { wake.signal() }
        await park(ticket) { [self] in
            state.withLock { $0.abandoned = true }
            wake.signal()
        }
    }

    private func park(_ ticket: Ticket, onCancel: @escaping @Sendable () -> Void = {}) async {
        _ = try? await Parking.wait({ c in state.withLock { $0.waiters.park(ticket, c) }.perform() }, onCancel: {
            state.withLock { $0.waiters.resolve(ticket, with: .failure(CancellationError())) }.perform()
            onCancel()
        })
    }

    private func run() {
        var chunk: [UInt8] = []
        while true {
            let (round, stopping) = state.withLock { s -> ([Ticket], Bool) in
                swap(&chunk, &s.pending)
                s.pending.removeAll(keepingCapacity: true)
                s.writing = !chunk.isEmpty
                s.sleeping = chunk.isEmpty && s.nextRound.isEmpty && !s.stopping
                defer { s.nextRound = [] }
                return (s.nextRound, s.stopping)
            }
            if chunk.isEmpty && round.isEmpty {
                if stopping { return end(peerClosed: false) }
                // Idle: sleep until a send, a flush or a stop signals, or the peer goes away.
                switch wake.wait(for: fd, events: 0) {
                case .signalled: continue
                case .ready, .invalid: return end(peerClosed: true)
                }
            }
            if !chunk.isEmpty {
                switch writeAll(chunk) {
                case .written: break
                case .peerClosed: return end(peerClosed: true)
                case .abandoned: return end(peerClosed: false)
                }
            }
            chunk.removeAll(keepingCapacity: true)
            // A flush registered before the swap is satisfied; one registered after waits for the next round.
            state.withLock { s in
                s.writing = false
                return round.compactMap { s.waiters.resolve($0, with: .success(())) }
            }.perform()
        }
    }

    private enum WriteOutcome { case written, peerClosed, abandoned }

    /// Writes `bytes` in pieces the descriptor takes without blocking: poll for room (or a wake-up: an abandoned
    /// stop), then at most `PIPE_BUF` bytes. While the thread writes, sends only append (they wake nobody), so a
    /// wake-up here is a stop's, or a flush's that the next round serves.
    private func writeAll(_ bytes: [UInt8]) -> WriteOutcome {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                switch wake.wait(for: fd, events: Int16(POLLOUT)) {
                case .signalled:
                    if state.withLock({ $0.abandoned }) { return .abandoned }
                    continue
                case .invalid: return .peerClosed
                case .ready: break
                }
                let n = write(fd, raw.baseAddress! + offset, min(raw.count - offset, Int(PIPE_BUF)))
                if n > 0 { offset += n; continue }
                if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
                return .peerClosed
            }
            return .written
        }
    }

    /// The thread's last act: nothing more is written, every flush and stop waiting returns, and a peer that
    /// went away is reported.
    private func end(peerClosed: Bool) {
        let onClosed = state.withLock { s -> (@Sendable () -> Void)? in
            s.closed = true
            s.writing = false
            s.pending = []
            s.nextRound = []
            defer { s.onClosed = nil }
            return peerClosed ? s.onClosed : nil
        }
        state.withLock { $0.waiters.resolveAll(with: .success(())) }.perform()
        onClosed?()
    }
}
