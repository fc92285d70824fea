import Foundation
@testable import JSONRPC
import JSONRPCTransport
import Logging
import ServiceLifecycle
import Synchronization
import Testing

import Glibc

/// A component that records its lifecycle: a service of the server's group, run while it serves.
final class Recorder: Service {
    let events = Mutex<[String]>([])

    func run() async {
        events.withLock { $0.append("start") }
        try? await GracefulShutdownWait.untilShutdown()
        events.withLock { $0.append("stop") }
    }
}

/// The whole server in process over pipes: it returns its exit code instead of exiting.
@MainActor
@Suite(.timeLimit(.minutes(10)))
struct ServerInProcessTests {
    @Test func exitWithoutShutdownReturnsOneAndComponentsStartAndStop() async throws {
        var input: [Int32] = [0, 0]
        #expect(pipe(&input) == 0)
        let out = Capture()
        var configuration = ServerConfiguration()
        configuration.handleSignals = false
        configuration.watchParent = false
        let recorder = Recorder()
        configuration.components = [recorder]
        var methods = MethodTable()
        methods.register(EchoMethod())
        let server = Server(configuration: configuration, methods: methods, input: input[0],
                            output: dup(out.writeFD), logger: Logger(label: "test"))
        let lines = #"{"jsonrpc":"2.0","id":1,"method":"test.echo","params":{"value":3}}"# + "\n"
            + #"{"jsonrpc":"2.0","id":2,"method":"exit"}"# + "\n"
        _ = lines.utf8CString.withUnsafeBufferPointer { write(input[1], $0.baseAddress!, lines.utf8.count) }
        let code = await server.run()
        #expect(code == 1, "exit before shutdown is 1, as in LSP")
        #expect(recorder.events.withLock { $0 } == ["start", "stop"])
        let replies = try await out.messages()
        // The echo is answered exactly once: by its result, or by -32802 if `exit` (read in the
        // same batch) came first.
        let echo = replies.filter { $0["id"] == 1 }
        #expect(echo.count == 1)
        #expect(echo.first?["result"] == ["value": 3] || echo.first?["error"]?["code"] == -32802)
        #expect(replies.filter { $0["id"] == 2 } == [["jsonrpc": "2.0", "id": 2, "result": [:]]])
        close(input[1])
    }
}
