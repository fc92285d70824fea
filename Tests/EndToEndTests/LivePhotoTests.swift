import Foundation
import Imaging
import JSONRPCTransport
import PhotoWorkerTestSupport
import Testing

/// Live Photos through the real binary wherever a photo goes: `image.animatedSticker` with `motion`, a still alone
/// answered with how to pass its clip, `photos.process` and `pack.export` pairing a folder's stills with their clips
/// by name and reporting it, the session's policy on the clip; and the defaults every door shares (the outline) and
/// the MCP tools' one case of names.
@Suite(.timeLimit(TestTiming.minutes(10)))
struct LivePhotoTests {
    /// A folder as a phone's export leaves it, made from the corpus: two Live Photos (a HEIC with its `.MOV`, a JPEG
    /// with its `.mp4`, extensions in either case; clips whose subject moves), a HEIC alone, and a clip of no photo's
    /// name (a phone's Live Photo clip: HEVC with an audio track).
    static func cameraRoll() throws -> TempFolder {
        let dir = try TempFolder("live-photos")
        let copies = [
            ("formats/girl.heic", "IMG_0001.HEIC"), ("motion/cutout.mp4", "IMG_0001.MOV"),
            ("photos/animal-2.jpg", "IMG_0002.JPG"), ("motion/pan.mp4", "IMG_0002.mp4"),
            ("formats/girl.heic", "IMG_0003.HEIC"), ("motion/live-photo.mov", "clip.mp4"),
        ]
        for (from, to) in copies {
            try FileManager.default.copyItem(atPath: Corpus.path(from), toPath: "\(dir.path)/\(to)")
        }
        return dir
    }

    static func items(_ before: [JSONValue], id: Int) -> [Int: JSONValue] {
        var items: [Int: JSONValue] = [:]
        for m in before where m["params"]?["kind"] == "item" && m["params"]?["id"] == .int(id) {
            if let i = m["params"]?["index"]?.intValue { items[i] = m["params"] }
        }
        return items
    }

    static func array(_ v: JSONValue?) -> [JSONValue] {
        if case .array(let a)? = v { return a }
        return []
    }

