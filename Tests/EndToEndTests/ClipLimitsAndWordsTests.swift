import Foundation
import JSONRPCTransport
import PhotoWorkerTestSupport
import Testing

/// Clip problems in a person's words, and `--max-duration` as its docs say, through the real binary with clips the
/// tests make (``MadeClips``): a cut-off MP4 says its index is missing (FFmpeg's text kept under `data.detail`); a
/// clip over a limit says how long it is and what the worker allows; the limit is on the part decoded, so a window
/// within it is accepted however long the clip; `image.info` describes any clip it can read and names the limits it
/// breaks.
@Suite(.timeLimit(TestTiming.minutes(10)))
struct ClipLimitsAndWordsTests {
    static func progress(_ messages: [JSONValue], id: Int) -> [JSONValue] {
        ChecksBeforeWorkTests.progress(messages, id: id)
    }

    @Test func aCutOffMP4SaysItsIndexIsMissing() async throws {
        let dir = try TempFolder("words-cut-off")
        defer { dir.remove() }
        let clip = try MadeClips.cutOff(in: dir.path)
        let w = try WorkerProcess()
        let info = try await w.call(1, "image.info", ["source": ["path": .string(clip)]])
        let sticker = try await w.call(2, "image.animatedSticker", [
            "source": ["path": .string(clip)], "output": ["path": .string("\(dir.path)/a.webp")], "size": 64])
        for r in [info, sticker] {
            let error = r["error"]
            #expect(r.errorCode == -32002, "\(r)")
            #expect(error?["message"] == "the file is cut off: its index (moov) is missing", "\(r)")
            #expect(error?["data"]?["truncated"] == true && error?["data"]?["reason"] == "cut-off", "\(r)")
            // FFmpeg's own words are kept, under detail only.
            #expect(error?["data"]?["detail"]?.stringValue?.contains("moov") == true, "\(r)")
            #expect(error?["message"]?.stringValue?.contains("@ 0x") == false, "\(r)")
        }
        // Noise after a valid ftyp is not a cut-off file: it is damaged.
        let noise = try await w.call(3, "image.info", ["source": ["path": .string(Corpus.path("motion/hostile/not-a-video.mp4"))]])
        #expect(noise["error"]?["data"]?["reason"] == "damaged" && noise["error"]?["data"]?["truncated"] == false, "\(noise)")
        #expect(noise["error"]?["message"] == "the clip is damaged: its data does not decode", "\(noise)")
    }

    @Test func maxDurationHoldsThePartDecoded() async throws {
        let dir = try TempFolder("words-max-duration")
        defer { dir.remove() }
        let clip: JSONValue = ["path": .string(try MadeClips.sixSeconds(in: dir.path))]
        let w = try WorkerProcess(["--max-duration", "4"])
        func sticker(_ id: Int, _ more: [String: JSONValue]) async throws -> (JSONValue, [JSONValue]) {
            let ext = more["target"] == "telegram" ? "webm" : "webp"
            var params: [String: JSONValue] = ["source": clip, "output": ["path": .string("\(dir.path)/s\(id).\(ext)")],
                                               "size": 64, "keyFrameInterval": 10]
            params.merge(more) { _, b in b }
            w.request(id, "image.animatedSticker", .object(params))
            return try await w.response(id)
        }
        // The whole clip: refused before any frame, saying how long it is and what the worker allows.
        let (whole, before) = try await sticker(1, [:])
        let error = whole["error"]
        #expect(whole.errorCode == -32002, "\(whole)")
        #expect(error?["message"] == "the clip is 6.0 s; this worker allows 4 s (--max-duration)", "\(whole)")
        #expect(error?["data"]?["limit"] == "maxDurationSeconds" && error?["data"]?["flag"] == "--max-duration", "\(whole)")
        #expect(error?["data"]?["value"]?.doubleValue == 6 && error?["data"]?["maximum"]?.doubleValue == 4, "\(whole)")
        #expect(error?["data"]?["reason"] == "too-long", "\(whole)")
        #expect(Self.progress(before, id: 1).isEmpty, "\(before)")
        // A duration asking for more than the limit is that parameter's error.
        let (long, _) = try await sticker(2, ["duration": 5])
        #expect(long.errorCode == -32602 && long["error"]?["data"]?["path"] == "duration", "\(long)")
        #expect(long["error"]?["data"]?["reason"]?.stringValue?.contains("this worker allows 4 s (--max-duration)") == true, "\(long)")
        // Windows within the limit are accepted, however long the clip: a duration, a target's cap, a late start.
        for (id, more, seconds) in [(3, ["duration": 3.0] as [String: JSONValue], 3.0), (4, ["target": "telegram"], 3.0),
                                    (5, ["start": 3.0], 3.0)] {
            let (made, _) = try await sticker(id, more)
            #expect(made["result"]?["duration"]?.doubleValue.map { abs($0 - seconds) < 0.1 } == true, "\(more): \(made)")
        }
        try await w.expectServing()
    }

