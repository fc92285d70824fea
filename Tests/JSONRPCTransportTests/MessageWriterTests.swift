import Glibc
import JSONRPCTransport
import Testing

/// The one writer: messages in order, framed as told, and the peer going away is noticed.
@Suite(.timeLimit(.minutes(10)))
struct MessageWriterTests {
    @Test func messagesKeepTheirOrderAndFraming() async throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let writer = MessageWriter(fd: fds[1])
        writer.send(Array(#"{"a":1}"#.utf8))
        writer.setFraming(.contentLength)
        writer.send(Array(#"{"b":2}"#.utf8))
        await writer.flush()
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = buffer.withUnsafeMutableBytes { read(fds[0], $0.baseAddress!, $0.count) }
        #expect(String(decoding: buffer[0..<max(0, n)], as: UTF8.self) == "{\"a\":1}\nContent-Length: 7\r\n\r\n{\"b\":2}")
    }

    @Test func aPeerThatClosesIsReportedOnceAndLaterMessagesAreDropped() async throws {
        signal(SIGPIPE, SIG_IGN)  // as the executable does: a closed pipe is an error, not a signal
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        close(fds[0])  // the client went away
        let (closed, continuation) = AsyncStream.makeStream(of: Void.self)
        let writer = MessageWriter(fd: fds[1])
        writer.whenClosed { continuation.yield() }
        writer.send(Array("{}".utf8))
        var iterator = closed.makeAsyncIterator()
        _ = await iterator.next()  // resumed by the writer thread, not by a sleep
        writer.send(Array("{}".utf8))
        await writer.flush()  // returns at once: the stream is closed
    }
}
