import Foundation

import Glibc

/// Reads a descriptor on a dedicated thread and delivers framed messages (NDJSON lines or
/// Content-Length bodies, see ``InputFramer``) as an async sequence.
///
/// Linux Foundation has no async `FileHandle.bytes`, and a blocking `read(2)` must never sit on
/// a cooperative-pool thread, hence the thread. Each `read` yields one batch of events; the
/// thread waits for the consumer to acknowledge a bounded number of batches, so a fast client
/// cannot make the worker buffer unbounded input.
public final class FrameReader: Sendable {
    /// One read's worth of events, or the end of the input.
    public enum Batch: Sendable {
        case events([FrameEvent])
        case endOfInput
    }

    public let batches: AsyncStream<Batch>
    private let continuation: AsyncStream<Batch>.Continuation
    private let credits: DispatchSemaphore

    /// - Parameters:
    ///   - fd: the input descriptor (left blocking).
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
        let continuation = self.continuation
        let credits = self.credits
        BlockingThread.start(name: threadName) {
            var framer = InputFramer(framing: framing, maxMessageBytes: maxMessageBytes)
            var announced = false
            let size = 1 << 16
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
            defer { buffer.deallocate() }
            while true {
                let n = read(fd, buffer.baseAddress!, size)
                if n < 0 && errno == EINTR { continue }
                var events: [FrameEvent] = []
                if n <= 0 {
                    framer.finish { events.append($0) }
                    if !events.isEmpty { continuation.yield(.events(events)) }
                    continuation.yield(.endOfInput)
                    continuation.finish()
                    return
                }
                framer.feed(UnsafeRawBufferPointer(rebasing: buffer[0..<n])) { events.append($0) }
                if !announced, let detected = framer.framing {
                    announced = true
                    onFraming(detected)
                }
                if events.isEmpty { continue }
                credits.wait()
                continuation.yield(.events(events))
            }
        }
    }

    /// The consumer calls this after handling each `.events` batch.
    public func acknowledge() { credits.signal() }

    /// Ends ``batches`` now (the server is ending); what the thread reads afterwards is dropped.
    public func stop() { continuation.finish() }
}
