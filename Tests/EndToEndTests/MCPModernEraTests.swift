import Foundation
import JSONRPCTransport
import PhotoWorkerTestSupport
import Testing

/// MCP 2026-07-28 on the wire, hand-written (the SDK-level tests are in clients/mcp): no handshake, every request
/// carries its envelope, `server/discover`, the unsupported-version error, `resultType` and cache hints, silent
/// cancellation, and confinement without roots. Plus 2025-11-25's `initialize`.
@Suite(.timeLimit(TestTiming.minutes(10)))
struct MCPModernEraTests {
    static let version = "2026-07-28"

    /// A request's `_meta` envelope, with `extra` members (a progress token).
    static func envelope(_ version: String = version, capabilities: JSONValue = [:], extra: [String: JSONValue] = [:]) -> JSONValue {
        var m: [String: JSONValue] = [
            "io.modelcontextprotocol/protocolVersion": .string(version),
            "io.modelcontextprotocol/clientCapabilities": capabilities,
            "io.modelcontextprotocol/clientInfo": ["name": "t", "version": "1"],
        ]
        m.merge(extra) { _, new in new }
        return .object(m)
    }

    @Test func discoverOpensAModernSession() async throws {
        let w = try WorkerProcess()
        let r = try #require(try await w.call(1, "server/discover", ["_meta": Self.envelope()])["result"])
        #expect(r["resultType"] == "complete")
        #expect(r["supportedVersions"]?.arrayFirst == "2026-07-28", "\(r)")
        #expect(r["capabilities"] == ["tools": [:], "extensions": ["io.modelcontextprotocol/tasks": [:]]],
                "nothing unimplemented is advertised: \(r)")
        #expect(r["ttlMs"]?.intValue ?? 0 > 0 && r["cacheScope"] == "private", "\(r)")
        #expect(r["_meta"]?["io.modelcontextprotocol/serverInfo"]?["name"] == "photoworker")
        #expect(r["_meta"]?["io.modelcontextprotocol/serverInfo"]?["icons"] != nil)
        // Confined without roots: the working directory, since no folders were given.
        #expect(r["_meta"]?["policy"]?["origin"] == "working-directory", "\(r)")
        let list = try #require(try await w.call(2, "tools/list", ["_meta": Self.envelope()])["result"])
        #expect(list["resultType"] == "complete" && list["cacheScope"] == "public" && list["ttlMs"] != nil, "\(list)")
        #expect(list["_meta"]?["io.modelcontextprotocol/serverInfo"]?["version"] != nil)
    }

    @Test func discoverSaysWhichFoldersTheCommandLineGave() async throws {
        let w = try WorkerProcess(["--allow-read-dir", Corpus.root.path])
        let r = try #require(try await w.call(1, "server/discover", ["_meta": Self.envelope()])["result"])
        #expect(r["_meta"]?["policy"]?["origin"] == "allow-dir", "\(r)")
        #expect(r["_meta"]?["policy"]?["read"] == [.string(SessionPolicyPaths.canonical(Corpus.root.path))], "\(r)")
    }

    @Test func unsupportedVersionNamesTheSupportedOnes() async throws {
        let w = try WorkerProcess()
        let r = try await w.call(1, "server/discover", ["_meta": Self.envelope("1900-01-01")])
        #expect(r["error"]?["code"] == -32022, "\(r)")
        #expect(r["error"]?["message"] == "Unsupported protocol version")
        #expect(r["error"]?["data"]?["requested"] == "1900-01-01")
        #expect(r["error"]?["data"]?["supported"]?.arrayFirst == "2026-07-28", "\(r)")
        let call = try await w.call(2, "tools/call", ["name": "cache_stats", "_meta": Self.envelope("2099-01-01")])
        #expect(call["error"]?["code"] == -32022, "\(call)")
    }

    /// Malformed envelopes and the field each one's error names.
    static let malformed: [(JSONValue, String)] = [
        (.object(["io.modelcontextprotocol/protocolVersion": "2026-07-28"]), "_meta.io.modelcontextprotocol/clientCapabilities"),
        (["io.modelcontextprotocol/clientCapabilities": [:]], "_meta.io.modelcontextprotocol/protocolVersion"),
        (["io.modelcontextprotocol/protocolVersion": 20260728, "io.modelcontextprotocol/clientCapabilities": [:]], "_meta.io.modelcontextprotocol/protocolVersion"),
        (["io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": "all"], "_meta.io.modelcontextprotocol/clientCapabilities"),
        (["io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": [:], "io.modelcontextprotocol/clientInfo": "me"], "_meta.io.modelcontextprotocol/clientInfo"),
        (["io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": [:], "io.modelcontextprotocol/logLevel": "loud"], "_meta.io.modelcontextprotocol/logLevel"),
        ("not an object", "_meta"),
    ]

    @Test(arguments: malformed)
    func malformedEnvelopesAreInvalidParams(meta: JSONValue, path: String) async throws {
        let w = try WorkerProcess()
        for (id, method) in [(1, "server/discover"), (2, "tools/list"), (3, "tools/call")] {
            let r = try await w.call(id, method, ["name": "cache_stats", "_meta": meta])
            #expect(r["error"]?["code"] == -32602, "\(method): \(r)")
            #expect(r["error"]?["data"]?["path"]?.stringValue == path, "\(method): \(r)")
        }
        // Nothing malformed opened a session: an initialize still gets the legacy reply.
        let i = try await w.call(4, "initialize", ["protocolVersion": "2025-11-25", "capabilities": [:], "clientInfo": ["name": "t", "version": "1"]])
        #expect(i["result"]?["protocolVersion"] == "2025-11-25", "\(i)")
    }

    @Test func discoverWithoutEnvelopeIsInvalidParams() async throws {
        let w = try WorkerProcess()
        let r = try await w.call(1, "server/discover")
        #expect(r["error"]?["code"] == -32602, "\(r)")
    }

    @Test func toolCallCarriesResultTypeProgressAndIsCancelledSilently() async throws {
        let out = try Corpus.scratch()
        let w = try WorkerProcess(["--allow-read-dir", Corpus.root.path, "--allow-write-dir", out])
        w.request(1, "tools/call", ["name": "photos_process", "_meta": Self.envelope(extra: ["progressToken": "p"]),
                                    "arguments": ["sources": [["path": .string(Corpus.photo("girl-1.jpg"))]],
                                                  "output": ["dir": .string(out)]]])
        let (done, before) = try await w.response(1)
        let r = try #require(done["result"], "\(done)")
        #expect(r["resultType"] == "complete" && r["isError"] == false, "\(r)")
        #expect(r["structuredContent"]?["completed"] == 1)
        #expect(before.contains { $0["method"] == "notifications/progress" && $0["params"]?["progressToken"] == "p" }, "\(before)")
        #expect(!before.contains { $0["method"] == "$/progress" }, "\(before)")

        // Cancelled in a modern session: no reply at all ("MUST NOT send any further messages for it").
        w.request(2, "tools/call", ["name": "photos_process", "_meta": Self.envelope(), "arguments": [
            "sources": .array(Array(repeating: ["path": .string(Corpus.photo("animal-3.jpg"))], count: 30)),
            "output": ["dir": .string(out), "overwrite": true]]])
        try await w.waitForJobs { $0.contains { $0["id"] == 2 && $0["state"] == "running" } }
        w.notify("notifications/cancelled", ["requestId": 2, "reason": "user"])
        var seen = try await w.messagesUntilNoJobs()
        w.request(3, "tools/call", ["name": "cache_stats", "_meta": Self.envelope()])
        let (stats, between) = try await w.response(3)
        seen += between
        #expect(stats["result"]?["resultType"] == "complete")
        #expect(seen.allSatisfy { $0["id"] != 2 }, "no reply for the cancelled request: \(seen)")
    }

    @Test func modernSessionIsConfinedWithoutAskingForRoots() async throws {
        let inside = try Corpus.scratch()
        try FileManager.default.copyItem(atPath: Corpus.photo("girl-1.jpg"), toPath: inside + "/photo.jpg")
        let w = try WorkerProcess(currentDirectory: inside)
        // The client declares roots: a modern server never sends requests, so it is not asked for them.
        let caps: JSONValue = ["roots": ["listChanged": true]]
        let ok = try #require(try await w.call(1, "tools/call", ["name": "image_info", "_meta": Self.envelope(capabilities: caps),
                                                                 "arguments": ["source": ["path": .string(inside + "/photo.jpg")]]])["result"])
        #expect(ok["isError"] == false, "\(ok)")
        let outside = try #require(try await w.call(2, "tools/call", ["name": "image_info", "_meta": Self.envelope(capabilities: caps),
                                                                      "arguments": ["source": ["path": .string(Corpus.photo("girl-2.jpg"))]]])["result"])
        #expect(outside["isError"] == true && outside["structuredContent"]?["error"]?["code"] == -32006, "\(outside)")
        #expect(outside["resultType"] == "complete")
        w.request(3, "ping")
        let (_, between) = try await w.response(3)
        #expect(!between.contains { $0["method"] == "roots/list" }, "\(between)")
    }

    @Test func subscriptionsAreAcknowledgedEmptyAndClosed() async throws {
        let w = try WorkerProcess()
        w.request(1, "subscriptions/listen", ["notifications": ["toolsListChanged": true], "_meta": Self.envelope()])
        let (closed, before) = try await w.response(1)
        let ack = before.first { $0["method"] == "notifications/subscriptions/acknowledged" }
        #expect(ack?["params"]?["notifications"] == [:], "nothing to notify of: \(before)")
        #expect(ack?["params"]?["_meta"]?["io.modelcontextprotocol/subscriptionId"] == 1)
        #expect(closed["result"]?["resultType"] == "complete", "\(closed)")
        #expect(closed["result"]?["_meta"]?["io.modelcontextprotocol/subscriptionId"] == 1)
        let legacy = try await w.call(2, "subscriptions/listen", ["notifications": [:]])
        #expect(legacy["error"]?["code"] == -32601, "not a legacy request: \(legacy)")
    }

    @Test func initializeNegotiatesUpTo20251125WithIcons() async throws {
        for (asked, agreed) in [("2025-11-25", "2025-11-25"), ("2024-11-05", "2024-11-05"), ("2026-07-28", "2025-11-25")] {
            let w = try WorkerProcess()
            let r = try #require(try await w.call(1, "initialize", ["protocolVersion": .string(asked), "capabilities": [:],
                                                                    "clientInfo": ["name": "t", "version": "1"]])["result"])
            #expect(r["protocolVersion"]?.stringValue == agreed, "\(asked): \(r)")
            #expect(r["serverInfo"]?["icons"]?.arrayFirst?["mimeType"] == "image/png")
            #expect(r["resultType"] == nil, "a legacy result has no resultType")
        }
    }
}

private extension JSONValue {
    var arrayFirst: JSONValue? {
        if case .array(let a) = self { return a.first }
        return nil
    }
}

/// Folders as the worker reports them: every symbolic link resolved.
enum SessionPolicyPaths {
    static func canonical(_ path: String) -> String {
        URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    }
}
