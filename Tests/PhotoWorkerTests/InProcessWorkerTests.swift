import Deadlines
import JSONRPC
import JSONRPCTransport
import PhotoWorker
import PhotoWorkerTestSupport
import Testing

/// The whole worker in process, as `photoworker call` and `demo` run it: what it starts ends when it stops.
@Suite(.timeLimit(.minutes(10)))
struct InProcessWorkerTests {
    /// Each worker starts the server's reader and writer, its compute threads, a blocking-pool thread for the file it
    /// reads and the client's reader. Without their ends, two hundred workers would leave hundreds of threads (the
    /// writers and the client readers alone, two each); other suites' workers come and go meanwhile, so the bound is
    /// on the process's count, and the client readers, named here, must all be gone.
    @Test func aWorkerStartedAndStoppedTwoHundredTimesLeavesNoThreadBehind() async throws {
        let before = ThreadCensus.count
        let photo: JSONValue = ["path": .string(Corpus.path("pngsuite/basn2c08.png"))]
        for i in 0..<200 {
            var configuration = ServerConfiguration()
            configuration.handleSignals = false
            configuration.watchParent = false
            configuration.timers = ManualTimers()
            configuration.maxJobs = 2
            let connection = try InProcessConnection(readerThread: "wcycle-client") { input, output in
                Worker.makeServer(configuration: configuration, options: WorkerOptions(), input: input, output: output,
                                  logger: .init(label: "test"))
            }
            let palette = try await connection.reply("image.palette", ["source": photo, "count": 3])
            #expect(palette["colors"] != nil, "cycle \(i): \(palette)")
            let code = try await Deadline.value(of: Task { await connection.close() }, "worker \(i) to close")
            #expect(code == 0)
        }
        try await Deadline.until("the client readers to end: \(ThreadCensus.named("wcycle-"))") {
            ThreadCensus.named("wcycle-").isEmpty
        }
        // A leak is a thread or more per worker (200 or more); a full parallel run holds up to ~60 more threads
        // of its own at times (dispatch's, other suites' pools).
        try await Deadline.until("the process back near \(before) threads, \(ThreadCensus.count) now", within: .seconds(30)) {
            ThreadCensus.count < before + 120
        }
    }
}
