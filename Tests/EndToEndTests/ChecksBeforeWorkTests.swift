import Foundation
import JSONRPCTransport
import PhotoWorkerTestSupport
import Testing

/// Everything that can be checked before the work is checked before it, through the real binary: an output that
/// could never be written (a folder that does not exist, one outside `--allow-dir`, a file that may not be replaced,
/// an extension naming another format) and a window the clip or the limits do not allow are refused before any frame
/// is cut. "Before" is seen in what the worker says, not in how long it takes: no progress precedes the refusal, and
/// no file of the request is left; the same request with a good output does report progress.
@Suite(.timeLimit(TestTiming.minutes(10)))
struct ChecksBeforeWorkTests {
    static func motion(_ name: String) -> String { Corpus.path("motion/\(name)") }

    /// The `$/progress` notifications of request `id` (not its items).
    static func progress(_ messages: [JSONValue], id: Int) -> [JSONValue] {
        messages.filter { $0["method"] == "$/progress" && $0["params"]?["id"] == .int(id) && $0["params"]?["kind"] == "progress" }
    }

    /// A worker that reads the corpus and writes only in `dir`.
    static func confined(to dir: String, _ more: [String] = []) throws -> WorkerProcess {
        try WorkerProcess(["--allow-read-dir", Corpus.root.path, "--allow-dir", dir] + more)
    }

    @Test func anOutputThatCannotBeWrittenIsRefusedBeforeAnyFrameIsCut() async throws {
        let dir = try TempFolder("checks-output")
        defer { dir.remove() }
        let notes = "\(dir.path)/notes.txt"
        try Data("not an image".utf8).write(to: URL(fileURLWithPath: notes))
        let w = try Self.confined(to: dir.path)
        let clip: JSONValue = ["path": .string(Self.motion("cutout.mp4"))]
        // The folder that is not there, a folder the session may not write, a file that is not an image (and no
        // "overwrite"), and a mask whose folder is not there beside a sticker that could be written.
        let cases: [(output: JSONValue, mask: JSONValue?, code: Int, rule: String?, says: String)] = [
            (["path": .string("\(dir.path)/missing/sticker.webp")], nil, -32005, nil, "does not exist"),
            (["path": .string(NSTemporaryDirectory() + "photoworker-outside-\(getpid()).webp")], nil, -32006,
             "outside-allowed-directories", "may write"),
            (["path": .string(notes), "format": "webp"], nil, -32005, "not-an-image", "not an image"),
            (["path": .string("\(dir.path)/sticker.webp")], ["path": .string("\(dir.path)/missing/mask.png")], -32005, nil,
             "does not exist"),
        ]
        for (i, c) in cases.enumerated() {
            var params: [String: JSONValue] = ["source": clip, "output": c.output, "size": 64]
            params["maskOutput"] = c.mask
            w.request(i + 1, "image.animatedSticker", .object(params))
            let (reply, before) = try await w.response(i + 1)
            #expect(reply.errorCode == c.code, "case \(i): \(reply)")
            #expect(reply["error"]?["data"]?["rule"]?.stringValue == c.rule, "case \(i): \(reply)")
            #expect(reply["error"]?["data"]?["reason"]?.stringValue?.contains(c.says) == true, "case \(i): \(reply)")
            #expect(Self.progress(before, id: i + 1).isEmpty, "case \(i): progress before the refusal: \(before)")
        }
        #expect(dir.contents == ["notes.txt"], "a refused request left files: \(dir.contents)")
        #expect(try String(contentsOfFile: notes, encoding: .utf8) == "not an image")

        // The control: the same job with outputs it can write reports its frames first.
        w.request(10, "image.animatedSticker", ["source": clip, "output": ["path": .string("\(dir.path)/sticker.webp")],
                                                "size": 64, "keyFrameInterval": 10])
        let (done, before) = try await w.response(10)
        #expect(done["result"]?["frames"]?.intValue == 12, "\(done)")
        #expect(Self.progress(before, id: 10).count >= 12, "\(before)")
        try await w.expectServing()
    }

