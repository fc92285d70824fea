import Foundation
import Synchronization
import Waiting

import Glibc

/// Reads a descriptor on a dedicated thread and delivers framed messages (NDJSON lines or
/// Content-Length bodies, see ``InputFramer``) as an async sequence.
///
/// Linux Foundation has no async `FileHandle.bytes`, and a blocking `read(2)` must never sit on
/// a cooperative-pool thread, hence the thread. Each `read` yields one batch of events; the
/// thread waits for the consumer to acknowledge a bounded number of batches, so a fast client
/// cannot make the worker buffer unbounded input. The thread ends at the end of the input or when
/// ``stop()`` is called: it sleeps in `poll(2)` on the input and a wake-up pipe, never in a `read` that
/// nothing could interrupt.
public final class FrameReader: Sendable {
    /// One read's worth of events, or the end of the input.
    public enum Batch: Sendable {
        case events([FrameEvent])
        case endOfInput
    }

    public let batches: AsyncStream<Batch>
    private let continuation: AsyncStream<Batch>.Continuation
    private let credits: DispatchSemaphore
    private let wake = WakeupPipe()
    private let stopped = Atomic<Bool>(false)
    /// ``stopAfterAvailableInput()`` was called: read only what has arrived, then end.
    private let draining = Atomic<Bool>(false)
    /// Callers of ``waitUntilEnded()``; `ended` once the thread has returned.
    private let ending = Mutex<(ended: Bool, waiters: ContinuationQueue<Void>)>((false, ContinuationQueue<Void>()))

    /// - Parameters:
    ///   - fd: the input descriptor (left blocking, and open: the caller closes it once the reader has ended).
    ///   - maxMessageBytes: the cap on one message (a line, or a Content-Length body).
    ///   - framing: the framing to read, or nil to detect it from the first bytes.
    ///   - onFraming: called once, on the reader thread, with the framing in force, before the
    ///     first batch is delivered (so the writer answers in it from the first reply on).
    ///   - maxPendingBatches: how many batches may wait for the consumer before reading pauses.
    ///   - threadName: the reading thread's name.
    public init(fd: Int32, maxMessageBytes: Int, framing: MessageFraming? = nil,
                onFraming: @escaping @Sendable (MessageFraming) -> Void = { _ in },
                maxPendingBatches: Int = 64, threadName: String = "jsonrpc-reader") {
        (batches, continuation) = AsyncStream.makeStream(of: Batch.self, bufferingPolicy: .unbounded)
        credits = DispatchSemaphore(value: maxPendingBatches)
        BlockingThread.start(name: threadName) { [self, continuation, credits, wake] in
            defer {
                continuation.finish()
                ending.withLock { e in
                    e.ended = true
                    return e.waiters.resolveAll(with: .success(()))
                }.perform()
            }
            var framer = InputFramer(framing: framing, maxMessageBytes: maxMessageBytes)
            var announced = false
            let size = 1 << 16
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
            defer { buffer.deallocate() }
            while !self.stopped.load(ordering: .acquiring) {
                if self.draining.load(ordering: .acquiring) {
                    // Only what has arrived: a poll that does not wait, and nothing (more) to read ends the reading.
                    var input = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                    if poll(&input, 1, 0) <= 0 { return }
                } else if case .signalled = wake.wait(for: fd, events: Int16(POLLIN)) {
                    // Slept until input (or its end) or a stop; a descriptor closed under us reads as the end.
                    continue
                }
                let n = read(fd, buffer.baseAddress!, size)
                if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
                var events: [FrameEvent] = []
                if n <= 0 {
                    framer.finish { events.append($0) }
                    if !events.isEmpty { continuation.yield(.events(events)) }
                    continuation.yield(.endOfInput)
                    return
                }
                framer.feed(UnsafeRawBufferPointer(rebasing: buffer[0..<n])) { events.append($0) }
                if !announced, let detected = framer.framing {
                    announced = true
                    onFraming(detected)
                }
                if events.isEmpty { continue }
                credits.wait()
                if self.stopped.load(ordering: .acquiring) { return }
                continuation.yield(.events(events))
            }
        }
    }

    /// Returns once the reading thread has returned (after the end of the input or ``stop()``): from then on
    /// nothing reads the descriptor, and its owner may close it. Returns early if the calling task is cancelled.
    public func waitUntilEnded() async {
        guard let ticket = ending.withLock({ e in e.ended ? nil : e.waiters.enqueue() }) else { return }
        _ = try? await Parking.wait({ c in ending.withLock { $0.waiters.park(ticket, c) }.perform() }, onCancel: {
            ending.withLock { $0.waiters.resolve(ticket, with: .failure(CancellationError())) }.perform()
        })
    }

    /// The consumer calls this after handling each `.events` batch.
    public func acknowledge() { credits.signal() }

    /// Ends ``batches`` once the input that has already arrived is read and delivered, without waiting for more:
    /// what the client wrote before this call is handled (a message it has only begun to write is dropped).
    /// ``stop()`` still ends the reading at once (a client that never stops writing would keep this one going).
    public func stopAfterAvailableInput() {
        draining.store(true, ordering: .releasing)
        wake.signal()
    }

    /// Ends ``batches`` now (the server is ending) and the reading thread with it, even while it waits for input
    /// or for the consumer; what it had read and not delivered is dropped.
    public func stop() {
        stopped.store(true, ordering: .releasing)
        continuation.finish()
        wake.signal()
        credits.signal()
    }
}
