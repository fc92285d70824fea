import Deadlines
import Glibc
import JSONRPCTransport
import Synchronization
import Testing

/// ``FrameReader``: messages in order in batches, the framing announced before the first batch, the end of the input
/// delivered, reading paused while the consumer owes acknowledgements, and a stop that ends the thread even when no
/// input ever comes.
@Suite(.timeLimit(.minutes(10)))
struct FrameReaderTests {
    /// A pipe whose write end the test keeps.
    final class Pipe: Sendable {
        let read: Int32, write: Int32
        init() {
            var fds: [Int32] = [0, 0]
            precondition(pipe(&fds) == 0)
            (read, write) = (fds[0], fds[1])
        }
        func send(_ text: String) { _ = text.utf8CString.withUnsafeBufferPointer { Glibc.write(write, $0.baseAddress!, $0.count - 1) } }
        func closeWrite() { close(write) }
        deinit { close(read) }
    }

    /// Every message delivered until the end of the input, acknowledging each batch.
    static func messages(of reader: FrameReader) async -> (messages: [String], ended: Bool) {
        var out: [String] = []
        for await batch in reader.batches {
            switch batch {
            case .events(let events):
                for case .message(let bytes) in events { out.append(String(decoding: bytes, as: UTF8.self)) }
                reader.acknowledge()
            case .endOfInput:
                return (out, true)
            }
        }
        return (out, false)
    }

    @Test("Lines come in order, the framing is announced first, and the end of the input is delivered")
    func linesInOrderThenTheEnd() async throws {
        let pipe = Pipe()
        let announced = Mutex<[MessageFraming]>([])
        let reader = FrameReader(fd: pipe.read, maxMessageBytes: 1 << 20, onFraming: { f in announced.withLock { $0.append(f) } })
        pipe.send("{\"a\":1}\n{\"b\":2}\n")
        pipe.send("{\"c\":3}\r\n")
        pipe.closeWrite()
        let (messages, ended) = await Self.messages(of: reader)
        #expect(messages == [#"{"a":1}"#, #"{"b":2}"#, #"{"c":3}"#], "\(messages)")
        #expect(ended, "no end of input")
        #expect(announced.withLock { $0 } == [.ndjson], "framings announced: \(announced.withLock { $0 })")
        await reader.waitUntilEnded()
    }

    @Test("Content-Length bodies are detected from the first bytes and delivered whole, however they are split")
    func contentLengthBodies() async throws {
        let pipe = Pipe()
        let reader = FrameReader(fd: pipe.read, maxMessageBytes: 1 << 20)
        let body = #"{"jsonrpc":"2.0","method":"ping","id":1}"#
        let frame = "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
        pipe.send(String(frame.prefix(10)))
        pipe.send(String(frame.dropFirst(10)) + frame)
        pipe.closeWrite()
        let (messages, ended) = await Self.messages(of: reader)
        #expect(messages == [body, body] && ended, "\(messages), ended \(ended)")
    }

    @Test("Reading pauses while the consumer owes its acknowledgements, and goes on as it gives them")
    func backpressure() async throws {
        let pipe = Pipe()
        let reader = FrameReader(fd: pipe.read, maxMessageBytes: 1 << 20, maxPendingBatches: 1)
        var batches = reader.batches.makeAsyncIterator()
        pipe.send("{\"n\":1}\n")
        guard case .events(let first)? = await batches.next() else { Issue.record("no first batch"); return }
        #expect(first == [.message(Array(#"{"n":1}"#.utf8))], "\(first)")
        // Unacknowledged: the next line is read (the thread is in its credit wait) but not delivered until acknowledged.
        pipe.send("{\"n\":2}\n")
        reader.acknowledge()
        guard case .events(let second)? = await batches.next() else { Issue.record("no second batch"); return }
        #expect(second == [.message(Array(#"{"n":2}"#.utf8))], "\(second)")
        reader.stop()
        await reader.waitUntilEnded()
    }

    @Test("A stop ends the reading thread while it waits for input that never comes")
    func stopWhileWaiting() async throws {
        let pipe = Pipe()
        let reader = FrameReader(fd: pipe.read, maxMessageBytes: 1 << 20, threadName: "frame-reader-stop-test")
        let ended = Mutex(false)
        let waiting = Task { await reader.waitUntilEnded(); ended.withLock { $0 = true } }
        reader.stop()
        try await Deadline.until("the reading thread to end after stop") { ended.withLock { $0 } }
        _ = try await Deadline.value(of: waiting, "waitUntilEnded to return after stop")
        var iterator = reader.batches.makeAsyncIterator()
        #expect(await iterator.next() == nil, "batches after stop")
        pipe.closeWrite()
    }
}