    @Test func theOtherMethodsCheckTheirOutputsBeforeDecoding() async throws {
        let dir = try TempFolder("checks-methods")
        defer { dir.remove() }
        let w = try Self.confined(to: dir.path)
        let photo: JSONValue = ["path": .string(Corpus.photo("coffee.png"))]
        let missing = "\(dir.path)/missing"
        // A still sticker whose mask cannot be written writes no sticker either: the mask's folder is checked first.
        let sticker = try await w.call(1, "image.sticker", [
            "source": photo, "output": ["path": .string("\(dir.path)/sticker.png")],
            "maskOutput": ["path": .string("\(missing)/mask.png")], "segmenter": "classical"])
        #expect(sticker.errorCode == -32005, "\(sticker)")
        let convert = try await w.call(2, "image.convert", ["source": photo, "output": ["path": .string("\(missing)/x.jpg")]])
        #expect(convert.errorCode == -32005, "\(convert)")
        // A pack of a clip: its sheet's folder is refused before the clip is cut (no progress, no sticker file).
        w.request(3, "pack.export", [
            "sources": [["path": .string(Self.motion("cutout.mp4"))]], "output": ["path": .string("\(missing)/sheet.png")],
            "filesDir": .string("\(dir.path)/pack"), "animated": ["size": 64]])
        let (pack, before) = try await w.response(3)
        #expect(pack.errorCode == -32005, "\(pack)")
        #expect(Self.progress(before, id: 3).isEmpty, "\(before)")
        #expect(dir.contents.filter { $0 != "pack" }.isEmpty && Corpus.files(in: "\(dir.path)/pack").isEmpty,
                "\(dir.contents)")
        try await w.expectServing()
    }

    @Test func anAnimatedOutputsExtensionMustNameItsFormat() async throws {
        let dir = try TempFolder("checks-extension")
        defer { dir.remove() }
        let w = try Self.confined(to: dir.path)
        let clip: JSONValue = ["path": .string(Self.motion("cutout.mp4"))]
        let cases: [(JSONValue, String?, String)] = [
            (["path": .string("\(dir.path)/a.webm"), "format": "webp"], nil, "names webm"),
            (["path": .string("\(dir.path)/a.jpg")], nil, "a still image"),
            (["path": .string("\(dir.path)/a.webm")], "whatsapp", "whatsapp takes webp"),
        ]
        for (i, (output, target, says)) in cases.enumerated() {
            var params: [String: JSONValue] = ["source": clip, "output": output]
            params["target"] = target.map { .string($0) }
            let r = try await w.call(i + 1, "image.animatedSticker", .object(params))
            #expect(r.errorCode == -32602 && r["error"]?["data"]?["path"] == "output.path", "\(output): \(r)")
            #expect(r["error"]?["data"]?["reason"]?.stringValue?.contains(says) == true, "\(output): \(r)")
        }
        #expect(dir.contents.isEmpty, "\(dir.contents)")
    }

    @Test func aWindowTheClipDoesNotHoldIsAParameterError() async throws {
        let dir = try TempFolder("checks-window")
        defer { dir.remove() }
        let w = try Self.confined(to: dir.path, ["--max-frames", "50"])
        let out: JSONValue = ["path": .string("\(dir.path)/a.webp")]
        // pan.mp4 is 1 s long.
        w.request(1, "image.animatedSticker", ["source": ["path": .string(Self.motion("pan.mp4"))], "output": out, "start": 10])
        let (start, before) = try await w.response(1)
        #expect(start.errorCode == -32602 && start["error"]?["data"]?["path"] == "start", "\(start)")
        #expect(start["error"]?["data"]?["reason"] == "the clip is 1.0 s long; a start at 10 s is past its end", "\(start)")
        #expect(Self.progress(before, id: 1).isEmpty, "\(before)")
        // 60 frames a second for a second is more frames than --max-frames 50 allows a source.
        let fps = try await w.call(2, "image.animatedSticker", [
            "source": ["path": .string(Self.motion("pan.mp4"))], "output": out, "fps": 60])
        #expect(fps.errorCode == -32602 && fps["error"]?["data"]?["path"] == "fps", "\(fps)")
        #expect(fps["error"]?["data"]?["reason"]?.stringValue?.contains("(--max-frames)") == true, "\(fps)")
        #expect(dir.contents.isEmpty, "\(dir.contents)")
    }
}
