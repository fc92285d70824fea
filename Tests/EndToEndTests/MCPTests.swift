import Foundation
import JSONRPCTransport
import PhotoWorkerTestSupport
import Testing

/// MCP conventions over the same stdio (the SDK-level tests live in clients/mcp).
@Suite(.timeLimit(TestTiming.minutes(10)))
struct MCPTests {
    @Test func mcpInitializeSwitchesConventions() async throws {
        // The batch must be allowed to run: an output outside the session's folders is refused at
        // once, and a job that has already ended cannot be cancelled.
        let out = try Corpus.scratch()
        let w = try WorkerProcess(["--allow-read-dir", Corpus.root.path, "--allow-write-dir", out])
        let r = try #require(try await w.call(1, "initialize", ["protocolVersion": "2025-06-18", "capabilities": [:], "clientInfo": ["name": "t", "version": "1"]])["result"])
        #expect(r["protocolVersion"] == "2025-06-18")
        #expect(r["capabilities"]?["tools"] != nil)
        #expect(r["serverInfo"]?["name"] == "photoworker")
        w.notify("notifications/initialized")
        // A cancelled MCP request gets no response at all.
        w.request(2, "tools/call", ["name": "photos_process", "arguments": [
            "sources": .array(Array(repeating: ["path": .string(Corpus.photo("animal-3.jpg"))], count: 30)),
            "output": ["dir": .string(out)]]])
        try await w.waitForJobs { $0.first?["state"] == "running" }
        w.notify("notifications/cancelled", ["requestId": 2, "reason": "user"])
        // Wait until the job is really gone, then check that nothing was written for it.
        var seen = try await w.messagesUntilNoJobs(firstID: 101)
        w.request(3, "ping")
        let (pong, between) = try await w.response(3)
        seen += between
        #expect(pong["result"] == [:])
        #expect(seen.allSatisfy { $0["id"] != 2 }, "no reply for the cancelled request: \(seen)")
    }

    @Test func nativeClientsStillGetMinus32800() async throws {
        let w = try WorkerProcess()
        _ = try await w.call(1, "initialize", [:])
        w.request(2, "diagnostics.sleep", ["ms": 600_000])
        w.notify("notifications/cancelled", ["requestId": 2])
        #expect(try await w.next()?["error"]?["code"] == -32800)
    }

    @Test func progressTokenGetsMonotonicNotificationsProgress() async throws {
        let w = try WorkerProcess()
        w.request(1, "diagnostics.fanout", ["children": 10, "ms": 200, "_meta": ["progressToken": "tok"]])
        let (final, before) = try await w.response(1)
        #expect(final["result"] == ["children": 10])
        let progress = before.filter { $0["method"] == "notifications/progress" }.compactMap { $0["params"] }
        #expect(!progress.isEmpty)
        #expect(progress.allSatisfy { $0["progressToken"] == "tok" })
        let values = progress.compactMap { $0["progress"]?.doubleValue }
        #expect(values == values.sorted() && Set(values).count == values.count)
        #expect(!before.contains { $0["method"] == "$/progress" })
    }

    @Test func toolsListAndCallSpeakMCP() async throws {
        let w = try WorkerProcess()
        let list = try #require(try await w.call(1, "tools/list")["result"]?["tools"])
        #expect((list.arrayCount ?? 0) >= 10)
        let bad = try await w.call(2, "tools/call", ["name": "no_such_tool", "arguments": [:]])
        #expect(bad["error"]?["code"] == -32602)
        let failed = try #require(try await w.call(3, "tools/call", ["name": "image_info", "arguments": ["source": ["path": "/nope.jpg"]]])["result"])
        #expect(failed["isError"] == true)
        let discover = try #require(try await w.call(4, "rpc.discover")["result"])
        #expect(discover["openrpc"]?.stringValue?.hasPrefix("1.") == true)
    }
}
