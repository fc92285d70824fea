import Foundation
import JSONRPCTransport
import PhotoWorkerTestSupport
import Testing

/// A batch with a clip in it says how far the clip is while it is made (not only when it ends), natively and over
/// MCP, and its progress never goes back.
@Suite(.timeLimit(TestTiming.minutes(10)))
struct BatchProgressTests {
    static let sources: JSONValue = [["path": .string(Corpus.path("motion/pan.mp4"))], ["path": .string(Corpus.path("photos/animal-1.jpg"))]]

    @Test func photosProcessSaysHowFarItsClipIs() async throws {
        let dir = try TempFolder("batch-progress")
        defer { dir.remove() }
        let w = try WorkerProcess()
        // Two at a time: stills end while the clip is made, and its messages never carry a count gone by.
        let stills = ["photos/animal-1.jpg", "photos/animal-2.jpg", "photos/animal-1.jpg"].map { JSONValue.object(["path": .string(Corpus.path($0))]) }
        w.request(1, "photos.process", ["sources": .array([["path": .string(Corpus.path("motion/pan.mp4"))]] + stills),
                                        "output": ["dir": .string("\(dir.path)/a")], "animated": ["size": 64],
                                        "maxConcurrency": 2])
        let (reply, before) = try await w.response(1)
        #expect(reply["result"]?["completed"]?.intValue == 4, "\(reply)")
        let progress = before.filter { $0["method"] == "$/progress" && $0["params"]?["kind"] == "progress" }
            .compactMap { $0["params"] }
        let steps = progress.compactMap { $0["message"]?.stringValue }.filter { $0.hasPrefix("sources[0]: ") }
        #expect(!steps.isEmpty && steps.allSatisfy { $0.contains(" steps") }, "\(progress)")
        let done = progress.compactMap { $0["done"]?.intValue }
        #expect(done == done.sorted() && done.last == 4, "\(done)")
        // Each item's count before its item.
        let kinds = before.filter { $0["method"] == "$/progress" }.compactMap { m -> String? in
            m["params"]?["kind"] == "item" ? "item" : m["params"]?["message"] == nil ? "count" : nil
        }
        #expect(kinds == Array(repeating: ["count", "item"], count: 4).flatMap { $0 }, "\(kinds)")
    }

    @Test func packExportSaysHowFarItsClipIsOverMCP() async throws {
        let dir = try TempFolder("batch-progress-mcp")
        defer { dir.remove() }
        let w = try WorkerProcess()
        w.request(1, "tools/call", ["name": "pack_export", "_meta": ["progressToken": "p"], "arguments": [
            "sources": Self.sources, "output": ["path": .string("\(dir.path)/sheet.png")],
            "filesDir": .string("\(dir.path)/files"), "animated": ["size": 64],
        ]])
        let (reply, before) = try await w.response(1)
        #expect(reply["result"]?["isError"] == false, "\(reply)")
        let progress = before.filter { $0["method"] == "notifications/progress" }.compactMap { $0["params"] }
        let values = progress.compactMap { $0["progress"]?.doubleValue }
        #expect(values == values.sorted() && Set(values).count == values.count, "\(values)")
        // Between the item counts, the clip's steps: a value short of the next whole count, with its message.
        #expect(progress.contains { ($0["progress"]?.doubleValue ?? 0).rounded(.down) != $0["progress"]?.doubleValue
                && $0["message"]?.stringValue?.hasPrefix("sources[0]: ") == true }, "\(progress)")
    }
}
