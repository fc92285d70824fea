import Foundation
import JSONRPCTransport
import PhotoWorkerTestSupport
import Testing

/// Tools as MCP hosts expect them: a batch's result carries every item, only MCP notifications go out in
/// an MCP session, unknown tools are named, every tool has an output schema and truthful annotations.
@Suite(.timeLimit(TestTiming.minutes(10)))
struct MCPToolResultTests {
    /// An MCP session (2025-06-18) confined to the corpus and `out`.
    private func session(writing out: String) async throws -> WorkerProcess {
        let w = try WorkerProcess(["--allow-read-dir", Corpus.root.path, "--allow-read-dir", out, "--allow-write-dir", out])
        _ = try await w.call(1, "initialize", ["protocolVersion": "2025-06-18", "capabilities": [:],
                                               "clientInfo": ["name": "t", "version": "1"]])
        w.notify("notifications/initialized")
        return w
    }

    @Test func batchResultCarriesEveryItemAndNoNativeProgress() async throws {
        let out = try Corpus.scratch()
        let w = try await session(writing: out)
        let missing = out + "/no-such.jpg"
        w.request(2, "tools/call", ["name": "photos_process", "arguments": [
            "sources": [["path": .string(Corpus.photo("girl-1.jpg"))], ["path": .string(missing)]],
            "output": ["dir": .string(out)]]])
        let (response, before) = try await w.response(2)
        #expect(!before.contains { $0["method"] == "$/progress" }, "native progress leaked: \(before)")
        #expect(!before.contains { $0["method"] == "notifications/progress" }, "progress without a token: \(before)")
        let r = try #require(response["result"], "\(response)")
        #expect(r["isError"] == false)
        let s = try #require(r["structuredContent"])
        #expect(s["completed"] == 1 && s["failed"] == 1, "\(s)")
        guard case .array(let items)? = s["items"] else { Issue.record("no items: \(s)"); return }
        #expect(items.count == 2, "\(items)")
        let good = items.first { $0["index"] == 0 }, bad = items.first { $0["index"] == 1 }
        #expect(good?["source"]?["path"]?.stringValue == Corpus.photo("girl-1.jpg"))
        #expect(good?["result"]?["sticker"]?["path"] != nil, "\(String(describing: good))")
        #expect(bad?["source"]?["path"]?.stringValue == missing, "\(String(describing: bad))")
        #expect(bad?["error"]?["code"] == -32001, "\(String(describing: bad))")
        guard case .array(let content)? = r["content"] else { Issue.record("no content: \(r)"); return }
        let links = content.filter { $0["type"] == "resource_link" }.compactMap { $0["uri"]?.stringValue }
        let sticker = try #require(good?["result"]?["sticker"]?["path"]?.stringValue)
        #expect(links.contains(URL(fileURLWithPath: sticker).absoluteString), "\(links)")
        #expect(!links.contains { $0.hasSuffix("no-such.jpg") }, "a source is not an output: \(links)")
        let texts = content.filter { $0["type"] == "text" }.compactMap { $0["text"]?.stringValue }
        #expect(texts.contains { $0.contains("no-such.jpg") && $0.contains("failed") }, "\(texts)")
    }

    @Test func packExportLinksEveryFileAndSendsNoNativeProgress() async throws {
        let out = try Corpus.scratch()
        let w = try await session(writing: out)
        w.request(2, "tools/call", ["name": "pack_export", "arguments": [
            "stickers": [["path": .string(Corpus.photo("girl-1.jpg"))], ["path": .string(Corpus.photo("girl-2.jpg"))]],
            "cellSize": 64, "output": ["path": .string(out + "/sheet.png")], "filesDir": .string(out + "/files")]])
        let (response, before) = try await w.response(2)
        #expect(!before.contains { $0["method"] == "$/progress" }, "native progress leaked: \(before)")
        let r = try #require(response["result"], "\(response)")
        guard case .array(let content)? = r["content"] else { Issue.record("no content: \(r)"); return }
        let links = content.filter { $0["type"] == "resource_link" }.compactMap { $0["uri"]?.stringValue }
        #expect(links.count == 3, "the sheet and both stickers: \(links)")
        #expect(links.contains { $0.hasSuffix("/files/sticker-002.png") }, "\(links)")
    }

