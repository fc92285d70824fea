import ArgumentParser
import Foundation
import JSONRPC
import JSONRPCTransport
import Logging
import PhotoWorker
import Synchronization

import Glibc

/// A worker running inside this process, reached over a pair of pipes with the real protocol
/// (used by `call` and `demo`, so they exercise exactly what clients get).
final class InProcessWorker: Sendable {
    private let toWorker: Int32
    private let lines: AsyncStream<JSONValue>
    private let server: Server
    private let serving: Task<Int32, Never>
    private let nextID = Atomic<Int>(0)

    init(flags: WorkerFlags) throws {
        var a: [Int32] = [0, 0], b: [Int32] = [0, 0]
        guard pipe(&a) == 0, pipe(&b) == 0 else { throw ValidationError("cannot create pipes") }
        var configuration = flags.serverConfiguration
        configuration.handleSignals = false
        configuration.watchParent = false
        server = Worker.makeServer(configuration: configuration, options: flags.workerOptions, input: a[0], output: b[1], logger: flags.makeLogger())
        toWorker = a[1]
        let fromWorker = b[0]
        let (stream, continuation) = AsyncStream.makeStream(of: JSONValue.self)
        lines = stream
        Thread.detachNewThread {
            var framer = LineFramer(maxLineBytes: 1 << 30)
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(fromWorker, $0.baseAddress!, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                buffer.withUnsafeBytes { raw in
                    framer.feed(UnsafeRawBufferPointer(rebasing: raw[0..<n])) { event in
                        if case .message(let bytes) = event, let v = try? JSONParser.parse(bytes) { continuation.yield(v) }
                    }
                }
            }
            continuation.finish()
        }
        let server = server
        serving = Task { await server.run() }
    }

    func send(_ message: JSONValue) {
        let bytes = message.serialized + [0x0A]
        bytes.withUnsafeBytes { raw in
            var off = 0
            while off < raw.count {
                let n = write(toWorker, raw.baseAddress! + off, raw.count - off)
                if n <= 0 { return }
                off += n
            }
        }
    }

    /// Sends one request; `onEvent` sees its `$/progress` params; returns the result or throws
    /// the JSON-RPC error.
    func call(_ method: String, _ params: JSONValue, onEvent: (JSONValue) -> Void) async throws -> JSONValue {
        let id = nextID.add(1, ordering: .relaxed).newValue
        send(["jsonrpc": "2.0", "id": .int(id), "method": .string(method), "params": params])
        for await message in lines {
            if message["method"] == "$/progress", message["params"]?["id"] == .int(id) {
                onEvent(message["params"]!)
            } else if message["id"] == .int(id) {
                if let error = message["error"] { throw CallFailed(error: error) }
                return message["result"] ?? .null
            }
        }
        throw CallFailed(error: ["code": -32603, "message": "the worker stopped"])
    }

    func cancel(_ id: Int) { send(["jsonrpc": "2.0", "method": "$/cancelRequest", "params": ["id": .int(id)]]) }

    var lastID: Int { nextID.load(ordering: .relaxed) }

    /// Closes the input; the worker drains and its loop ends.
    func close() async {
        Glibc.close(toWorker)
        _ = await serving.value
    }
}

/// A JSON-RPC error reply, surfaced to the command line.
struct CallFailed: Error, CustomStringConvertible {
    var error: JSONValue
    var description: String { error.jsonString }
}
