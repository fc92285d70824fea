import Foundation
import Imaging
import JSONRPCTransport
import PhotoWorkerTestSupport
import Testing

/// `image.animatedSticker` through the real binary: clips of every kind into every format, with their masks; each
/// messenger's limits held; progress per frame; cancellation leaving no file; bad params refused.
@Suite(.timeLimit(TestTiming.minutes(10)))
struct AnimatedStickerTests {
    static func motion(_ name: String) -> String { Corpus.path("motion/\(name)") }

    /// Every frame of an animation the worker wrote, read back with the motion decoder.
    static func frames(_ path: String) throws -> [MotionFrame] {
        let decoder = try MotionDecoder(bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))), on: .inTurn)
        var frames: [MotionFrame] = []
        while let frame = try decoder.next(on: .inTurn) { frames.append(frame) }
        return frames
    }

    /// The share of pixels that are fully transparent and fully opaque.
    static func alphaSplit(_ image: Image) -> (clear: Double, solid: Double) {
        var clear = 0, solid = 0
        for i in stride(from: 3, to: image.pixels.count, by: 4) {
            if image.pixels[i] == 0 { clear += 1 } else if image.pixels[i] == 255 { solid += 1 }
        }
        return (Double(clear) / Double(image.pixelCount), Double(solid) / Double(image.pixelCount))
    }

    @Test func cutsEveryFrameOfAClipIntoEachFormat() async throws {
        let w = try WorkerProcess()
        let dir = try TempFolder("animated")
        defer { dir.remove() }
        let cases: [(source: String, format: String)] = [
            ("cutout.mp4", "webm"), ("cutout.gif", "webp"), ("cutout.webm", "apng"), ("cutout.webp", "gif"),
        ]
        for (i, c) in cases.enumerated() {
            let out = "\(dir.path)/sticker-\(i).\(c.format == "apng" ? "png" : c.format)"
            let maskPath = "\(dir.path)/mask-\(i).png"
            w.request(i + 1, "image.animatedSticker", [
                "source": ["path": .string(Self.motion(c.source))], "output": ["path": .string(out)],
                "size": 192, "maskOutput": ["path": .string(maskPath)], "canvas": "frame",
            ])
            let (reply, before) = try await w.response(i + 1)
            let r = try #require(reply["result"], "\(c): \(reply)")
            // Key frames half a second apart (6 frames at 12 fps), and the last.
            #expect(r["frames"]?.intValue == 12 && r["keyFrames"]?.intValue == 3, "\(c): \(r)")
            #expect(r["duration"]?.doubleValue.map { abs($0 - 1) < 0.02 } == true, "\(c): \(r)")
            #expect(r["output"]?["format"] == .string(c.format) && r["output"]?["width"]?.intValue == 192, "\(c): \(r)")
            #expect(r["flicker"]?.doubleValue.map { $0 >= 0 && $0 < 1 } == true, "\(c): \(r)")
            // Progress counts each frame cut, then each frame encoded, up to all of them, and never goes back.
            let done = before.filter { $0["method"] == "$/progress" && $0["params"]?["id"] == .int(i + 1) }
                .compactMap { $0["params"]?["done"]?.intValue }
            #expect(done.last == 24 && done == done.sorted() && Set(done).count == done.count, "\(c): \(done)")
            let bytes = try Data(contentsOf: URL(fileURLWithPath: out))
            #expect(bytes.count == r["output"]?["bytes"]?.intValue, "\(c)")
            // Read back: 12 frames (GIF and WebP may merge equal ones), each cut: with clear and solid pixels.
            if c.format != "apng" {
                let frames = try Self.frames(out)
                #expect((c.format == "webm" ? 12...12 : 2...12).contains(frames.count), "\(c): \(frames.count) frames")
                for frame in frames {
                    let split = Self.alphaSplit(frame.image)
                    #expect(split.clear > 0.05 && split.solid > 0.01, "\(c) frame \(frame.index): \(split)")
                }
            } else {
                let first = try ImageCodec.decode([UInt8](bytes), on: .inTurn).image
                let split = Self.alphaSplit(first)
                #expect(split.clear > 0.05 && split.solid > 0.01, "\(c): \(split)")
            }
            let mask = try #require(r["mask"], "\(c): \(r)")
            #expect(mask["format"] == "apng" && mask["width"]?.intValue == 192, "\(c): \(mask)")
            #expect(FileManager.default.fileExists(atPath: maskPath))
        }
        try await w.expectServing()
    }

    @Test func fitsEachMessengersLimits() async throws {
        let w = try WorkerProcess()
        let dir = try TempFolder("animated-targets")
        defer { dir.remove() }
        // target, file, format, max bytes, max seconds (protocol/README.md's table), square
        let cases: [(String, String, String, Int, Double, Bool)] = [("telegram", "t.webm", "webm", false),
            ("whatsapp", "w.webp", "webp", true), ("signal", "s.png", "apng", true)].map { target, file, format, square in
            let row = MessengerLimitsTable.row(target)
            return (target, file, format, row.animatedMaxBytes, row.maxSeconds, square)
        }
        for (i, (target, file, format, maxBytes, maxSeconds, square)) in cases.enumerated() {
            let out = "\(dir.path)/\(file)"
            w.request(i + 1, "image.animatedSticker", [
                "source": ["path": .string(Self.motion("cutout.mp4"))], "output": ["path": .string(out)],
                "target": .string(target), "size": 256, "canvas": "frame",
            ])
            let (reply, before) = try await w.response(i + 1)
            let r = try #require(reply["result"], "\(target): \(reply)")
            // Each fitting attempt is reported as it ends.
            let fitting = before.compactMap { $0["params"]?["message"]?.stringValue }.filter { $0.hasPrefix("fitting: ") }
            #expect(!fitting.isEmpty && fitting.last == "fitting: " + (r["target"]?["encoding"]?.stringValue ?? ""),
                    "\(target): \(fitting)")
            let t = try #require(r["target"], "\(target): \(r)")
            #expect(t["name"] == .string(target) && t["maxBytes"]?.intValue == maxBytes, "\(t)")
            let encodings: [JSONValue]? = if case .array(let a)? = t["encodings"] { a } else { nil }
            #expect(encodings?.isEmpty == false && t["encoding"]?.stringValue?.isEmpty == false, "\(t)")
            let bytes = try Data(contentsOf: URL(fileURLWithPath: out))
            #expect(bytes.count <= maxBytes && r["output"]?["format"] == .string(format), "\(target): \(bytes.count) bytes")
            #expect(r["output"]?["width"]?.intValue == 512, "\(target): \(r)")
            // Telegram: the other side in proportion (96x64), even for VP9's 4:2:0 planes.
            #expect(r["output"]?["height"]?.intValue.map { square ? $0 == 512 : (340...344).contains($0) && $0 % 2 == 0 } == true,
                    "\(target): \(r)")
            #expect((r["duration"]?.doubleValue ?? 99) <= maxSeconds, "\(target): \(r)")
            if format != "apng" {
                let frames = try Self.frames(out)
                let length = frames.last.map { $0.time + $0.duration } ?? 0
                #expect(length <= maxSeconds + 0.001 && !frames.isEmpty, "\(target): \(length) s")
                #expect(frames.allSatisfy { $0.duration >= 0.008 && $0.image.width == 512 }, "\(target)")
                if target == "telegram" { #expect(Double(frames.count) / length <= 30.01) }
            }
        }
        try await w.expectServing()
    }

    @Test func cancellingMidClipWritesNothing() async throws {
        try await WorkerProcess.untilCancelledInFlight {
            let w = try WorkerProcess()
            let dir = try TempFolder("animated-cancel")
            defer { dir.remove() }
            w.request(1, "image.animatedSticker", [
                "source": ["path": .string(Self.motion("cutout.webm"))], "output": ["path": .string("\(dir.path)/c.webm")],
                "maskOutput": ["path": .string("\(dir.path)/m.png")], "keyFrameInterval": 0,
            ])
            // Cancel once the first frame is through.
            while let m = try await w.next() {
                if m["method"] == "$/progress", m["params"]?["id"] == 1 { break }
                if m["id"] == 1 { Issue.record("finished before any progress: \(m)"); return true }
            }
            let (inFlight, reply, afterReply) = try await w.cancelAcknowledged(1, as: 2)
            guard inFlight else { return false }
            #expect(reply["error"]?["code"]?.intValue == -32800, "\(reply)")
            #expect(afterReply.allSatisfy { $0["params"]?["id"] != 1 }, "progress after the final reply: \(afterReply)")
            #expect(dir.contents.isEmpty, "left behind: \(dir.contents)")
            try await w.expectServing()
            #expect(dir.contents.isEmpty, "written after the reply: \(dir.contents)")
            return true
        }
    }

    @Test func outlinesEveryFrameAndReadsBrokenClipsAsSourceErrors() async throws {
        let w = try WorkerProcess()
        let dir = try TempFolder("animated-outline")
        defer { dir.remove() }
        let out = "\(dir.path)/o.png"
        let r = try await w.call(1, "image.animatedSticker", [
            "source": ["path": .string(Self.motion("cutout.gif"))], "output": ["path": .string(out)], "size": 96,
            "outline": ["width": 10, "color": "#00FF00"],
        ])
        #expect(r["result"]?["frames"]?.intValue == 12, "\(r)")
        let first = try ImageCodec.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: out))), on: .inTurn).image
        let green = (0..<first.pixelCount).filter {
            first.pixels[$0 * 4] < 60 && first.pixels[$0 * 4 + 1] > 200 && first.pixels[$0 * 4 + 3] == 255
        }.count
        #expect(green > 200, "\(green) outline pixels")
        // Broken clips: the frames that arrived, or -32002 naming the source; the worker keeps serving.
        for (i, name) in ["hostile/truncated.webm", "hostile/truncated.mp4", "hostile/truncated.gif",
                          "hostile/not-a-video.mp4"].enumerated() {
            let reply = try await w.call(10 + i, "image.animatedSticker", [
                "source": ["path": .string(Self.motion(name))], "output": ["path": .string("\(dir.path)/b\(i).webm")],
                "size": 64,
            ])
            #expect(reply["result"] != nil || [-32002, -32003].contains(reply.errorCode ?? 0), "\(name): \(reply)")
        }
        try await w.expectServing()
    }

    /// A clip 90 pixels wide, converted at its own width (the cut's 512 is larger): swscale used to write past its
    /// rows and the worker aborted with a corrupted heap.
    @Test func aClipOfAnyWidthIsCutAndTheWorkerServesOn() async throws {
        let w = try WorkerProcess()
        let r = try await w.call(1, "image.animatedSticker", [
            "source": ["path": .string(Self.motion("odd-width.mp4"))], "output": ["inline": true, "format": "webp"]])
        // The frames are cut 512 wide; the subject spans them, and the standard outline's room (8 px and 2) is added
        // on either side.
        #expect(r["result"]?["frames"]?.intValue == 12 && r["result"]?["output"]?["width"]?.intValue == 512 + 2 * 10, "\(r)")
        try await w.expectServing()
    }

    @Test func badParamsAreRefused() async throws {
        let w = try WorkerProcess()
        let source: JSONValue = ["path": .string(Self.motion("cutout.gif"))]
        let cases: [(JSONValue, String)] = [
            // The format the path's extension names is the path's error.
            (["source": source, "output": ["path": "/tmp/x.gif"], "target": "telegram"], "output.path"),
            (["source": source, "output": ["path": "/tmp/x", "format": "gif"], "target": "telegram"], "output.format"),
            (["source": source, "output": ["path": "/tmp/x.bin"]], "output.format"),
            (["source": source, "output": ["path": "/tmp/x.webm"], "maskOutput": ["path": "/tmp/m.gif"]], "maskOutput.format"),
            (["source": source, "output": ["path": "/tmp/x.webm"], "fps": 0], "fps"),
            (["source": source, "output": ["path": "/tmp/x.webm"], "size": 4], "size"),
            (["source": source, "output": ["path": "/tmp/x.webm"], "frameRate": 10], "frameRate"),
            // The subject's pixels are the source's (96x64), not the cut's.
            (["source": source, "output": ["path": "/tmp/x.webm"], "size": 192, "subject": ["point": [96, 10]]],
             "subject.point"),
            (["source": source, "output": ["path": "/tmp/x.webm"], "subject": ["box": [10, 10, 10, 20]]], "subject.box"),
        ]
        for (i, (params, path)) in cases.enumerated() {
            let reply = try await w.call(i + 1, "image.animatedSticker", params)
            #expect(reply.errorCode == -32602, "\(params): \(reply)")
            #expect(reply["error"]?["data"]?["path"]?.stringValue?.contains(path) == true, "\(params): \(reply)")
        }
        // A still is not a clip: -32602 at source, saying how a Live Photo's clip is passed (LivePhotoTests has more).
        let still = try await w.call(20, "image.animatedSticker", [
            "source": ["path": .string(Corpus.path("photos/coffee.png"))], "output": ["path": "/tmp/x.webm"]])
        #expect(still.errorCode == -32602 && still["error"]?["data"]?["path"] == "source"
                && still["error"]?["data"]?["reason"]?.stringValue?.contains("`motion`") == true, "\(still)")
        try await w.expectServing()
    }

    /// corpus/subjects/pair-pan.mp4: a 288x216 window panning 2 px a frame to the right across pair.jpg (one subject
    /// in each 160-px half), so the seam between the subjects is at x = 160 - 2k in frame k.
    static let pairPan = Corpus.path("subjects/pair-pan.mp4")

    /// Each mask frame's share of subject pixels left of the seam (a few pixels either side of it left out), and
    /// the subject's share of the frame.
    static func leftShares(_ maskPath: String) throws -> [(left: Double, subject: Double)] {
        try frames(maskPath).map { frame in
            let image = frame.image
            let k = Int((frame.time * 16).rounded())  // the clip's frame, should the encoder have merged equal ones
            let seam = (160 - 2 * k) * image.width / 288
            var left = 0, right = 0
            for y in 0..<image.height {
                for x in 0..<image.width where image.pixels[(y * image.width + x) * 4] >= 128 {
                    if x < seam - 4 { left += 1 } else if x > seam + 4 { right += 1 }
                }
            }
            return (Double(left) / Double(max(1, left + right)), Double(left + right) / Double(image.pixelCount))
        }
    }

    @Test func aSubjectChosenOnTheFirstFrameIsCutInEveryFrame() async throws {
        let w = try WorkerProcess()
        let dir = try TempFolder("animated-subject")
        defer { dir.remove() }
        // Points in the first frame's pixels (the pair's less the window's 12-px offset down); a box round the right one.
        let cases: [(subject: JSONValue?, side: String)] = [
            (nil, "both"), (["point": [80, 138]], "left"), (["point": [240, 108]], "right"),
            (["box": [165, 28, 288, 216]], "right"),
        ]
        for (i, c) in cases.enumerated() {
            let maskPath = "\(dir.path)/m\(i).webp"
            var params: [String: JSONValue] = [
                "source": ["path": .string(Self.pairPan)], "output": ["path": .string("\(dir.path)/s\(i).webm")],
                "size": 288, "maskOutput": ["path": .string(maskPath), "format": "webp"],
            ]
            params["subject"] = c.subject
            let r = try await w.call(i + 1, "image.animatedSticker", .object(params))
            // Key frames 0.5 s apart at 16 fps (frames 0 and 8) and the last: two cut of a subject carried on.
            #expect(r["result"]?["frames"]?.intValue == 16 && r["result"]?["keyFrames"]?.intValue == 3, "\(c): \(r)")
            let shares = try Self.leftShares(maskPath)
            #expect(shares.count == 16, "\(c): \(shares.count) mask frames")
            for (k, share) in shares.enumerated() {
                let side = switch share.left { case 0.95...: "left"; case ...0.05: "right"; default: "both" }
                #expect(side == c.side && share.subject > 0.1, "\(c) frame \(k): \(share)")
            }
        }
        try await w.expectServing()
    }

    /// The items a batch streamed before its reply, by index.
    static func items(_ before: [JSONValue], id: Int) -> [Int: JSONValue] {
        var items: [Int: JSONValue] = [:]
        for m in before where m["params"]?["kind"] == "item" && m["params"]?["id"] == .int(id) {
            if let i = m["params"]?["index"]?.intValue { items[i] = m["params"] }
        }
        return items
    }

    @Test func photosProcessCutsEachMotionSourceAsAnAnimatedSticker() async throws {
        let w = try WorkerProcess()
        let dir = try TempFolder("animated-batch")
        defer { dir.remove() }
        let sources: [JSONValue] = [
            ["path": .string(Self.motion("cutout.gif"))], ["path": .string(Self.motion("pan.mp4"))],
            ["path": .string(Corpus.photo("animal-2.jpg"))], ["path": .string(Self.pairPan)],
        ]
        w.request(1, "photos.process", [
            "sources": .array(sources), "output": ["dir": .string(dir.path)], "animated": ["size": 96, "canvas": "frame"],
            "subjects": [.null, .null, .null, ["point": [240, 108]]],
        ])
        let (reply, before) = try await w.response(1)
        #expect(reply["result"]?["completed"]?.intValue == 4, "\(reply)")
        let items = Self.items(before, id: 1)
        for i in [0, 1, 3] {
            let made = items[i]?["result"]?["animatedSticker"]
            let path = try #require(made?["output"]?["path"]?.stringValue, "item \(i): \(String(describing: items[i]))")
            #expect(path.hasSuffix("-sticker.webp") && made?["output"]?["width"]?.intValue == 96, "item \(i): \(String(describing: made))")
            let frames = try Self.frames(path)
            #expect(frames.count > 1 && frames.count == made?["frames"]?.intValue, "item \(i): \(frames.count) frames, \(String(describing: made))")
        }
        // The still is a photo's results; the clip's subject is the one its point chose (the right one: from x 45 in the last frame at 96 px, less the 8-px outline; the left one would start at 0).
        #expect(items[2]?["result"]?["sticker"]?["path"]?.stringValue?.hasSuffix("2-animal-2-sticker.png") == true,
                "\(String(describing: items[2]))")
        let last = try Self.frames(try #require(items[3]?["result"]?["animatedSticker"]?["output"]?["path"]?.stringValue)).last
        let firstSolid = try #require(last.flatMap { f in (0..<f.image.width).first { x in
            (0..<f.image.height).contains { f.image.pixels[($0 * f.image.width + x) * 4 + 3] == 255 } } })
        #expect(firstSolid >= 25, "the left subject is in the clip's sticker from x \(firstSolid)")

        // Without `animated`: a GIF gives its first frame's results, a video is -32002 saying where clips go.
        w.request(2, "photos.process", ["sources": .array(Array(sources.prefix(2))), "output": ["dir": .string(dir.path)]])
        let (_, plain) = try await w.response(2)
        let stills = Self.items(plain, id: 2)
        #expect(stills[0]?["result"]?["sticker"] != nil, "\(String(describing: stills[0]))")
        #expect(stills[1]?["error"]?["code"]?.intValue == -32002
                && stills[1]?["error"]?["data"]?["detail"]?.stringValue?.contains("animated") == true,
                "\(String(describing: stills[1]))")

        let bad: [(JSONValue, String)] = [
            (["format": "gif", "target": "telegram"], "animated.format"), (["size": 8], "animated.size"),
            (["keyFrameInterval": 20], "animated.keyFrameInterval"), (["fps": 10], "animated.fps"),
        ]
        for (i, (animated, path)) in bad.enumerated() {
            let r = try await w.call(10 + i, "photos.process", [
                "sources": .array(sources), "output": ["dir": .string(dir.path)], "animated": animated])
            #expect(r.errorCode == -32602 && r["error"]?["data"]?["path"]?.stringValue == path, "\(animated): \(r)")
        }
        // A broken clip is its item's -32002, with what the video reader found (not the still decoder's guess).
        w.request(20, "photos.process", ["sources": [["path": .string(Self.motion("hostile/truncated-moov-at-end.mp4"))]],
                                         "output": ["dir": .string(dir.path)], "animated": ["size": 64]])
        let (_, broken) = try await w.response(20)
        let item = Self.items(broken, id: 20)[0]
        let detail = item?["error"]?["data"]?["detail"]?.stringValue ?? ""
        #expect(item?["error"]?["code"]?.intValue == -32002 && detail.contains("moov")
                && item?["error"]?["message"] == "the file is cut off: its index (moov) is missing"
                && !detail.contains("reads stills"), "\(String(describing: item))")
        try await w.expectServing()
    }

    /// A URL among a batch's or a pack's sources is fetched once: the look that tells a clip from a still hands its
    /// bytes on to the cut. (A WhatsApp pack looks at every source before cutting any and keeps only its clips'
    /// bytes: an all-animated pack fetches each once.)
    @Test func aURLSourceIsFetchedOnceToTellAClipFromAStill() async throws {
        let server = try LocalHTTPServer(routes: [
            "/pan.mp4": .body(status: 200, contentType: "video/mp4",
                              bytes: Array(try Data(contentsOf: URL(fileURLWithPath: Self.motion("pan.mp4"))))),
            "/girl.jpg": .body(status: 200, contentType: "image/jpeg",
                               bytes: Array(try Data(contentsOf: URL(fileURLWithPath: Corpus.photo("girl-1.jpg"))))),
        ])
        let w = try WorkerProcess()
        let dir = try TempFolder("animated-urls")
        defer { dir.remove() }
        let sources: [JSONValue] = [["url": .string(server.url("/pan.mp4"))], ["url": .string(server.url("/girl.jpg"))]]
        w.request(1, "photos.process", ["sources": .array(sources), "output": ["dir": .string(dir.path)],
                                        "animated": ["size": 96]])
        let (reply, before) = try await w.response(1)
        let items = Self.items(before, id: 1)
        #expect(reply["result"]?["completed"]?.intValue == 2, "\(reply)")
        #expect(items[0]?["result"]?["animatedSticker"] != nil && items[0]?["result"]?["source"] == sources[0]["url"],
                "\(String(describing: items[0]))")
        #expect(items[1]?["result"]?["sticker"] != nil, "\(String(describing: items[1]))")
        let batchFetches = server.connections
        #expect(batchFetches == 2, "\(batchFetches) fetches for two URLs")

        for (id, target, packSources) in [(2, "telegram", sources), (3, "whatsapp", [sources[0]])] {
            let before = server.connections
            let pack = try await w.call(id, "pack.export", [
                "sources": .array(packSources), "output": ["path": .string("\(dir.path)/\(target).png")],
                "filesDir": .string("\(dir.path)/\(target)"), "target": .string(target), "animated": ["size": 96, "canvas": "frame"],
            ])
            #expect(pack["result"]?["target"]?["maxBytes"]?.intValue == MessengerLimitsTable.row(target).animatedMaxBytes, "\(pack)")
            #expect(server.connections - before == packSources.count,
                    "\(target): \(server.connections - before) fetches for \(packSources.count) URLs")
        }
        try await w.expectServing()
    }

    /// A batch of clips cancelled once the first is through: -32800, nothing after the reply, no sticker file of a
    /// clip cut short (each is written once, at its end).
    @Test func cancellingABatchOfClipsLeavesNoPartialFile() async throws {
        try await WorkerProcess.untilCancelledInFlight {
            let w = try WorkerProcess(["--max-jobs", "1"])
            let dir = try TempFolder("animated-batch-cancel")
            defer { dir.remove() }
            let clips = ["cutout.webm", "cutout.mp4", "cutout.gif", "pan.mp4"].map { JSONValue.object(["path": .string(Self.motion($0))]) }
            w.request(1, "photos.process", ["sources": .array(clips), "output": ["dir": .string(dir.path)],
                                             "animated": ["size": 96, "keyFrameInterval": 0]])
            // Cancel once the first clip's item is out: the others are queued or mid-clip.
            var first: JSONValue?
            while let m = try await w.next() {
                if m["params"]?["kind"] == "item" { first = m["params"]; break }
                if m["id"] == 1 { return false }
            }
            let (inFlight, reply, after) = try await w.cancelAcknowledged(1, as: 2)
            guard inFlight else { return false }
            #expect(reply.errorCode == -32800, "\(reply)")
            #expect(after.allSatisfy { $0["params"]?["id"] != 1 }, "after the final reply: \(after)")
            let written = try #require(first?["result"]?["animatedSticker"]?["output"]?["path"]?.stringValue, "\(String(describing: first))")
            try await w.expectServing()
            #expect(dir.contents == [(written as NSString).lastPathComponent], "left behind: \(dir.contents)")
            return true
        }
    }

    /// Animated stickers already made (`stickers`) are laid out and fitted again, not cut: their own alpha is their
    /// edge, every frame keeps its transparent surround.
    @Test func packExportFitsReadyMadeAnimatedStickersAgain() async throws {
        let w = try WorkerProcess()
        let dir = try TempFolder("animated-ready-made")
        defer { dir.remove() }
        let made = try await w.call(1, "image.animatedSticker", [
            "source": ["path": .string(Self.motion("cutout.mp4"))], "size": 256, "output": ["path": .string("\(dir.path)/a.webm")]])
        #expect(made["result"]?["frames"]?.intValue == 12, "\(made)")
        let r = try await w.call(2, "pack.export", [
            "stickers": [["path": .string("\(dir.path)/a.webm")], ["path": .string(Self.motion("cutout-alpha.webp"))]],
            "output": ["path": .string("\(dir.path)/sheet.png")], "filesDir": .string("\(dir.path)/w"), "target": "whatsapp",
            "animated": [:],
        ])
        let files: [String] = if case .array(let a)? = r["result"]?["files"] { a.compactMap(\.stringValue) } else { [] }
        #expect(files.count == 2 && files.allSatisfy { $0.hasSuffix(".webp") }, "\(r)")
        for file in files {
            let frames = try Self.frames(file)
            #expect(frames.count > 1, "\(file): \(frames.count) frames")
            for frame in frames {
                let split = Self.alphaSplit(frame.image)
                #expect(split.clear > 0.3 && split.solid > 0.005, "\(file) frame \(frame.index): \(split)")
            }
        }
        // Not cut again: the first frame's alpha is the sticker's own, laid out in WhatsApp's 480-px box on 512x512
        // (its mean alpha scaled by the area it takes there).
        func meanAlpha(_ image: Image) -> Double {
            stride(from: 3, to: image.pixels.count, by: 4).reduce(0.0) { $0 + Double(image.pixels[$1]) } / Double(image.pixelCount) / 255
        }
        let source = try #require(try Self.frames("\(dir.path)/a.webm").first).image
        let fitted = try #require(try Self.frames(files.first ?? "").first).image
        let scale = 480 / Double(max(source.width, source.height))
        let share = (Double(source.width) * scale).rounded() * (Double(source.height) * scale).rounded() / (512 * 512)
        let ratio = meanAlpha(fitted) / (meanAlpha(source) * share)
        #expect(abs(ratio - 1) < 0.05, "mean alpha \(meanAlpha(fitted)) against the sticker's \(meanAlpha(source)) x \(share)")

        // A still among them is refused for WhatsApp, at its own path.
        let mixed = try await w.call(3, "pack.export", [
            "stickers": [["path": .string("\(dir.path)/a.webm")], ["path": .string(Corpus.photo("girl-1.jpg"))]],
            "output": ["path": .string("\(dir.path)/x.png")], "filesDir": .string("\(dir.path)/x"), "target": "whatsapp",
            "animated": [:],
        ])
        #expect(mixed.errorCode == -32602 && mixed["error"]?["data"]?["path"] == "stickers[1]", "\(mixed)")
        try await w.expectServing()
    }

    @Test func packExportMakesAnimatedPacksForEachMessenger() async throws {
        let w = try WorkerProcess()
        let dir = try TempFolder("animated-packs")
        defer { dir.remove() }
        func pack(_ id: Int, _ target: String, _ sources: [String], _ extra: [String: JSONValue] = [:]) async throws -> JSONValue {
            var params: [String: JSONValue] = [
                "sources": .array(sources.map { ["path": .string($0)] }), "target": .string(target),
                "output": ["path": .string("\(dir.path)/\(target).png")], "filesDir": .string("\(dir.path)/\(target)"),
                "animated": ["size": 128],
            ]
            params.merge(extra) { _, new in new }
            return try await w.call(id, "pack.export", .object(params))
        }
        // target, its files' extension, animated limit
        let telegram = try await pack(1, "telegram", [Self.motion("cutout.mp4"), Self.motion("pan.mp4")])
        let whatsapp = try await pack(2, "whatsapp", [Self.motion("cutout.gif"), Self.pairPan],
                                      ["subjects": [.null, ["point": [240, 108]]]])
        for (r, ext, limit) in [(telegram, "webm", MessengerLimitsTable.row("telegram").animatedMaxBytes),
                                (whatsapp, "webp", MessengerLimitsTable.row("whatsapp").animatedMaxBytes)] {
            let files: [String] = if case .array(let a)? = r["result"]?["files"] { a.compactMap(\.stringValue) } else { [] }
            #expect(files.count == 2 && files.allSatisfy { $0.hasSuffix(".\(ext)") }, "\(r)")
            #expect(r["result"]?["target"]?["maxBytes"]?.intValue == limit, "\(r)")
            for file in files {
                let frames = try Self.frames(file)
                let bytes = try Data(contentsOf: URL(fileURLWithPath: file)).count
                #expect(frames.count > 1 && bytes <= limit && frames.allSatisfy { max($0.image.width, $0.image.height) == 512 },
                        "\(file): \(frames.count) frames, \(bytes) bytes")
            }
            // Each fitted as image.animatedSticker fits it, and said so.
            let encodings: [String] = if case .array(let a)? = r["result"]?["target"]?["encodings"] { a.compactMap(\.stringValue) } else { [] }
            #expect(encodings.count == 2 && encodings.allSatisfy { $0.hasPrefix("quality ") && $0.contains(" fps, ") }, "\(encodings)")
            // The sheet shows each sticker's first frame.
            let sheet = try ImageCodec.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: try #require(r["result"]?["output"]?["path"]?.stringValue)))), on: .inTurn).image
            #expect(Self.alphaSplit(sheet).solid > 0.05, "\(Self.alphaSplit(sheet))")
        }
        let tray = try ImageCodec.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(dir.path)/whatsapp/tray.png"))), on: .inTurn).image
        #expect(tray.width == 96 && tray.height == 96 && Self.alphaSplit(tray).solid > 0.05, "\(tray.width)x\(tray.height)")

        // Signal takes a clip beside a still: an APNG within 300 KB and the still's WebP.
        let signal = try await pack(3, "signal", [Self.motion("cutout.gif"), Corpus.photo("animal-2.jpg")])
        let signalFiles: [String] = if case .array(let a)? = signal["result"]?["files"] { a.compactMap(\.stringValue) } else { [] }
        #expect(signalFiles.map { ($0 as NSString).pathExtension } == ["png", "webp"], "\(signal)")
        if let apng = signalFiles.first {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: apng)))
            #expect(bytes.count <= MessengerLimitsTable.row("signal").animatedMaxBytes, "\(bytes.count) bytes")
            // An APNG: its animation control chunk before the first image data.
            let chunk = Array("acTL".utf8), data = Array("IDAT".utf8)
            func offset(_ c: [UInt8]) -> Int? { (0...(bytes.count - 4)).first { Array(bytes[$0..<$0 + 4]) == c } }
            #expect((offset(chunk) ?? .max) < (offset(data) ?? -1), "acTL at \(String(describing: offset(chunk)))")
        }

        // WhatsApp takes all animated or all still; animated needs filesDir and no target of its own.
        let mixed = try await pack(4, "whatsapp", [Self.motion("cutout.gif"), Corpus.photo("animal-2.jpg")])
        #expect(mixed.errorCode == -32602 && mixed["error"]?["data"]?["path"] == "sources[1]", "\(mixed)")
        let refused: [([String: JSONValue], String)] = [
            (["filesDir": .null, "target": .null], "animated"),
            (["animated": ["target": "signal"]], "animated.target"),
            (["animated": ["format": "gif"]], "animated.format"),
        ]
        for (i, (extra, path)) in refused.enumerated() {
            var params: [String: JSONValue] = [
                "sources": [["path": .string(Self.motion("cutout.gif"))]], "target": "telegram",
                "output": ["path": .string("\(dir.path)/x.png")], "filesDir": .string("\(dir.path)/x"), "animated": [:],
            ]
            for (k, v) in extra { if v == .null { params[k] = nil } else { params[k] = v } }
            let r = try await w.call(10 + i, "pack.export", .object(params))
            #expect(r.errorCode == -32602 && r["error"]?["data"]?["path"]?.stringValue == path, "\(extra): \(r)")
        }
        try await w.expectServing()
    }
}
