import Foundation
import Synchronization

import Glibc

/// The single writer of the protocol stream.
///
/// `send` appends one whole framed message (a line, or a Content-Length header and body) to a queue under a
/// lock and returns at once, so callers (the main-actor registry, job tasks) never block on a slow client; a
/// dedicated thread drains the queue with a loop over partial `write(2)`s. Because a message is appended whole
/// under the lock, messages can never interleave, and their order is the order of `send` calls.
///
/// When the reader of the stream goes away (EPIPE, or `poll` reports an error on an idle pipe)
/// the writer calls the ``whenClosed(_:)`` handler once and drops everything after.
///
/// Transport side: a thread for the blocking `write(2)` and a lock for the hand-over to it (the
/// protocol side above keeps its state on the main actor, without locks).
public final class MessageWriter: Sendable {
    private struct State {
        var pending: [UInt8] = []
        var flushWaiters: [DispatchSemaphore] = []
        var closed = false
        var onClosed: (@Sendable () -> Void)?
        var framing = MessageFraming.ndjson
    }

    private let fd: Int32
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)

    /// - Parameters:
    ///   - fd: the descriptor to write (the duplicated real stdout); left blocking.
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
        let queued = state.withLock { s -> Bool in
            if s.closed { return false }
            switch s.framing {
            case .ndjson:
                s.pending.append(contentsOf: message)
                s.pending.append(0x0A)
            case .contentLength:
                s.pending.append(contentsOf: "Content-Length: \(message.count)\r\n\r\n".utf8)
                s.pending.append(contentsOf: message)
            }
            return true
        }
        if queued { wake.signal() }
    }

    /// Answers in `framing` from the next message on (the reader sets it once it knows how the
    /// client speaks, before the first request is handled).
    public func setFraming(_ framing: MessageFraming) {
        state.withLock { $0.framing = framing }
    }

    /// Blocks until everything queued before this call has been written (or the stream closed),
    /// or until `timeout` seconds pass.
    public func flush(timeout: Double = 10) {
        let done = DispatchSemaphore(value: 0)
        let alreadyIdle = state.withLock { s -> Bool in
            if s.closed || s.pending.isEmpty { return true }
            s.flushWaiters.append(done)
            return false
        }
        if alreadyIdle { return }
        wake.signal()
        _ = done.wait(timeout: .now() + timeout)
    }

    private func run() {
        var chunk: [UInt8] = []
        while true {
            // Idle: wake up now and then to notice a peer that went away while we had nothing to say.
            if wake.wait(timeout: .now() + .milliseconds(200)) == .timedOut {
                if peerHasClosed() { markClosed(); return }
                continue
            }
            var waiters: [DispatchSemaphore] = []
            state.withLock { s in
                swap(&chunk, &s.pending)
                s.pending.removeAll(keepingCapacity: true)
                waiters = s.flushWaiters
                s.flushWaiters.removeAll()
            }
            if !chunk.isEmpty {
                if !writeAll(chunk) {
                    markClosed()
                    for w in waiters { w.signal() }
                    return
                }
                chunk.removeAll(keepingCapacity: true)
            }
            // A flush waiter registered before the swap is satisfied; one registered after sees
            // pending non-empty and waits for the next round.
            for w in waiters { w.signal() }
        }
    }

    private func writeAll(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n > 0 { offset += n; continue }
                if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
                return false
            }
            return true
        }
    }

    private func peerHasClosed() -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        let r = poll(&p, 1, 0)
        return r > 0 && (Int32(p.revents) & (POLLERR | POLLHUP | POLLNVAL)) != 0
    }

    private func markClosed() {
        let (waiters, onClosed) = state.withLock { s -> ([DispatchSemaphore], (@Sendable () -> Void)?) in
            s.closed = true
            s.pending = []
            let w = s.flushWaiters
            s.flushWaiters = []
            defer { s.onClosed = nil }
            return (w, s.onClosed)
        }
        for w in waiters { w.signal() }
        onClosed?()
    }
}
