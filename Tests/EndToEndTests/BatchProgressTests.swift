import Foundation
import JSONRPCTransport
import PhotoWorkerTestSupport
import Testing

/// A batch with a clip in it says how far the clip is while it is made (not only when it ends), natively and over
/// MCP, and its progress never goes back.
@Suite(.timeLimit(TestTiming.minutes(5)))
struct BatchProgressTests {
    static let sources: JSONValue = [["path": .string(Corpus.path("motion/pan.mp4"))], ["path": .string(Corpus.path("photos/animal-1.jpg"))]]

    @Test func photosProcessSaysHowFarItsClipIs() async throws {
        let dir = try TempFolder("batch-progress")
        defer { dir.remove() }
        let w = try WorkerProcess()
        w.request(1, "photos.process", ["sources": Self.sources, "output": ["dir": .string("\(dir.path)/a")],
                                        "animated": ["size": 64], "maxConcurrency": 1])
        let (reply, before) = try await w.response(1)
        #expect(reply["result"]?["completed"]?.intValue == 2, "\(reply)")
        let progress = before.filter { $0["method"] == "$/progress" && $0["params"]?["kind"] == "progress" }
            .compactMap { $0["params"] }
        let steps = progress.compactMap { $0["message"]?.stringValue }.filter { $0.hasPrefix("sources[0]: ") }
        #expect(!steps.isEmpty && steps.allSatisfy { $0.contains(" steps") }, "\(progress)")
        let done = progress.compactMap { $0["done"]?.intValue }
        #expect(done == done.sorted() && done.last == 2, "\(done)")
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