    @Test func imageInfoDescribesAClipOverTheLimitsAndNamesThem() async throws {
        let dir = try TempFolder("words-info")
        defer { dir.remove() }
        let long = try MadeClips.sixSeconds(in: dir.path)
        let w = try WorkerProcess(["--max-duration", "4", "--max-frames", "5"])
        let r = try #require(try await w.call(1, "image.info", ["source": ["path": .string(long)]])["result"])
        #expect(r["motion"]?["duration"]?.doubleValue == 6 && r["motion"]?["frameCount"]?.intValue == 72, "\(r)")
        let exceeds = r["exceeds"]?.arrayValue ?? []
        let byLimit = Dictionary(exceeds.compactMap { e in e["limit"]?.stringValue.map { ($0, e) } }) { a, _ in a }
        #expect(Set(byLimit.keys) == ["maxDurationSeconds", "maxFrames"], "\(exceeds)")
        #expect(byLimit["maxDurationSeconds"]?["value"]?.doubleValue == 6 && byLimit["maxDurationSeconds"]?["maximum"]?.doubleValue == 4,
                "\(exceeds)")
        #expect(byLimit["maxDurationSeconds"]?["message"] == "the clip is 6.0 s; this worker allows 4 s (--max-duration)", "\(exceeds)")
        #expect(byLimit["maxFrames"]?["flag"] == "--max-frames" && byLimit["maxFrames"]?["value"]?.doubleValue == 72, "\(exceeds)")
        #expect(exceeds.allSatisfy { $0["of"] == "source" }, "\(exceeds)")
        // A Live Photo's clip over a limit: the still is described, the clip too, and the limit is the clip's.
        let live = try #require(try await w.call(2, "image.info", [
            "source": ["path": .string(Corpus.path("formats/girl.heic"))], "motion": ["path": .string(long)]])["result"])
        #expect(live["format"] == "heif" && live["motion"]?["duration"]?.doubleValue == 6, "\(live)")
        #expect(live["exceeds"]?.arrayValue?.allSatisfy { $0["of"] == "motion" } == true, "\(live)")
        // A clip declaring a frame over --max-pixels is described from its container, without decoding a frame.
        let lying = try #require(try await w.call(3, "image.info", [
            "source": ["path": .string(Corpus.path("motion/hostile/lying-size.mp4"))]])["result"])
        #expect(lying["width"]?.intValue == 30000, "\(lying)")
        #expect(lying["exceeds"]?.arrayValue?.contains { $0["limit"] == "maxPixels" && $0["flag"] == "--max-pixels" } == true,
                "\(lying)")
        // An animated GIF is over --max-frames 5 too; a still photo over nothing.
        let fine = try #require(try await w.call(4, "image.info", ["source": ["path": .string(Corpus.path("motion/cutout.gif"))]])["result"])
        #expect(fine["exceeds"]?.arrayValue?.map { $0["limit"] } == [.string("maxFrames")], "\(fine)")
        let still = try #require(try await w.call(5, "image.info", ["source": ["path": .string(Corpus.photo("coffee.png"))]])["result"])
        #expect(still["exceeds"] == nil, "\(still)")
    }
}

extension JSONValue {
    /// The elements of an array, or nil.
    fileprivate var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }
}
