import Deadlines
import Foundation
import JSONRPC
import JSONRPCTransport
import PhotoWorker
import PhotoWorkerTestSupport
import Testing

/// Every method family through the whole protocol path (framing, registry, job runner, writer) in this
/// process: the worker's server over a pair of pipes, with a clock the test advances. What only a real
/// process can show (signals, exit codes, the parent going away, stdout protection) stays end to end.
@Suite(.timeLimit(TestTiming.minutes(10)))
struct MethodFamilyTests {
    /// A worker in process; `diagnostics` offers the scheduler probes.
    /// How long a read of the worker's messages may take: in a full run beside other builds (load 60 on two cores)
    /// the cooperative pool has stalled for more than a minute; the suite's limit is ten.
    static let streamLimit: Duration = .seconds(300)

    static func connect(diagnostics: Bool = false, timers: ManualTimers = ManualTimers()) throws -> InProcessConnection {
        var configuration = ServerConfiguration()
        configuration.handleSignals = false
        configuration.watchParent = false
        configuration.timers = timers
        configuration.maxJobs = 2
        var options = WorkerOptions()
        options.diagnostics = diagnostics
        return try InProcessConnection { input, output in
            Worker.makeServer(configuration: configuration, options: options, input: input, output: output,
                              logger: .init(label: "test"))
        }
    }

    /// The error a call throws (nil when it succeeds); any other error (a deadline that passed) goes on.
    static func error(of call: () async throws -> JSONValue) async throws -> RPCError? {
        do { _ = try await call(); return nil } catch let e as RPCError { return e }
    }

    @Test func protocolBuiltIns() async throws {
        let w = try Self.connect()
        let initialize = try await w.reply("initialize", ["protocolVersion": "1.0"])
        #expect(initialize["limits"]?["maxMessageBytes"] == 67_108_864, "\(initialize["limits"] ?? .null)")
        #expect(initialize["limits"]?["maxLineBytes"] == 67_108_864)
        guard case .array(let methods)? = initialize["methods"] else { Issue.record("no methods: \(initialize)"); return }
        let names = methods.compactMap { $0["name"]?.stringValue }
        #expect(names.contains("worker.stats") && names.contains("jobs.list") && names.contains("rpc.discover"), "\(names)")
        #expect(!names.contains { $0.hasPrefix("diagnostics.") }, "diagnostics offered without --diagnostics: \(names)")
        #expect(try await w.reply("ping") == [:])
        let discover = try await w.reply("rpc.discover")
        #expect(discover["openrpc"] != nil)
        let stats = try await w.reply("worker.stats")
        #expect(stats["received"]?.intValue ?? 0 >= 3, "\(stats)")
        #expect(try await w.reply("jobs.list")["jobs"] == [])
        let unknown = try await Self.error { try await w.reply("image.rotate") }
        #expect(unknown?.code == .methodNotFound, "\(String(describing: unknown))")
        let wrongType = try await Self.error { try await w.reply("image.palette", ["source": ["path": "x.jpg"], "count": "many"]) }
        #expect(wrongType?.code == .invalidParams && wrongType?.data?["path"] == "count", "\(String(describing: wrongType))")
        // A single request's decode stays in the cache; clearing drops it and says how many went.
        _ = try await w.reply("image.palette", ["source": ["path": .string(Corpus.photo("rocket.jpg"))]])
        #expect(try await w.reply("cache.stats")["entries"] == 1)
        let cleared = try await w.reply("cache.clear")
        #expect(cleared == ["cleared": 1], "\(cleared)")
        #expect(try await w.reply("cache.stats")["entries"] == 0)
        #expect(try await Deadline.value(of: Task { await w.close() }, "the server to close", within: .seconds(300)) == 0)
    }

