import Deadlines
@testable import JSONRPC
import JSONRPCTransport
import Logging
import Testing

/// A server in process, over pipes: what it starts ends when it stops.
@MainActor @Suite(.timeLimit(.minutes(10)))
struct InProcessConnectionTests {
    /// Every connection starts three threads (the server's reader and writer, the client's reader); each used to
    /// outlive it (the writer polled forever, the client's reader waited for an end of output that never came).
    @Test func aServerStartedAndStoppedAHundredTimesLeavesNoThreadBehind() async throws {
        for i in 0..<100 {
            var configuration = ServerConfiguration()
            configuration.handleSignals = false
            configuration.watchParent = false
            configuration.timers = ManualTimers()
            configuration.naming.readerThread = "cycle-reader"
            configuration.naming.writerThread = "cycle-writer"
            var methods = MethodTable()
            methods.register(EchoMethod())
            let connection = try InProcessConnection(readerThread: "cycle-client") { input, output in
                Server(configuration: configuration, methods: methods, input: input, output: output, logger: Logger(label: "test"))
            }
            let echo = try await Deadline.run("the reply to test.echo") { try await connection.call("test.echo", ["value": .int(i)]) }
            #expect(echo == ["value": .int(i)])
            let code = try await Deadline.value(of: Task { await connection.close() }, "connection \(i) to close")
            #expect(code == 0)
        }
        // Named for this test, so other suites' threads (which come and go meanwhile) do not count.
        try await Deadline.until("the connections' threads to end: \(ThreadCensus.named("cycle-"))") {
            ThreadCensus.named("cycle-").isEmpty
        }
    }
}
