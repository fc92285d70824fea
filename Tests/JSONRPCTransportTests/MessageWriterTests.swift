import Deadlines
import Glibc
import JSONRPCTransport
import Synchronization
import Testing

/// The one writer: messages in order, framed as told, the peer going away is noticed, and a stop whose caller gives
/// up ends the thread even when the peer reads nothing.
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

    /// A client that stops reading: the pipe fills and the thread waits for room. Its owner's stop, cancelled at its
    /// deadline, ends the thread (before, it stayed blocked in write(2) for good).
    @Test func aCancelledStopEndsAWriteThePeerNeverTakes() async throws {
        var pair: [Int32] = [0, 0]
        try #require(pipe(&pair) == 0)
        // Numbers far above the ones other tests open and close meanwhile (a stray close of a reused number
        // would end the writer for the wrong reason).
        let fds = pair.map { fcntl($0, F_DUPFD, 900) }
        pair.forEach { close($0) }
        try #require(fds.allSatisfy { $0 >= 900 }, "\(fds)")
        defer { close(fds[0]); close(fds[1]) }
        let name = "mw-unread"
        let writer = MessageWriter(fd: fds[1], threadName: name)
        let peerClosed = Mutex(false)
        writer.whenClosed { peerClosed.withLock { $0 = true } }
        writer.send([UInt8](repeating: 0x20, count: 1 << 20))  // far more than a pipe holds
        let capacity = Int(fcntl(fds[1], pipeSizeCommand))
        try await Deadline.until("the pipe full (\(capacity) bytes)") {
            var queued: Int32 = 0
            _ = ioctl(fds[0], UInt(FIONREAD), &queued)
            return Int(queued) >= capacity
        }
        // Counted before the stop is asked for: a stop task that runs first (a loaded machine) may end the thread
        // before the census is read. (CI's misses here, 0 threads for ten seconds, were a thread that never got its
        // name: BlockingThreadTests holds that now.)
        try await Deadline.until("the thread waits for room: \(ThreadCensus.named(name)), the writer saw its peer "
                                 + "close: \(peerClosed.withLock { $0 })", within: .seconds(10)) {
            ThreadCensus.named(name).count == 1
        }
        let stopping = Task { await writer.stop() }
        stopping.cancel()
        // The task's default limit, not ten seconds: stop returns on a cooperative thread, and in CI's full parallel
        // run this wait once passed ten seconds with the thread census already right (the pool busy elsewhere). A
        // stop that ignored its cancel would block in poll(2) for good, so the wait still fails on that.
        try await Deadline.value(of: stopping, "stop returns once cancelled")
        try await Deadline.until("the writer's thread ended: \(ThreadCensus.named(name))", within: .seconds(10)) {
            ThreadCensus.named(name).isEmpty
        }
        writer.send(Array("{}".utf8))  // dropped: the writer has ended
        await writer.flush()  // returns at once
    }
}

/// fcntl's F_GETPIPE_SZ (F_LINUX_SPECIFIC_BASE + 8), which Glibc's module does not export without _GNU_SOURCE.
private let pipeSizeCommand: Int32 = 1032