    @Test func imageMethods() async throws {
        let w = try Self.connect()
        let out = try Corpus.scratch()
        let source: JSONValue = ["path": .string(Corpus.photo("rocket.jpg"))]
        let info = try await w.reply("image.info", ["source": source])
        #expect(info["width"] == 640 && info["format"] == "jpeg", "\(info)")
        let thumb = try await w.reply("image.thumbnail", ["source": source, "size": 128, "output": ["path": .string("\(out)/t.png")]])
        #expect(max(thumb["output"]?["width"]?.intValue ?? 0, thumb["output"]?["height"]?.intValue ?? 0) == 128, "\(thumb)")
        #expect(FileManager.default.fileExists(atPath: "\(out)/t.png"))
        let palette = try await w.reply("image.palette", ["source": source, "count": 5])
        guard case .array(let colors)? = palette["colors"] else { Issue.record("no colours: \(palette)"); return }
        #expect(colors.count == 5)
        let scaled = try await w.reply("image.scale", ["source": source, "factor": 0.5, "output": ["path": .string("\(out)/s.webp")]])
        #expect(scaled["output"]?["format"] == "webp" && scaled["output"]?["width"] == 320, "\(scaled)")
        let converted = try await w.reply("image.convert", ["source": source, "output": ["format": "png", "inline": true]])
        #expect(converted["output"]?["data"]?.stringValue?.isEmpty == false)
        let effect = try await w.reply("image.effect", ["source": source, "effects": [["grayscale": true]],
                                                       "output": ["path": .string("\(out)/g.jpg")]])
        #expect(effect["output"]?["path"] == .string("\(out)/g.jpg"), "\(effect)")
        let missing = try await Self.error { try await w.reply("image.info", ["source": ["path": .string("\(out)/none.jpg")]]) }
        #expect(missing?.code.rawValue == -32001, "\(String(describing: missing))")
        _ = try await Deadline.value(of: Task { await w.close() }, "the server to close", within: .seconds(300))
    }

    @Test func stickerPipelineAndPacks() async throws {
        let w = try Self.connect()
        let out = try Corpus.scratch()
        let sticker = try await w.reply("image.sticker", ["source": ["path": .string(Corpus.photo("rocket.jpg"))],
                                                          "output": ["path": .string("\(out)/rocket-sticker.png")]])
        #expect(sticker["output"]?["format"] == "png" && (sticker["coverage"]?.doubleValue ?? 0) > 0, "\(sticker)")
        let photo = try await w.reply("photo.process", ["source": ["path": .string(Corpus.photo("girl-1.jpg"))],
                                                        "output": ["dir": .string(out)]])
        #expect(photo["sticker"]?["path"] != nil && photo["palette"] != nil, "\(photo)")
        let pack = try await w.reply("pack.export", [
            "stickers": [["path": .string("\(out)/rocket-sticker.png")], ["path": photo["sticker"]!["path"]!]],
            "cellSize": 128, "output": ["path": .string("\(out)/sheet.png")],
        ])
        #expect(pack["output"]?["path"] == .string("\(out)/sheet.png"), "\(pack)")
        #expect(FileManager.default.fileExists(atPath: "\(out)/sheet.png"))
        _ = try await Deadline.value(of: Task { await w.close() }, "the server to close", within: .seconds(300))
    }

    /// A batch streams one item per photo as each finishes, then its summary.
    @Test func batchesStreamItems() async throws {
        let w = try Self.connect()
        let out = try Corpus.scratch()
        let names = ["girl-1.jpg", "rocket.jpg", "animal-1.jpg"]
        let (summary, indices) = try await Deadline.run("the reply to photos.process", within: Self.streamLimit) {
            var indices: [Int] = []
            let summary = try await w.call("photos.process", [
                "sources": .array(names.map { ["path": .string(Corpus.photo($0))] }), "segmenter": "classical",
                "output": ["dir": .string(out)],
            ]) { event in
                if event["kind"] == "item", let i = event["index"]?.intValue { indices.append(i) }
            }
            return (summary, indices)
        }
        #expect(indices.sorted() == [0, 1, 2], "\(indices)")
        #expect(summary["completed"] == 3 && summary["failed"] == 0, "\(summary)")
        _ = try await Deadline.value(of: Task { await w.close() }, "the server to close", within: .seconds(300))
    }

    /// MCP: the dialect's initialize, the server's own request for the client's roots (which the client here
    /// never answers: the test's clock ends the wait), and the image methods as tools.
    @Test func mcpDialectRootsAndTools() async throws {
        let timers = ManualTimers()
        let w = try Self.connect(timers: timers)
        w.send(["jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": ["protocolVersion": "2025-06-18", "capabilities": ["roots": ["listChanged": true]],
                           "clientInfo": ["name": "test", "version": "1"]]])
        w.send(["jsonrpc": "2.0", "method": "notifications/initialized"])
        let opening = try await Deadline.collect(from: w.messages, "initialize's reply and the roots/list request", within: Self.streamLimit) { seen in
            seen.contains { $0["id"] == 1 } && seen.contains { $0["method"] == "roots/list" }
        }
        let sawInitialize = opening.first { $0["id"] == 1 }?["result"]?["protocolVersion"] == "2025-06-18"
        let rootsRequest = opening.first { $0["method"] == "roots/list" }
        #expect(sawInitialize, "\(opening)")
        #expect(rootsRequest?["id"]?.stringValue?.hasPrefix("photoworker-") == true, "\(String(describing: rootsRequest))")
        // The client stays silent: requests that need the session's folders wait for its roots until the
        // clock ends the wait; then the session falls back to the working directory (the package root here).
        #expect(timers.count > 0)
        w.send(["jsonrpc": "2.0", "id": 50, "method": "tools/call",
                "params": ["name": "image_info", "arguments": ["source": ["path": .string(Corpus.photo("rocket.jpg"))]]]])
        timers.fireAll()
        let info = try await Deadline.first(in: w.messages, "the tool call's reply", within: Self.streamLimit) { $0["id"] == 50 }
        #expect(info?["result"]?["structuredContent"]?["width"] == 640, "\(String(describing: info))")
        let tools = try await w.reply("tools/list")
        guard case .array(let list)? = tools["tools"] else { Issue.record("no tools: \(tools)"); return }
        #expect(list.contains { $0["name"] == "image_info" }, "\(list.prefix(3))")
        _ = try await Deadline.value(of: Task { await w.close() }, "the server to close", within: .seconds(300))
    }

