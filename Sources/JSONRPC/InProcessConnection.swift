import Glibc
import JSONRPCTransport
import Synchronization

/// A ``Server`` running in this process, spoken to over a pair of pipes with the real protocol (NDJSON):
/// the executable's `call` and `demo` modes, and the in-process tests of every method family, which get
/// the whole protocol path (framing, registry, writer) in milliseconds without spawning a process.
///
/// One consumer reads ``messages``; ``call(_:_:onEvent:)`` is that consumer for one request at a time.
package final class InProcessConnection: Sendable {
    package let server: Server
    /// Every message the server writes, parsed, in order.
    package let messages: AsyncStream<JSONValue>
    private let toServer: Int32
    private let serving: Task<Int32, Never>
    /// Reads the server's output until it ends (the server closed it when it stopped).
    private let reading: Task<Void, Never>
    private let nextID = Atomic<Int>(0)

    /// - Parameters:
    ///   - readerThread: the name of the thread that reads the server's output.
    ///   - makeServer: builds the server over the given input and output descriptors.
    package init(readerThread: String = "in-process-client", _ makeServer: (_ input: Int32, _ output: Int32) -> Server) throws {
        var a: [Int32] = [0, 0], b: [Int32] = [0, 0]
        guard pipe(&a) == 0, pipe(&b) == 0 else { throw ConnectionError.cannotCreatePipes }
        for fd in a + b { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let server = makeServer(a[0], b[1])
        self.server = server
        toServer = a[1]
        let fromServer = b[0]
        let (stream, continuation) = AsyncStream.makeStream(of: JSONValue.self)
        messages = stream
        // The transport's own reader, as the server reads its input: one thread blocked in read(2), batches as they come.
        let reader = FrameReader(fd: fromServer, maxMessageBytes: 1 << 30, framing: .ndjson, threadName: readerThread)
        reading = Task {
            for await batch in reader.batches {
                guard case .events(let events) = batch else { break }
                for case .message(let bytes) in events {
                    if let value = try? JSONParser.parse(bytes) { continuation.yield(value) }
                }
                reader.acknowledge()
            }
            Glibc.close(fromServer)
            continuation.finish()
        }
        let (serverInput, serverOutput) = (a[0], b[1])
        serving = Task {
            let code = await server.run()
            // Its threads have ended: its ends of the pipes close, and the client's reader sees the end.
            Glibc.close(serverInput)
            Glibc.close(serverOutput)
            return code
        }
    }

    package enum ConnectionError: Error { case cannotCreatePipes }

    /// Writes one message (or raw bytes, for tests of hostile input).
    package func send(_ message: JSONValue) { send(bytes: message.serialized + [0x0A]) }

    package func send(bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in
            var off = 0
            while off < raw.count {
                let n = write(toServer, raw.baseAddress! + off, raw.count - off)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return }
                off += n
            }
        }
    }

    /// A fresh request id (1, 2, ...).
    package func makeID() -> Int { nextID.add(1, ordering: .relaxed).newValue }

    /// The id of the last request made with ``makeID()``.
    package var lastID: Int { nextID.load(ordering: .relaxed) }

    /// Sends one request and reads until its reply; `onEvent` sees its `$/progress` params (other messages
    /// are dropped). Returns the result, or throws the error as an ``RPCError``.
    package func call(_ method: String, _ params: JSONValue? = nil, onEvent: (JSONValue) -> Void = { _ in }) async throws -> JSONValue {
        let id = makeID()
        var request: [String: JSONValue] = ["jsonrpc": "2.0", "id": .int(id), "method": .string(method)]
        if let params { request["params"] = params }
        send(.object(request))
        for await message in messages {
            if message["method"] == "$/progress", message["params"]?["id"] == .int(id) {
                onEvent(message["params"]!)
            } else if message["id"] == .int(id) {
                if let error = message["error"] {
                    throw RPCError(code: ErrorCode(rawValue: error["code"]?.intValue ?? ErrorCode.internalError.rawValue),
                                   message: error["message"]?.stringValue ?? "", data: error["data"])
                }
                return message["result"] ?? .null
            }
        }
        throw RPCError(code: .internalError, message: "the server stopped")
    }

    /// `$/cancelRequest` for `id`.
    package func cancel(_ id: Int) { send(["jsonrpc": "2.0", "method": "$/cancelRequest", "params": ["id": .int(id)]]) }

    /// Closes the server's input: it drains, and its `run()` returns the exit code. Returns once the server and
    /// every thread of the connection (the server's reader and writer, the client's reader) have ended.
    @discardableResult
    package func close() async -> Int32 {
        Glibc.close(toServer)
        let code = await serving.value
        await reading.value
        return code
    }
}
