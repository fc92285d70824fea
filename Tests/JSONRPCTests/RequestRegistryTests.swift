import Deadlines
import Foundation
@testable import JSONRPC
import JSONRPCTransport
import Logging
import Synchronization
import Testing

import Glibc

/// The registry, the job runner and the batch collector, in process, with a manual clock.
@MainActor
@Suite(.timeLimit(.minutes(10)))
struct RequestRegistryTests {
    private func job<M: RPCMethod>(_ method: M, _ id: Int, _ params: JSONValue? = nil, registry: RequestRegistry) -> Job {
        Job(handler: MethodHandler(method), params: params,
            context: RequestContext(id: RequestID(id), method: M.name, registry: registry))
    }

    private func settle(_ registry: RequestRegistry) async {
        await registry.waitForTasks(upTo: .seconds(30))
    }

    @Test func aFinishedJobIsAnsweredOnceAndLateNotificationsAreDropped() async throws {
        let out = Capture()
        let registry = RequestRegistry(writer: out.writer, stats: ServerStats(), maxJobs: 1, maxQueue: 1, timers: ManualTimers())
        #expect(registry.admit(job(EchoMethod(), 1, ["value": 7], registry: registry), id: RequestID(1), sink: .direct(out.writer)) == .admitted)
        await settle(registry)
        registry.emit(RequestID(1), params: ["late": true], isProgress: true)
        registry.terminateAll(reason: "test")  // nothing left to answer
        let messages = try await out.messages()
        #expect(messages == [["jsonrpc": "2.0", "id": 1, "result": ["value": 7]]])
    }

    @Test func aCancelledJobGetsMinus32800AndAServerCancelMinus32802Once() async throws {
        let out = Capture()
        let registry = RequestRegistry(writer: out.writer, stats: ServerStats(), maxJobs: 2, maxQueue: 0, timers: ManualTimers())
        _ = registry.admit(job(ParkMethod(), 1, registry: registry), id: RequestID(1), sink: .direct(out.writer))
        _ = registry.admit(job(ParkMethod(), 2, registry: registry), id: RequestID(2), sink: .direct(out.writer))
        #expect(registry.cancel(RequestID(1)))
        // Job 1 ends by its own cancellation (-32800) before the server cancels what is left.
        try await Deadline.until("job 1 answered after its cancel") { registry.counts.running + registry.counts.queued == 1 }
        registry.terminateAll(reason: "going away")
        await settle(registry)  // job 2's own outcome comes after its -32802 and is dropped
        let messages = try await out.messages()
        #expect(messages.count == 2, "\(messages)")
        #expect(messages.first { $0["id"] == 1 }?["error"]?["code"] == -32800, "\(messages)")
        #expect(messages.first { $0["id"] == 2 }?["error"]?["code"] == -32802, "\(messages)")
    }

    @Test func admissionRefusesDuplicatesAndOverload() async throws {
        let out = Capture()
        let registry = RequestRegistry(writer: out.writer, stats: ServerStats(), maxJobs: 1, maxQueue: 1, timers: ManualTimers())
        #expect(registry.admit(job(ParkMethod(), 1, registry: registry), id: RequestID(1), sink: .direct(out.writer)) == .admitted)
        #expect(registry.admit(job(ParkMethod(), 1, registry: registry), id: RequestID(1), sink: .direct(out.writer)) == .duplicateID)
        #expect(registry.admit(job(ParkMethod(), 2, registry: registry), id: RequestID(2), sink: .direct(out.writer)) == .admitted)
        #expect(registry.admit(job(ParkMethod(), 3, registry: registry), id: RequestID(3), sink: .direct(out.writer)) == .overloaded)
        #expect(registry.counts.running + registry.counts.queued == 2, "the refused job is not counted")
        registry.terminateAll(reason: "test")
        await settle(registry)
    }

    @Test func waitUntilIdleTimesOutOnTheInjectedClock() async throws {
        let out = Capture()
        let timers = ManualTimers()
        let registry = RequestRegistry(writer: out.writer, stats: ServerStats(), maxJobs: 1, maxQueue: 0, timers: timers)
        _ = registry.admit(job(ParkMethod(), 1, registry: registry), id: RequestID(1), sink: .direct(out.writer))
        async let idle = registry.waitUntilIdle(timeout: .seconds(3600))
        try await Deadline.until("the idle wait parked with its timer") { registry.idleWaiterCount == 1 }
        timers.fireAll()  // an hour passes, instantly
        #expect(await idle == false)
        registry.terminateAll(reason: "test")
        #expect(await registry.waitUntilIdle(timeout: .seconds(3600)))
        await settle(registry)
    }

    @Test func aBatchIsWrittenOnceEveryMemberIsAnswered() async throws {
        let out = Capture()
        let batch = BatchCollector(writer: out.writer)
        batch.add(OutgoingMessage.success(id: RequestID(1), result: .emptyObject))
        batch.seal(expecting: 2)
        #expect(try await out.messages().isEmpty)
        batch.add(OutgoingMessage.success(id: RequestID(2), result: .emptyObject))
        let messages = try await out.messages()
        #expect(messages.count == 1)
        guard case .array(let members)? = messages.first else { Issue.record("not an array"); return }
        #expect(members.map { $0["id"] } == [1, 2])
        let notifications = BatchCollector(writer: out.writer)
        notifications.seal(expecting: 0)
        #expect(try await out.messages().isEmpty, "an all-notification batch writes nothing")
    }
}
