import Deadlines
import JSONRPCTransport
import Testing

/// A blocking thread carries its name from its first instruction, so `top -H`, debuggers and the tests' thread
/// census see it every time (Foundation's `Thread.name` setter lost the race against the new thread now and then).
@Suite(.timeLimit(.minutes(10)))
struct BlockingThreadTests {
    @Test func everyThreadIsNamedBeforeItsBodyRuns() async throws {
        let rounds = 300
        let (names, continuation) = AsyncStream.makeStream(of: String.self)
        for i in 0..<rounds {
            BlockingThread.start(name: "bt-\(i)") {
                continuation.yield(ThreadCensus.currentName())
            }
        }
        let seen = try await Deadline.collect(from: names, "the threads' names") { $0.count == rounds }
        let unnamed = seen.filter { !$0.hasPrefix("bt-") }
        #expect(unnamed.isEmpty, "\(unnamed.count) of \(rounds) threads ran unnamed: \(Set(unnamed))")
    }

    @Test func aLongNameIsCutToWhatLinuxKeeps() async throws {
        let (names, continuation) = AsyncStream.makeStream(of: String.self)
        BlockingThread.start(name: "a-very-long-thread-name") {
            continuation.yield(ThreadCensus.currentName())
        }
        let seen = try await Deadline.collect(from: names, "the thread's name") { $0.count == 1 }
        #expect(seen == ["a-very-long-thr"])
    }
}