    @Test func progressTokenGetsOnlyMCPProgress() async throws {
        let out = try Corpus.scratch()
        let w = try await session(writing: out)
        w.request(2, "tools/call", ["name": "photos_process", "_meta": ["progressToken": 7], "arguments": [
            "sources": [["path": .string(Corpus.photo("girl-1.jpg"))], ["path": .string(Corpus.photo("girl-2.jpg"))]],
            "output": ["dir": .string(out)]]])
        let (_, before) = try await w.response(2)
        let progress = before.filter { $0["method"] == "notifications/progress" }
        #expect(progress.last?["params"]?["progress"]?.doubleValue == 2, "\(progress)")
        #expect(!before.contains { $0["method"] == "$/progress" }, "\(before)")
    }

    @Test func unknownToolIsNamed() async throws {
        let w = try WorkerProcess()
        let bad = try await w.call(1, "tools/call", ["name": "no_such_tool", "arguments": [:]])
        #expect(bad["error"]?["code"] == -32602)
        #expect(bad["error"]?["message"] == "Unknown tool: no_such_tool", "\(bad)")
    }

    @Test func everyToolHasSchemasAndTruthfulAnnotations() async throws {
        let w = try WorkerProcess()
        guard case .array(let tools)? = try await w.call(1, "tools/list")["result"]?["tools"] else {
            Issue.record("no tools"); return
        }
        for t in tools {
            #expect(t["inputSchema"]?["$schema"] == "https://json-schema.org/draft/2020-12/schema", "\(t["name"] ?? nil)")
            #expect(t["outputSchema"]?["type"] == "object", "\(t["name"] ?? nil)")
            #expect(t["annotations"]?["readOnlyHint"] != nil && t["annotations"]?["openWorldHint"] != nil, "\(t)")
            #expect((t["title"]?.stringValue?.count ?? 99) <= 24, "a display name, not a sentence: \(t["title"] ?? nil)")
        }
        func tool(_ n: String) -> JSONValue? { tools.first { $0["name"]?.stringValue == n } }
        #expect(tool("image_info")?["annotations"]?["readOnlyHint"] == true)
        #expect(tool("image_thumbnail")?["annotations"]?["readOnlyHint"] == false)
        #expect(tool("image_thumbnail")?["annotations"]?["destructiveHint"] == true)
        #expect(tool("cache_stats")?["annotations"]?["openWorldHint"] == false)
        #expect(tool("photos_process")?["outputSchema"]?["properties"]?["items"]?["type"] == "array")
    }

    /// Each schema stands alone: every `#/$defs/X` it uses is in its `$defs`, and it carries no other.
    @Test func toolSchemasCarryExactlyTheDefinitionsTheyUse() async throws {
        let w = try WorkerProcess()
        guard case .array(let tools)? = try await w.call(1, "tools/list")["result"]?["tools"] else {
            Issue.record("no tools"); return
        }
        func refs(_ v: JSONValue) -> Set<String> {
            switch v {
            case .string(let s) where s.hasPrefix("#/$defs/"): return [String(s.dropFirst("#/$defs/".count))]
            case .array(let a): return a.reduce(into: []) { $0.formUnion(refs($1)) }
            case .object(let o): return o.values.reduce(into: []) { $0.formUnion(refs($1)) }
            default: return []
            }
        }
        for tool in tools {
            for key in ["inputSchema", "outputSchema"] {
                guard let schema = tool[key] else { continue }
                var defined: Set<String> = []
                if case .object(let d)? = schema["$defs"] { defined = Set(d.keys) }
                #expect(refs(schema) == defined, "\(tool["name"] ?? nil) \(key): uses \(refs(schema).sorted()), defines \(defined.sorted())")
            }
        }
    }
}