    /// The timeout of `initialize`'s wait for roots ends only that wait: roots asked for after it (on
    /// `notifications/initialized`) and answered later still confine the session. (Under load the first timeout
    /// used to release requests in the middle of the second wait, into the working directory.) The second wait
    /// cancels the first one's timer, and the answer the roots/list request's.
    @Test func rootsAnsweredAfterTheFirstTimeoutStillApply() async throws {
        let timers = ManualTimers()
        let w = try Self.connect(timers: timers)
        let root = try Corpus.scratch()
        try FileManager.default.copyItem(atPath: Corpus.photo("rocket.jpg"), toPath: "\(root)/rocket.jpg")
        w.send(["jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": ["protocolVersion": "2025-06-18", "capabilities": ["roots": ["listChanged": true]],
                           "clientInfo": ["name": "test", "version": "1"]]])
        w.send(["jsonrpc": "2.0", "method": "notifications/initialized"])
        let rootsRequest = try await Deadline.first(in: w.messages, "the roots/list request", within: Self.streamLimit) { $0["method"] == "roots/list" }
        let id = try #require(rootsRequest?["id"])
        // initialize's timer is cancelled by the second wait (it can no longer fire in its middle); the roots/list
        // request's own is pending.
        let rootsTimeout = SessionPolicy.Configuration().rootsTimeout
        #expect(timers.pendingDelays == [rootsTimeout], "only the roots/list request's timeout is pending: \(timers.pendingDelays)")
        w.send(["jsonrpc": "2.0", "id": 60, "method": "tools/call",
                "params": ["name": "image_info", "arguments": ["source": ["path": .string("\(root)/rocket.jpg")]]]])
        w.send(["jsonrpc": "2.0", "id": id, "result": ["roots": [["uri": .string(URL(fileURLWithPath: root).absoluteString)]]]])
        let info = try await Deadline.first(in: w.messages, "the tool call's reply", within: Self.streamLimit) { $0["id"] == 60 }
        #expect(info?["result"]?["structuredContent"]?["width"] == 640, "\(String(describing: info))")
        // (The tool call, a compute job, leaves the idle-memory timer.)
        #expect(!timers.pendingDelays.contains(rootsTimeout),
                "the answered roots/list request's timeout is cancelled: \(timers.pendingDelays) pending")
        _ = try await Deadline.value(of: Task { await w.close() }, "the server to close", within: .seconds(300))
    }

    @Test func diagnosticsOnlyWhenAskedFor() async throws {
        let plain = try Self.connect()
        #expect(try await Self.error { try await plain.reply("diagnostics.sleep", ["ms": 1]) }?.code == .methodNotFound)
        _ = try await Deadline.value(of: Task { await plain.close() }, "the server to close", within: .seconds(300))
        let w = try Self.connect(diagnostics: true)
        let (fanout, items) = try await Deadline.run("the reply to diagnostics.fanout", within: Self.streamLimit) {
            var items = 0
            let fanout = try await w.call("diagnostics.fanout", ["children": 3, "ms": 1]) { event in
                if event["kind"] == "item" { items += 1 }
            }
            return (fanout, items)
        }
        #expect(fanout == ["children": 3] && items == 3, "\(fanout), \(items) items")
        // Cancelled mid-flight: answered -32800.
        let id = w.makeID() + 1
        w.send(["jsonrpc": "2.0", "id": .int(id), "method": "diagnostics.sleep", "params": ["ms": 600_000]])
        w.cancel(id)
        let cancelled = try await Deadline.first(in: w.messages, "the cancelled sleep's reply", within: Self.streamLimit) { $0["id"] == .int(id) }
        #expect(cancelled?["error"]?["code"] == -32800, "\(String(describing: cancelled))")
        _ = try await Deadline.value(of: Task { await w.close() }, "the server to close", within: .seconds(300))
    }
}
