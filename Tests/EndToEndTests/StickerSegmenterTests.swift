import Foundation
import JSONRPCTransport
import PhotoWorkerTestSupport
import Testing

/// `image.sticker` cuts with U²-Netp fused with the classical cut by default; `"segmenter":
/// "classical"` keeps the network out; the result names the one that ran.
@Suite(.timeLimit(TestTiming.minutes(10)))
struct StickerSegmenterTests {
    @Test func theNetworkRunsByDefaultAndTheClassicalCutOnRequest() async throws {
        let dir = try Corpus.scratch()
        let w = try WorkerProcess()
        let source: JSONValue = ["path": .string(Corpus.photo("animal-2.jpg"))]
        let net = try await w.call(1, "image.sticker", ["source": source, "output": ["path": .string("\(dir)/n.png")]])
        #expect(net["result"]?["segmenter"] == "network")
        let classical = try await w.call(2, "image.sticker", ["source": source, "segmenter": "classical",
                                                              "output": ["path": .string("\(dir)/c.png")]])
        #expect(classical["result"]?["segmenter"] == "classical")
        let coverage = [net, classical].compactMap { $0["result"]?["coverage"]?.doubleValue }
        #expect(coverage.count == 2 && coverage.allSatisfy { $0 > 0.05 && $0 < 0.95 }, "both cut something out: \(coverage)")
        let bad = try await w.call(3, "image.sticker", ["source": source, "segmenter": "magic", "output": ["inline": true]])
        #expect(bad.errorCode == -32602)
        let processed = try await w.call(4, "photo.process", ["source": source, "segmenter": "classical", "output": ["dir": .string(dir)]])
        #expect(processed["result"]?["segmenter"] == "classical")
    }
}