    static func firstFrame(_ path: String) throws -> Image {
        let decoder = try MotionDecoder(bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))), on: .inTurn)
        return try #require(try decoder.next(on: .inTurn)).image
    }

    static func still(_ path: String) throws -> Image {
        try ImageCodec.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))), on: .inTurn).image
    }

    static func opaque(_ image: Image) -> Int {
        stride(from: 3, to: image.pixels.count, by: 4).reduce(0) { $0 + (image.pixels[$1] > 127 ? 1 : 0) }
    }

    @Test func aLivePhotoIsCutFromItsClipAndAStillAloneSaysHowToPassIt() async throws {
        let roll = try Self.cameraRoll()
        defer { roll.remove() }
        let w = try WorkerProcess()
        let out = roll.path + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let made = try await w.call(1, "image.animatedSticker", [
            "source": ["path": .string("\(roll.path)/IMG_0001.HEIC")], "motion": ["path": .string("\(roll.path)/IMG_0001.MOV")],
            "output": ["path": .string("\(out)/live.webp")], "size": 96,
        ])
        #expect((made["result"]?["frames"]?.intValue ?? 0) > 1, "\(made)")
        #expect(try Self.firstFrame("\(out)/live.webp").width > 0)

        // The still alone: -32602 at source, naming the clip beside it.
        let alone = try await w.call(2, "image.animatedSticker", [
            "source": ["path": .string("\(roll.path)/IMG_0001.HEIC")], "output": ["path": .string("\(out)/a.webp")],
        ])
        let reason = alone["error"]?["data"]?["reason"]?.stringValue ?? ""
        #expect(alone.errorCode == -32602 && alone["error"]?["data"]?["path"] == "source"
                && reason.contains("`motion`") && reason.contains("\(roll.path)/IMG_0001.MOV"), "\(alone)")
        // A still with no clip of its name: how to pass one, by example.
        let single = try await w.call(3, "image.animatedSticker", [
            "source": ["path": .string("\(roll.path)/IMG_0003.HEIC")], "output": ["path": .string("\(out)/b.webp")],
        ])
        let example = single["error"]?["data"]?["reason"]?.stringValue ?? ""
        #expect(single.errorCode == -32602 && example.contains("`motion`") && example.contains("IMG_1234.MOV"), "\(single)")
        // A photo given as the clip: the same answer, at motion.
        let photo = try await w.call(4, "image.animatedSticker", [
            "source": ["path": .string("\(roll.path)/IMG_0003.HEIC")], "motion": ["path": .string("\(roll.path)/IMG_0002.JPG")],
            "output": ["path": .string("\(out)/c.webp")],
        ])
        #expect(photo.errorCode == -32602 && photo["error"]?["data"]?["path"] == "motion", "\(photo)")
        #expect(!FileManager.default.fileExists(atPath: "\(out)/a.webp") && !FileManager.default.fileExists(atPath: "\(out)/c.webp"))
        try await w.expectServing()
    }

    @Test func theSessionsPolicyHoldsForTheClipAndTheStill() async throws {
        let roll = try Self.cameraRoll()
        let elsewhere = try TempFolder("live-elsewhere")
        defer { roll.remove(); elsewhere.remove() }
        try FileManager.default.copyItem(atPath: Corpus.path("motion/live-photo.mov"), toPath: "\(elsewhere.path)/IMG_0009.MOV")
        try FileManager.default.copyItem(atPath: Corpus.path("formats/girl.heic"), toPath: "\(elsewhere.path)/IMG_0009.HEIC")
        let w = try WorkerProcess(["--allow-dir", roll.path])
        let outside = try await w.call(1, "image.animatedSticker", [
            "source": ["path": .string("\(roll.path)/IMG_0001.HEIC")], "motion": ["path": .string("\(elsewhere.path)/IMG_0009.MOV")],
            "output": ["path": .string("\(roll.path)/x.webp")], "size": 64,
        ])
        #expect(outside.errorCode == -32006 && outside["error"]?["data"]?["path"]?.stringValue?.hasSuffix("IMG_0009.MOV") == true,
                "\(outside)")
        let still = try await w.call(2, "image.animatedSticker", [
            "source": ["path": .string("\(elsewhere.path)/IMG_0009.HEIC")], "motion": ["path": .string("\(roll.path)/IMG_0001.MOV")],
            "output": ["path": .string("\(roll.path)/y.webp")], "size": 64,
        ])
        #expect(still.errorCode == -32006, "\(still)")
        #expect(!FileManager.default.fileExists(atPath: "\(roll.path)/x.webp") && !FileManager.default.fileExists(atPath: "\(roll.path)/y.webp"))
    }

    @Test func aFolderOfPairedAndUnpairedFilesIsPairedByPhotosProcess() async throws {
        let roll = try Self.cameraRoll()
        defer { roll.remove() }
        let w = try WorkerProcess()
        // As a client lists a folder: every file, the clips beside their stills (IMG_0002.mp4 left out: found on disk).
        let names = ["IMG_0001.HEIC", "IMG_0001.MOV", "IMG_0002.JPG", "IMG_0003.HEIC", "clip.mp4"]
        let sources = JSONValue.array(names.map { ["path": .string("\(roll.path)/\($0)")] })
        w.request(1, "photos.process", ["sources": sources, "output": ["dir": .string("\(roll.path)/out")],
                                        "animated": ["size": 96]])
        let (reply, before) = try await w.response(1)
        let result = try #require(reply["result"], "\(reply)")
        #expect(result["total"]?.intValue == 4 && result["completed"]?.intValue == 4, "\(result)")
        let paired = Self.array(result["paired"])
        #expect(paired.count == 2, "\(result)")
        #expect(paired.first?["index"]?.intValue == 0 && paired.first?["motionIndex"]?.intValue == 1
                && paired.first?["motion"]?.stringValue == "\(roll.path)/IMG_0001.MOV" && paired.first?["found"] == true, "\(paired)")
        #expect(paired.last?["index"]?.intValue == 2 && paired.last?["motionIndex"] == nil
                && paired.last?["motion"]?.stringValue == "\(roll.path)/IMG_0002.mp4", "\(paired)")
        let items = Self.items(before, id: 1)
        #expect(Set(items.keys) == [0, 2, 3, 4], "the clip a still took makes no item: \(items.keys.sorted())")
        for i in [0, 2] {
            let item = items[i]?["result"]
            #expect(item?["motion"]?.stringValue?.hasPrefix("\(roll.path)/IMG_000") == true
                    && (item?["animatedSticker"]?["frames"]?.intValue ?? 0) > 1, "item \(i): \(String(describing: item))")
        }
        #expect(items[3]?["result"]?["sticker"] != nil, "the HEIC alone is a photo: \(String(describing: items[3]))")
        #expect(items[4]?["result"]?["animatedSticker"] != nil && items[4]?["result"]?["motion"] == nil,
                "a clip of no photo's name is a clip: \(String(describing: items[4]))")

        // Without `animated` a Live Photo is its still: still one item, its clip not an item (nor a -32002) of its own.
        w.request(2, "photos.process", ["sources": .array(Array(Self.array(sources).prefix(4))),
                                        "output": ["dir": .string("\(roll.path)/plain")]])
        let (plain, plainBefore) = try await w.response(2)
        #expect(plain["result"]?["total"]?.intValue == 3 && plain["result"]?["failed"]?.intValue == 0, "\(plain)")
        let stills = Self.items(plainBefore, id: 2)
        #expect(Set(stills.keys) == [0, 2, 3] && stills.values.allSatisfy { $0["result"]?["sticker"] != nil }, "\(stills)")

        // A clip given as `motion` is paired as given, whatever its name.
        let given = try await w.call(3, "photos.process", [
            "sources": [["path": .string("\(roll.path)/IMG_0003.HEIC"), "motion": ["path": .string("\(roll.path)/clip.mp4")]]],
            "output": ["dir": .string("\(roll.path)/given")], "animated": ["size": 64],
        ])
        let pair = Self.array(given["result"]?["paired"]).first
        #expect(pair?["found"] == false && pair?["motion"]?.stringValue == "\(roll.path)/clip.mp4", "\(given)")
    }

    @Test func aFolderOfPairedAndUnpairedFilesIsPairedByPackExport() async throws {
        let roll = try Self.cameraRoll()
        defer { roll.remove() }
        let w = try WorkerProcess()
        let names = ["IMG_0001.HEIC", "IMG_0001.MOV", "IMG_0002.JPG", "IMG_0003.HEIC", "clip.mp4"]
        let sources = JSONValue.array(names.map { ["path": .string("\(roll.path)/\($0)")] })
        let r = try #require(try await w.call(1, "pack.export", [
            "sources": sources, "output": ["path": .string("\(roll.path)/sheet.png")], "filesDir": .string("\(roll.path)/pack"),
            "animated": ["size": 96],
        ])["result"])
        #expect(r["count"]?.intValue == 4 && Self.array(r["files"]).count == 4, "\(r)")
        let files = Self.array(r["files"]).compactMap(\.stringValue)
        #expect(files.map { ($0 as NSString).pathExtension } == ["webp", "webp", "png", "webp"], "\(files)")
        let paired = Self.array(r["paired"])
        #expect(paired.map { $0["index"]?.intValue } == [0, 2] && paired.first?["motionIndex"]?.intValue == 1, "\(paired)")
        // The Live Photos' stickers move.
        for file in [files[0], files[1]] {
            let decoder = try MotionDecoder(bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: file))), on: .inTurn)
            #expect((decoder.info.frameCount ?? 0) > 1, "\(file): \(decoder.info)")
        }
        // Without `animated`: a Live Photo is its still's sticker, its clip no sticker of its own.
        let plain = try #require(try await w.call(2, "pack.export", [
            "sources": .array(Array(Self.array(sources).prefix(4))), "output": ["path": .string("\(roll.path)/plain.png")],
        ])["result"])
        #expect(plain["count"]?.intValue == 3 && Self.array(plain["paired"]).count == 2, "\(plain)")
    }

    /// The same clip (and the same photo) through each door that makes a sticker gets the same outline: the
    /// standard 8 px of white unless asked otherwise.
    @Test func everyDoorDrawsTheSameOutlineByDefault() async throws {
        let dir = try TempFolder("same-defaults")
        defer { dir.remove() }
        let w = try WorkerProcess()
        let clip = JSONValue.object(["path": .string(Corpus.path("motion/pan.mp4"))])
        let alone = try await w.call(1, "image.animatedSticker", ["source": clip, "size": 96,
                                                                   "output": ["path": .string("\(dir.path)/alone.webp")]])
        #expect(alone["result"] != nil, "\(alone)")
        let pack = try #require(try await w.call(2, "pack.export", [
            "sources": [clip], "animated": ["size": 96], "output": ["path": .string("\(dir.path)/sheet.png")],
            "filesDir": .string("\(dir.path)/pack"),
        ])["result"], "pack.export")
        w.request(3, "photos.process", ["sources": [clip], "animated": ["size": 96], "output": ["dir": .string("\(dir.path)/batch")]])
        let (_, before) = try await w.response(3)
        let batchPath = try #require(Self.items(before, id: 3)[0]?["result"]?["animatedSticker"]?["output"]?["path"]?.stringValue)
        let bare = try await w.call(4, "image.animatedSticker", ["source": clip, "size": 96, "outline": ["width": 0],
                                                                  "output": ["path": .string("\(dir.path)/bare.webp")]])
        #expect(bare["result"] != nil, "\(bare)")

        let a = try Self.firstFrame("\(dir.path)/alone.webp")
        let p = try Self.firstFrame(try #require(Self.array(pack["files"]).first?.stringValue))
        let b = try Self.firstFrame(batchPath)
        let none = try Self.firstFrame("\(dir.path)/bare.webp")
        #expect(a.width == p.width && a.height == p.height && a.width == b.width && a.height == b.height,
                "alone \(a.width)x\(a.height), pack \(p.width)x\(p.height), batch \(b.width)x\(b.height)")
        let (oa, op, ob, on) = (Self.opaque(a), Self.opaque(p), Self.opaque(b), Self.opaque(none))
        #expect(abs(oa - op) <= oa / 50 && abs(oa - ob) <= oa / 50, "opaque pixels: alone \(oa), pack \(op), batch \(ob)")
        // The outline is there: without it, the frame is smaller by its ring.
        #expect(none.width < a.width && on < oa, "no outline \(none.width)x\(none.height) (\(on)), default \(a.width)x\(a.height) (\(oa))")

        // A still: image.sticker and pack.export's file of the same photo, the same size.
        let photo = JSONValue.object(["path": .string(Corpus.photo("animal-2.jpg"))])
        let sticker = try await w.call(5, "image.sticker", ["source": photo, "output": ["path": .string("\(dir.path)/still.png")]])
        let stillPack = try #require(try await w.call(6, "pack.export", [
            "sources": [photo], "output": ["path": .string("\(dir.path)/still-sheet.png")], "filesDir": .string("\(dir.path)/still-pack"),
        ])["result"], "still pack")
        let s = try Self.still("\(dir.path)/still.png")
        let sp = try Self.still(try #require(Self.array(stillPack["files"]).first?.stringValue))
        #expect(sticker["result"] != nil && s.width == sp.width && s.height == sp.height,
                "image.sticker \(s.width)x\(s.height), pack.export \(sp.width)x\(sp.height)")
    }

    @Test func mcpToolNamesAreSnakeCaseAndTheOldNamesStillCall() async throws {
        let w = try WorkerProcess()
        let tools = Self.array(try await w.call(1, "tools/list")["result"]?["tools"]).compactMap { $0["name"]?.stringValue }
        #expect(tools.contains("image_animated_sticker") && !tools.contains("image_animatedSticker"), "\(tools)")
        #expect(tools.allSatisfy { $0.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "_" } }, "\(tools)")
        for (id, name) in [(2, "image_animated_sticker"), (3, "image_animatedSticker")] {
            let r = try #require(try await w.call(id, "tools/call", ["name": .string(name), "arguments": [
                "source": ["path": .string(Corpus.path("motion/cutout.gif"))], "size": 64,
                "output": ["inline": true, "format": "webp"],
            ]])["result"], "\(name)")
            #expect(r["isError"] != true && (r["structuredContent"]?["frames"]?.intValue ?? 0) > 1, "\(name): \(r)")
        }
    }
}
