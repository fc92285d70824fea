import Foundation
import JSONRPCTransport
import PhotoWorkerTestSupport
import Testing

/// An animated sticker's `warnings`: what it changed of what was asked, in words, in the result and in an MCP tool's
/// content; none when nothing was changed. Clips made by the tests (``MadeClips``).
@Suite(.timeLimit(TestTiming.minutes(10)))
struct ClipWarningsTests {
    static func warnings(_ r: JSONValue) -> [String] {
        if case .array(let list)? = r["result"]?["warnings"] { return list.compactMap(\.stringValue) }
        return []
    }

    @Test func aTruncatedClipAndAnUpscaledOneAreSaid() async throws {
        let dir = try TempFolder("warnings-truncated")
        defer { dir.remove() }
        // pan.mp4 (moov first: 1 s, 12 frames declared) cut to its first 90%: its index whole, 4 frames decode.
        let clip = Corpus.path("motion/hostile/truncated.mp4")
        let w = try WorkerProcess()
        let r = try await w.call(1, "image.animatedSticker", [
            "source": ["path": .string(clip)], "output": ["path": .string("\(dir.path)/a.webp")], "keyFrameInterval": 10])
        let said = Self.warnings(r)
        #expect(r["result"] != nil && (r["result"]?["frames"]?.intValue ?? 12) < 12, "\(r)")
        #expect(said.contains { $0.hasPrefix("the clip stops at ") && $0.contains("declares 1.0 s: it may be cut off") },
                "\(said)")
        // 96 x 64 cut at the default 512 px.
        #expect(said.contains("the 96x64 source was scaled up 5.3x to 512 px on its long side (give size to cut it smaller)"),
                "\(said)")
        // Over MCP the same words are in the content, where a host shows them.
        let tool = try await w.call(2, "tools/call", ["name": "image_animated_sticker", "arguments": [
            "source": ["path": .string(clip)], "output": ["path": .string("\(dir.path)/b.webp")], "keyFrameInterval": 10]])
        guard case .array(let content)? = tool["result"]?["content"] else {
            Issue.record("no content: \(tool)")
            return
        }
        let texts = content.compactMap { $0["text"]?.stringValue }
        #expect(texts.contains { $0.hasPrefix("Warnings:\n- the clip stops at ") }, "\(texts)")
    }

    @Test func aClipTrimmedToTheMessengersLengthIsSaid() async throws {
        let dir = try TempFolder("warnings-trimmed")
        defer { dir.remove() }
        let clip = try MadeClips.sixSeconds(in: dir.path)
        let w = try WorkerProcess()
        let r = try await w.call(1, "image.animatedSticker", [
            "source": ["path": .string(clip)], "output": ["path": .string("\(dir.path)/a.webm")], "target": "telegram",
            "size": 64, "keyFrameInterval": 10])
        let said = Self.warnings(r)
        #expect(said.contains("the clip is 6.0 s from its start; telegram takes at most 3 s, so its first 3 s were used (give start to choose another part)"),
                "\(r)")
        // Asked for 3 s: its length was not changed (whatever else the cut of this small clip finds to say).
        let asked = try await w.call(2, "image.animatedSticker", [
            "source": ["path": .string(clip)], "output": ["path": .string("\(dir.path)/b.webm")], "target": "telegram",
            "size": 64, "keyFrameInterval": 10, "duration": 3])
        #expect(asked["result"] != nil && !Self.warnings(asked).contains { $0.hasPrefix("the clip is ") }, "\(asked)")
    }

    @Test func nothingChangedSaysNothing() async throws {
        let dir = try TempFolder("warnings-none")
        defer { dir.remove() }
        let w = try WorkerProcess()
        let r = try await w.call(1, "image.animatedSticker", [
            "source": ["path": .string(Corpus.path("motion/pan.mp4"))], "output": ["path": .string("\(dir.path)/a.webp")],
            "size": 64, "keyFrameInterval": 10])
        #expect(r["result"]?["warnings"] == .array([]), "\(r)")
    }
}
