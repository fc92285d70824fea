import JSONRPCTransport
import Testing

@testable import JSONRPC

/// What `jobs.list` shows of a job between its cancel and its end.
@MainActor
@Suite(.timeLimit(.minutes(10)))
struct JobsListTests {
    /// The registry is on the main actor, as this test is: between `cancel` and the next suspension the job's
    /// task cannot have reported its end, so the snapshot sees the window in which a cancelled job is in flight.
    @Test func aCancelledJobIsListedAsCancellingUntilItEndsThenNotAtAll() async throws {
        let out = Capture()
        let registry = RequestRegistry(writer: out.writer, stats: ServerStats(), maxJobs: 1, maxQueue: 0, timers: ManualTimers())
        let job = Job(handler: MethodHandler(ParkMethod()), params: nil,
                      context: RequestContext(id: RequestID(1), method: ParkMethod.name, registry: registry))
        #expect(registry.admit(job, id: RequestID(1), sink: .direct(out.writer)) == .admitted)
        #expect(registry.cancel(RequestID(1)))
        let states = registry.snapshot().map(\.state)
        #expect(states == [.cancelling], "a cancelled job must not look as if it still runs: \(states)")
        await registry.waitForTasks(upTo: .seconds(30))
        #expect(registry.snapshot().isEmpty)
        let reply = try await out.messages().first { $0["id"] == 1 }
        #expect(reply?["error"]?["code"] == -32800, "\(String(describing: reply))")
    }
}
