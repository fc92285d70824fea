import Foundation
import JSONRPCTransport
import PhotoWorkerTestSupport
import Testing

/// The memory budget through the binary: reported, jobs queued for memory (and passed, and cancelled there), jobs
/// that could never fit refused before they start. `diagnostics.hold` claims bytes without images of that size.
@Suite(.timeLimit(TestTiming.minutes(10)))
struct MemoryBudgetTests {
    @Test func jobsWaitForMemoryAndAreRefusedWhenTheyCouldNeverFit() async throws {
        let w = try WorkerProcess(["--diagnostics", "--max-jobs", "4", "--max-memory", "1G"])
        let limits = try #require(try await w.call(1, "initialize")["result"]?["limits"])
        let budget = try #require(limits["maxMemoryBytes"]?.intValue)
        #expect(limits["maxMemoryOrigin"]?.stringValue?.hasPrefix("--max-memory 1 GiB") == true, "\(limits)")
        let large = budget * 6 / 10
        w.request(2, "diagnostics.hold", ["ms": 600_000, "bytes": .int(large)])
        try await w.waitForJobs { jobs in jobs.contains { $0["id"] == 2 && $0["state"] == "running" } }
        w.request(3, "diagnostics.hold", ["ms": 600_000, "bytes": .int(large)])  // does not fit beside 2
        try await w.waitForJobs { jobs in jobs.contains { $0["id"] == 3 && $0["state"] == "waitingForMemory" } }
        // A small job goes ahead of the one waiting for memory.
        let small = try await w.call(4, "diagnostics.hold", ["ms": 0, "bytes": .int(budget / 10)])
        #expect(small["result"]?["held"]?.intValue == budget / 10, "\(small)")
        let stats = try #require(try await w.call(5, "worker.stats")["result"]?["memory"])
        #expect(stats["reservedBytes"]?.intValue == large, "\(stats)")
        #expect(stats["waitingForMemory"] == 1, "\(stats)")
        // Refused at once, with what it needs and what there is.
        let refused = try await w.call(6, "diagnostics.hold", ["ms": 0, "bytes": .int(budget + 1)])
        #expect(refused.errorCode == -32007, "\(refused)")
        #expect(refused["error"]?["data"]?["neededBytes"]?.intValue == budget + 1, "\(refused)")
        #expect(refused["error"]?["data"]?["budgetBytes"]?.intValue == budget, "\(refused)")
        // Cancelled while waiting for memory: answered, and its place is free.
        w.cancel(3)
        let cancelled = try await w.response(3).response
        #expect(cancelled.errorCode == -32800, "\(cancelled)")
        let after = try #require(try await w.call(7, "worker.stats")["result"]?["memory"])
        #expect(after["waitingForMemory"] == 0, "\(after)")
        w.cancel(2)
        #expect(try await w.response(2).response.errorCode == -32800)
        try await w.expectServing()
    }

    @Test func offMeansNoBudget() async throws {
        let w = try WorkerProcess(["--max-memory", "off"])
        let limits = try #require(try await w.call(1, "initialize")["result"]?["limits"])
        #expect(limits["maxMemoryBytes"] == nil, "\(limits)")
        #expect(try await w.call(2, "worker.stats")["result"]?["memory"] == nil)
    }

    /// A real image: a sticker needs the network's memory, more than a 100 MiB worker has left for jobs.
    @Test func aStickerThatCannotFitIsRefusedBeforeItsPixelsAreDecoded() async throws {
        let w = try WorkerProcess(["--max-memory", "100M"])
        let out = try TempFolder("memory-budget")
        defer { out.remove() }
        let reply = try await w.call(1, "image.sticker", [
            "source": ["path": .string(Corpus.path("photos/girl-1.jpg"))], "output": ["path": .string(out.path + "/s.png")],
        ])
        #expect(reply.errorCode == -32007, "\(reply)")
        let reason = reply["error"]?["data"]?["reason"]?.stringValue ?? ""
        #expect(reason.contains("--max-memory"), "\(reply)")
        #expect(out.contents.isEmpty)
        // What fits still runs.
        let info = try await w.call(2, "image.info", ["source": ["path": .string(Corpus.path("photos/girl-1.jpg"))]])
        #expect(info["result"]?["width"] != nil, "\(info)")
    }

    /// Over MCP the budget's refusal is a tool error (`isError`), as every method's error is, not a protocol error.
    @Test func aToolThatCannotFitIsAToolError() async throws {
        let w = try WorkerProcess(["--max-memory", "100M"])
        let out = try TempFolder("memory-budget-mcp")
        defer { out.remove() }
        let reply = try await w.call(1, "tools/call", ["name": "image_sticker", "arguments": [
            "source": ["path": .string(Corpus.path("photos/girl-1.jpg"))], "output": ["path": .string(out.path + "/s.png")],
        ]])
        let result = try #require(reply["result"], "\(reply)")
        #expect(result["isError"] == true, "\(result)")
        #expect(result["structuredContent"]?["error"]?["code"] == -32007, "\(result)")
        #expect(out.contents.isEmpty)
    }

    @Test func aBadValueIsRefusedAtStart() throws {
        let r = try CommandLineTests.run(["--max-memory", "lots"])
        #expect(r.status != 0)
        #expect(r.stderr.contains("--max-memory"), "\(r.stderr)")
    }
}
