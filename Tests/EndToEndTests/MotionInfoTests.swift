import Foundation
import JSONRPCTransport
import PhotoWorkerTestSupport
import Testing

/// Motion sources through the real binary: `image.info` on every kind (by path and inline), a Live Photo's
/// `motion` clip, the `--max-frames`/`--max-duration` limits, and hostile clips answered -32002/-32003 while the
/// worker keeps serving (FFmpeg's log never reaches stdout, the JSON-RPC channel).
@Suite(.timeLimit(TestTiming.minutes(10)))
struct MotionInfoTests {
    static func motion(_ name: String) -> String { Corpus.path("motion/\(name)") }

    @Test func infoDescribesEveryKindOfClipAndAnimation() async throws {
        let w = try WorkerProcess()
        // name, format, codec, container, width, height, frames, rotation
        let cases: [(String, String, String, String, Int, Int, Int, Int)] = [
            ("pan.mp4", "mp4", "h264", "mp4", 96, 64, 12, 0),
            ("pan-moov-at-end.mp4", "mp4", "h264", "mp4", 96, 64, 12, 0),
            ("zoom-hevc-rot90.mov", "mov", "hevc", "mov", 64, 96, 12, 90),
            ("live-photo.mov", "mov", "hevc", "mov", 64, 96, 12, 90),
            ("cutout.webm", "webm", "vp9", "webm", 96, 64, 12, 0),
            ("cutout.vp8.webm", "webm", "vp8", "webm", 96, 64, 12, 0),
            ("cutout-alpha.webm", "webm", "vp9", "webm", 96, 64, 12, 0),
            ("cutout.gif", "gif", "gif", "gif", 96, 64, 12, 0),
            ("cutout.webp", "webp", "webp", "webp", 96, 64, 12, 0),
        ]
        for (i, (name, format, codec, container, width, height, frames, rotation)) in cases.enumerated() {
            let r = try #require(try await w.call(i + 1, "image.info", ["source": ["path": .string(Self.motion(name))]])["result"], "\(name)")
            let m = try #require(r["motion"], "\(name): \(r)")
            #expect(r["format"] == .string(format) && r["frames"]?.intValue == frames, "\(name): \(r)")
            #expect(r["width"]?.intValue == width && r["height"]?.intValue == height, "\(name): \(r)")
            #expect(m["codec"] == .string(codec) && m["container"] == .string(container), "\(name): \(m)")
            #expect(m["frameCount"]?.intValue == frames && m["rotation"]?.intValue == rotation, "\(name): \(m)")
            #expect(m["width"]?.intValue == width && m["height"]?.intValue == height, "\(name): \(m)")
            #expect(m["duration"]?.doubleValue.map { abs($0 - 1) < 0.02 } == true, "\(name): \(m)")
        }
        let alpha = try #require(try await w.call(20, "image.info", ["source": ["path": .string(Self.motion("cutout-alpha.webm"))]])["result"])
        #expect(alpha["hasAlpha"] == true && alpha["motion"]?["hasAlpha"] == true, "\(alpha)")
        let mp4 = try #require(try await w.call(21, "image.info", ["source": ["path": .string(Self.motion("pan.mp4"))]])["result"])
        #expect(mp4["motion"]?["frameRate"]?.doubleValue == 12, "\(mp4)")
        // Inline bytes take the same path as files.
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.motion("cutout.webm"))).base64EncodedString()
        let inline = try #require(try await w.call(22, "image.info", ["source": ["data": .string(data)]])["result"])
        #expect(inline["motion"]?["frameCount"]?.intValue == 12 && inline["format"] == "webm", "\(inline)")
        // A still is described as before: no motion object.
        let still = try #require(try await w.call(23, "image.info", ["source": ["path": .string(Corpus.path("formats/girl.gif"))]])["result"])
        #expect(still["motion"] == nil && still["format"] == "gif", "\(still)")
    }

    @Test func aLivePhotoIsAStillWithItsClip() async throws {
        let w = try WorkerProcess()
        let r = try #require(try await w.call(1, "image.info", [
            "source": ["path": .string(Corpus.path("formats/girl.heic"))],
            "motion": ["path": .string(Self.motion("zoom-hevc-rot90.mov"))],
        ])["result"])
        #expect(r["format"] == "heif", "\(r)")
        #expect(r["motion"]?["codec"] == "hevc" && r["motion"]?["width"]?.intValue == 64, "\(r)")
        let refused = try await w.call(2, "image.info", ["source": ["path": .string(Corpus.path("formats/girl.heic"))],
                                                         "motion": ["path": .string(Corpus.path("photos/coffee.png"))]])
        #expect(refused["error"]?["code"]?.intValue == -32002, "\(refused)")
    }

    @Test func aClipFromAURLIsFetchedByTheWorkerAndReadFromMemory() async throws {
        let clip = Array(try Data(contentsOf: URL(fileURLWithPath: Self.motion("zoom-hevc-rot90.mov"))))
        let server = try LocalHTTPServer(routes: [
            "/live.mov": .body(status: 200, contentType: "video/quicktime", bytes: clip),
            "/big.mov": .body(status: 200, contentType: "video/quicktime", bytes: clip + [UInt8](repeating: 0, count: 10_000)),
        ])
        let w = try WorkerProcess(["--max-fetch-bytes", "8000"])
        let r = try #require(try await w.call(1, "image.info", [
            "source": ["path": .string(Corpus.path("formats/girl.heic"))],
            "motion": ["url": .string(server.url("/live.mov"))],
        ])["result"])
        #expect(r["motion"]?["codec"] == "hevc" && r["motion"]?["rotation"]?.intValue == 90, "\(r)")
        // The fetcher's own limit holds for clips too.
        let big = try await w.call(2, "image.info", ["source": ["url": .string(server.url("/big.mov"))]])
        #expect(big["error"]?["code"]?.intValue == -32004, "\(big)")
    }

    /// image.info describes a source over the limits and names them; a job reading it whole is refused from what its
    /// container declares, before any frame.
    @Test func limitsRefuseFromTheContainer() async throws {
        let w = try WorkerProcess(["--max-frames", "5", "--max-duration", "30"])
        let initialize = try await w.call(1, "initialize")
        #expect(initialize["result"]?["limits"]?["maxFrames"]?.intValue == 5, "\(initialize)")
        #expect(initialize["result"]?["limits"]?["maxDurationSeconds"]?.doubleValue == 30, "\(initialize)")
        let frames = try await w.call(2, "image.info", ["source": ["path": .string(Self.motion("pan.mp4"))]])
        #expect(frames["result"]?["exceeds"]?.jsonString.contains("--max-frames") == true, "\(frames)")
        let job = try await w.call(5, "image.animatedSticker", ["source": ["path": .string(Self.motion("pan.mp4"))],
                                                                "output": ["inline": true, "format": "webp"]])
        #expect(job["error"]?["code"]?.intValue == -32002, "\(job)")
        #expect(job["error"]?["message"] == "the clip has 12 frames; this worker allows 5 (--max-frames)", "\(job)")
        let short = try WorkerProcess(["--max-duration", "0.5"])
        let long = try await short.call(3, "image.info", ["source": ["path": .string(Self.motion("pan.mp4"))]])
        #expect(long["result"]?["exceeds"]?.jsonString.contains("--max-duration") == true, "\(long)")
        let gif = try await w.call(4, "image.info", ["source": ["path": .string(Self.motion("hostile/many-frames.gif"))]])
        #expect(gif["result"]?["motion"]?["frameCount"]?.intValue == 1000, "\(gif)")
        #expect(gif["result"]?["exceeds"]?.jsonString.contains("--max-frames") == true, "\(gif)")
    }

    @Test func hostileClipsAreRefusedAndTheWorkerKeepsServing() async throws {
        let w = try WorkerProcess()
        let names = Corpus.files(in: Corpus.path("motion/hostile"))
        #expect(names.count >= 10)
        // What still gives a picture: the frames or rows that arrived, a grey ramp, 1000 frames under the limit.
        // (And what image.info describes over the limits: a lying size or duration, named in `exceeds`.)
        let answered: Set<String> = ["truncated.gif", "truncated.mp4", "truncated.webm", "no-colormap.gif", "many-frames.gif",
                                     "lying-size.mp4", "lying-duration.mp4"]
        for (i, name) in names.enumerated() {
            let r = try await w.call(i + 1, "image.info", ["source": ["path": .string(Self.motion("hostile/\(name)"))]])
            let code = r["error"]?["code"]?.intValue
            if answered.contains(name) {
                #expect(r["result"] != nil, "\(name): \(r)")
            } else {
                #expect(code == -32002 || code == -32003, "\(name): \(r)")
                if code == -32002 { #expect(r["error"]?["data"]?["detail"]?.stringValue?.isEmpty == false, "\(name): \(r)") }
            }
        }
        let lie = try await w.call(99, "image.animatedSticker", ["source": ["path": .string(Self.motion("hostile/lying-duration.mp4"))],
                                                                 "output": ["inline": true, "format": "webp"]])
        // FFmpeg 5.1 takes the clip's length from mvhd (100000 s); 7.1 from the edit list, and the worker then from the
        // samples' span (91667.6 s): refused either way, saying how long.
        let detail = lie["error"]?["data"]?["detail"]?.stringValue ?? ""
        let seconds = lie["error"]?["data"]?["value"]?.doubleValue ?? 0
        #expect(detail.contains("s exceeds the limit of 600 s") && seconds > 90_000, "\(lie)")
        #expect(lie["error"]?["message"]?.stringValue?.hasSuffix("s; this worker allows 600 s (--max-duration)") == true, "\(lie)")
        // A still method given a clip says what it is.
        let thumb = try await w.call(98, "image.thumbnail", ["source": ["path": .string(Self.motion("pan.mp4"))], "size": 32,
                                                            "output": ["inline": true]])
        #expect(thumb["error"]?["data"]?["detail"]?.stringValue?.contains("a video clip") == true, "\(thumb)")
        let size = try await w.call(100, "image.animatedSticker", ["source": ["path": .string(Self.motion("hostile/lying-size.mp4"))],
                                                                   "output": ["inline": true, "format": "webp"]])
        #expect(size["error"]?["code"]?.intValue == -32003 && size["error"]?["data"]?["width"]?.intValue == 30000, "\(size)")
        #expect(try await w.call(1000, "ping")["result"] == [:])
    }
}
