import Deadlines
import Foundation
import JSONRPC
import JSONRPCTransport
@testable import PhotoWorker
import Testing

/// What MCP tasks keep besides their jobs: status from the outcome, cancellation that sticks, waiting for the end.
@Suite(.timeLimit(.minutes(10)))
struct MCPTaskStoreTests {
    private static func response(_ body: String) -> [UInt8] { Array(#"{"jsonrpc":"2.0","id":"t",\#(body)}"#.utf8) }

    @Test func statusFollowsTheJobsFinalResponse() throws {
        let store = MCPTaskStore()
        let ok = store.create(tool: "photos_process", ttlMs: nil), bad = store.create(tool: "pack_export", ttlMs: 5)
        #expect(ok.status == .working && ok.ttlMs == MCPTaskStore.defaultTTLMs && bad.ttlMs == 1000)
        store.finish(ok.taskId, response: Self.response(#""result":{"content":[],"isError":true}"#))
        store.finish(bad.taskId, response: Self.response(#""error":{"code":-32802,"message":"server cancelled"}"#))
        #expect(try store.find(ok.taskId).status == .completed, "a tool error is a completed task")
        #expect(try store.find(bad.taskId).status == .failed)
        #expect(store.all().map(\.taskId) == [ok.taskId, bad.taskId])
        let cancelled = store.create(tool: "photos_process", ttlMs: nil)
        store.finish(cancelled.taskId, response: Self.response(#""error":{"code":-32800,"message":"request cancelled"}"#))
        #expect(try store.find(cancelled.taskId).status == .cancelled)
    }

    @Test func cancelledStaysCancelledWhateverTheJobDoesNext() throws {
        let store = MCPTaskStore()
        let t = store.create(tool: "photos_process", ttlMs: nil)
        #expect(store.cancel(t.taskId)?.status == .working)
        store.finish(t.taskId, response: Self.response(#""result":{"content":[]}"#))
        #expect(try store.find(t.taskId).status == .cancelled)
        #expect(try store.find(t.taskId).modernJSON(job: nil, detailed: true)["result"] == nil)
        #expect(store.cancel("nope") == nil)
        #expect(throws: RPCError.self) { try store.find("nope") }
    }

    @Test func waitingEndsWithTheTask() async {
        let store = MCPTaskStore()
        let t = store.create(tool: "photos_process", ttlMs: nil)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await store.waitUntilTerminal(t.taskId) }
            // The waiter may park before or after this: either way it returns once the task has ended.
            store.finish(t.taskId, response: Self.response(#""result":{"content":[]}"#))
        }
        #expect(store.record(t.taskId)?.status == .completed)
    }

    @Test func aCancelledWaitReturns() async throws {
        let store = MCPTaskStore()
        let t = store.create(tool: "photos_process", ttlMs: nil)
        let waiting = Task { await store.waitUntilTerminal(t.taskId) }
        waiting.cancel()
        try await Deadline.value(of: waiting, "the cancelled waitUntilTerminal to return")
        #expect(store.record(t.taskId)?.status == .working)
    }
}
