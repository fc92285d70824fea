import Foundation
import JSONRPCTransport
import PhotoWorkerTestSupport
import Testing

/// MCP tasks for the long tools, in both forms: 2025-11-25's (the host asks with `"task"`, polls with `tasks/get`,
/// fetches with `tasks/result`, lists and cancels) and the 2026-07-28 extension's (the server decides for a host
/// that declared the extension; `tasks/get` carries the result). Every task's job is a job of the worker's one
/// registry: `jobs.list` shows it under the task's id.
@Suite(.timeLimit(TestTiming.minutes(10)))
struct MCPTaskTests {
    /// How many photos a batch that must still be running when the test cancels it holds: minutes of work, not
    /// seconds. With 30, the batch once ended before the cancel came (a Debian 13 root's run, where the test's own
    /// task can wait a minute for a thread); a cancelled batch stops at once, so the size costs nothing.
    private static let stillRunning = 400

    private static func sources(_ n: Int, _ name: String = "girl-1.jpg") -> JSONValue {
        .array(Array(repeating: ["path": .string(Corpus.photo(name))], count: n))
    }

    private func legacySession(_ out: String) async throws -> WorkerProcess {
        let w = try WorkerProcess(["--allow-read-dir", Corpus.root.path, "--allow-dir", out])
        let i = try #require(try await w.call(1, "initialize", ["protocolVersion": "2025-11-25", "capabilities": [:],
                                                                "clientInfo": ["name": "t", "version": "1"]])["result"])
        #expect(i["capabilities"]?["tasks"]?["requests"]?["tools"]?["call"] == [:], "\(i)")
        w.notify("notifications/initialized")
        return w
    }

    /// Polls `tasks/get` (as request `id`) until the task has ended; each poll waits for the worker's answer, and
    /// the whole wait has a deadline (a photo takes a second or more on a loaded machine).
    private func waitForEnd(_ w: WorkerProcess, _ taskId: JSONValue, id: Int, meta: JSONValue? = nil) async throws -> JSONValue {
        var params: [String: JSONValue] = ["taskId": taskId]
        if let meta { params["_meta"] = meta }
        let deadline = ContinuousClock.now + .seconds(90)
        while ContinuousClock.now < deadline {
            let r = try await w.call(id, "tasks/get", .object(params))
            guard let result = r["result"] else { Issue.record("\(r)"); return r }
            if result["status"] != "working" { return result }
        }
        throw TimedOut(what: "the task to end")
    }

    @Test func legacyTaskIsPolledListedAndFetched() async throws {
        let out = try Corpus.scratch()
        let w = try await legacySession(out)
        let tools = try #require(try await w.call(2, "tools/list")["result"]?["tools"])
        if case .array(let list) = tools {
            #expect(list.first { $0["name"] == "photos_process" }?["execution"]?["taskSupport"] == "optional")
            #expect(list.first { $0["name"] == "image_info" }?["execution"] == nil)
        }
        // Kept 10 minutes after it is created: on a loaded machine two photos have taken over a minute, and a task
        // kept one minute was gone before it was listed.
        let created = try #require(try await w.call(3, "tools/call", ["name": "photos_process", "task": ["ttl": 600_000], "arguments": [
            "sources": Self.sources(2), "output": ["dir": .string(out)]]])["result"])
        let task = try #require(created["task"], "\(created)")
        let taskId = try #require(task["taskId"])
        #expect(task["status"] == "working" && task["ttl"] == 600_000 && task["pollInterval"] != nil, "\(task)")
        #expect(task["createdAt"]?.stringValue?.hasSuffix("Z") == true)
        // tasks/result waits for the end, then answers what tools/call would have.
        let result = try #require(try await w.call(4, "tasks/result", ["taskId": taskId])["result"])
        #expect(result["structuredContent"]?["completed"] == 2, "\(result)")
        #expect(result["_meta"]?["io.modelcontextprotocol/related-task"]?["taskId"] == taskId)
        let got = try #require(try await w.call(5, "tasks/get", ["taskId": taskId])["result"])
        #expect(got["status"] == "completed" && got["taskId"] == taskId, "\(got)")
        let listed = try #require(try await w.call(6, "tasks/list")["result"]?["tasks"])
        #expect(listed == [got], "\(listed)")
        // Ended: it cannot be cancelled.
        #expect(try await w.call(7, "tasks/cancel", ["taskId": taskId])["error"]?["code"] == -32602)
    }

    @Test func legacyTaskIsCancelledThroughTheWorkersJobTable() async throws {
        let out = try Corpus.scratch()
        let w = try await legacySession(out)
        let created = try #require(try await w.call(2, "tools/call", ["name": "photos_process", "task": [:], "arguments": [
            "sources": Self.sources(Self.stillRunning, "animal-3.jpg"), "output": ["dir": .string(out)]]])["result"])
        let taskId = try #require(created["task"]?["taskId"], "\(created)")
        // One job table: the task's job is the worker's job, under the task's id.
        try await w.waitForJobs { $0.contains { $0["id"] == taskId && $0["method"] == "tools/call" } }
        let cancelled = try #require(try await w.call(3, "tasks/cancel", ["taskId": taskId])["result"])
        #expect(cancelled["status"] == "cancelled", "\(cancelled)")
        try await w.waitForJobs { !$0.contains { $0["id"] == taskId } }
        #expect(try await w.call(4, "tasks/get", ["taskId": taskId])["result"]?["status"] == "cancelled")
        #expect(try await w.call(5, "tasks/result", ["taskId": taskId])["error"]?["code"] == -32800)
        #expect(try await w.call(6, "tasks/cancel", ["taskId": taskId])["error"]?["code"] == -32602)
    }

    @Test func legacyTaskErrors() async throws {
        let out = try Corpus.scratch()
        let w = try await legacySession(out)
        let short = try await w.call(2, "tools/call", ["name": "image_info", "task": [:], "arguments": ["source": ["path": .string(Corpus.photo("girl-1.jpg"))]]])
        #expect(short["error"]?["code"] == -32601, "a tool without taskSupport: \(short)")
        #expect(try await w.call(3, "tasks/get", ["taskId": "nope"])["error"]?["data"]?["path"] == "taskId")
        #expect(try await w.call(4, "tasks/update", ["taskId": "nope"])["error"]?["code"] == -32601)
        // Jobs.cancel, the native way, reaches a task too: its id is the job's.
        let created = try #require(try await w.call(5, "tools/call", ["name": "pack_export", "task": [:], "arguments": [
            "sources": Self.sources(Self.stillRunning, "animal-3.jpg"), "output": ["path": .string(out + "/sheet.png")]]])["result"])
        let taskId = try #require(created["task"]?["taskId"])
        #expect(try await w.call(6, "jobs.cancel", ["id": taskId])["result"]?["cancelled"] == true)
        let ended = try await waitForEnd(w, taskId, id: 7)
        #expect(ended["status"] == "cancelled", "\(ended)")
    }

    @Test func startingATaskDoesNotWaitForASlot() async throws {
        let out = try Corpus.scratch()
        let w = try WorkerProcess(["--max-jobs", "1", "--allow-read-dir", Corpus.root.path, "--allow-dir", out])
        _ = try await w.call(1, "initialize", ["protocolVersion": "2025-11-25", "capabilities": [:], "clientInfo": ["name": "t", "version": "1"]])
        let first = try #require(try await w.call(2, "tools/call", ["name": "photos_process", "task": [:], "arguments": [
            "sources": Self.sources(Self.stillRunning, "animal-3.jpg"), "output": ["dir": .string(out)]]])["result"]?["task"]?["taskId"])
        try await w.waitForJobs { $0.contains { $0["id"] == first && $0["state"] == "running" } }
        // The one slot is the first task's: the second is still answered at once, its job queued behind.
        let second = try #require(try await w.call(3, "tools/call", ["name": "photos_process", "task": [:], "arguments": [
            "sources": Self.sources(1), "output": ["dir": .string(out)]]])["result"]?["task"], "")
        #expect(second["statusMessage"] == "queued: waiting for a job slot", "\(second)")
        #expect(try await w.call(4, "tasks/get", ["taskId": first])["result"]?["status"] == "working")
        _ = try await w.call(5, "tasks/cancel", ["taskId": first])
        let done = try #require(try await w.call(6, "tasks/result", ["taskId": second["taskId"] ?? nil])["result"])
        #expect(done["structuredContent"]?["completed"] == 1, "\(done)")
    }

    private static func envelope(tasks: Bool) -> JSONValue {
        var caps: [String: JSONValue] = [:]
        if tasks { caps["extensions"] = ["io.modelcontextprotocol/tasks": [:]] }
        return ["io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": .object(caps)]
    }

    @Test func modernTaskIsServerDirectedAndCarriesItsResult() async throws {
        let out = try Corpus.scratch()
        let w = try WorkerProcess(["--allow-read-dir", Corpus.root.path, "--allow-dir", out])
        let discover = try #require(try await w.call(1, "server/discover", ["_meta": Self.envelope(tasks: false)])["result"])
        #expect(discover["capabilities"]?["extensions"]?["io.modelcontextprotocol/tasks"] == [:], "\(discover)")
        // Without the extension declared: an ordinary result.
        let plain = try #require(try await w.call(2, "tools/call", ["name": "photos_process", "_meta": Self.envelope(tasks: false),
                                                                    "arguments": ["sources": Self.sources(1), "output": ["dir": .string(out)]]])["result"])
        #expect(plain["resultType"] == "complete" && plain["structuredContent"]?["completed"] == 1, "\(plain)")
        // Declared: a task, polled until it carries the tool's result.
        let created = try #require(try await w.call(3, "tools/call", ["name": "photos_process", "_meta": Self.envelope(tasks: true),
                                                                      "arguments": ["sources": Self.sources(2), "output": ["dir": .string(out), "overwrite": true]]])["result"])
        #expect(created["resultType"] == "task" && created["status"] == "working" && created["ttlMs"] != nil, "\(created)")
        let taskId = try #require(created["taskId"])
        let done = try await waitForEnd(w, taskId, id: 4, meta: Self.envelope(tasks: true))
        #expect(done["status"] == "completed" && done["resultType"] == "complete", "\(done)")
        #expect(done["result"]?["structuredContent"]?["completed"] == 2, "\(done)")
        #expect(done["result"]?["resultType"] == "complete")
        // A short tool is never a task.
        let info = try #require(try await w.call(5, "tools/call", ["name": "image_info", "_meta": Self.envelope(tasks: true),
                                                                   "arguments": ["source": ["path": .string(Corpus.photo("girl-1.jpg"))]]])["result"])
        #expect(info["resultType"] == "complete", "\(info)")
        // The extension has no tasks/list and no tasks/result.
        #expect(try await w.call(6, "tasks/list", ["_meta": Self.envelope(tasks: true)])["error"]?["code"] == -32601)
        #expect(try await w.call(7, "tasks/result", ["taskId": taskId, "_meta": Self.envelope(tasks: true)])["error"]?["code"] == -32601)
        #expect(try await w.call(8, "tasks/update", ["taskId": taskId, "inputResponses": [:], "_meta": Self.envelope(tasks: true)])["result"]?["resultType"] == "complete")
    }

    @Test func modernTaskIsCancelled() async throws {
        let out = try Corpus.scratch()
        let w = try WorkerProcess(["--allow-read-dir", Corpus.root.path, "--allow-dir", out])
        let created = try #require(try await w.call(1, "tools/call", ["name": "photos_process", "_meta": Self.envelope(tasks: true),
                                                                      "arguments": ["sources": Self.sources(Self.stillRunning, "animal-3.jpg"), "output": ["dir": .string(out)]]])["result"])
        let taskId = try #require(created["taskId"], "\(created)")
        let ack = try #require(try await w.call(2, "tasks/cancel", ["taskId": taskId, "_meta": Self.envelope(tasks: true)])["result"])
        #expect(ack["resultType"] == "complete", "\(ack)")
        let ended = try await waitForEnd(w, taskId, id: 3, meta: Self.envelope(tasks: true))
        #expect(ended["status"] == "cancelled", "\(ended)")
        try await w.waitForJobs { !$0.contains { $0["id"] == taskId } }
        #expect(try await w.call(4, "tasks/cancel", ["taskId": "nope", "_meta": Self.envelope(tasks: true)])["error"]?["code"] == -32602)
    }
}
