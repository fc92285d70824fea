import Foundation
import Imaging
import JSONRPCTransport
import PhotoWorkerTestSupport
import Testing

/// Every image method over the real binary: results, options and errors.
@Suite(.timeLimit(TestTiming.minutes(10)))
struct ImageMethodsTests {
    static func base64PNG(_ image: Image) throws -> String {
        Data(try ImageCodec.encodePNG(image, on: .inTurn)).base64EncodedString()
    }

    @Test func infoReadsTheHeader() async throws {
        let w = try WorkerProcess()
        let r = try #require(try await w.call(1, "image.info", ["source": ["path": .string(Corpus.photo("orientation-Portrait_6.jpg"))]])["result"])
        #expect(r["format"] == "jpeg")
        #expect(r["orientation"] == 6)
        // Displayed size: width and height swapped by the orientation.
        #expect((r["height"]?.intValue ?? 0) > (r["width"]?.intValue ?? 0))
        let png = try #require(try await w.call(2, "image.info", ["source": ["path": .string(Corpus.broken("plants-1-really-png.jpg"))]])["result"])
        #expect(png["format"] == "png")
    }

    @Test(arguments: [
        ("/definitely/not/here.jpg", -32001),
        ("/tmp", -32001),
        ("/dev/zero", -32001),
    ])
    func unreadableSources(_ path: String, _ code: Int) async throws {
        let w = try WorkerProcess()
        let r = try await w.call(1, "image.info", ["source": ["path": .string(path)]])
        #expect(r["error"]?["code"]?.intValue == code)
        #expect(r["error"]?["data"]?["source"] == .string(path))
        #expect(try await w.call(2, "ping")["result"] == [:])
    }

    @Test func sourceNeedsExactlyOneKind() async throws {
        let w = try WorkerProcess()
        let both = try await w.call(1, "image.info", ["source": ["path": "/a", "url": "http://x/"]])
        #expect(both["error"]?["code"] == -32602)
        #expect(both["error"]?["data"]?["path"] == "source")
        let ftp = try await w.call(2, "image.info", ["source": ["url": "ftp://example.com/a.jpg"]])
        #expect(ftp["error"]?["data"]?["path"] == "source.url")
        let b64 = try await w.call(3, "image.info", ["source": ["data": "!!!"]])
        #expect(b64["error"]?["data"]?["path"] == "source.data")
    }

    @Test func everyBrokenFileIsRejectedAndTheWorkerKeepsServing() async throws {
        let w = try WorkerProcess()
        var id = 0
        for path in Corpus.brokenFiles {
            id += 1
            let r = try await w.call(id, "image.convert", ["source": ["path": .string(path)], "output": ["inline": true]])
            let code = r["error"]?["code"]?.intValue
            // Some files in broken/ are odd but valid (libpng accepts them, as the codec tests
            // document); the ones that are structurally broken must be refused.
            let name = (path as NSString).lastPathComponent
            let mustFail = name.contains("-x_") || name.contains("truncated") || name == "pillow-broken.png"
                || name == "pillow-broken_data_stream.png" || name == "pillow-decompression_bomb.gif"
            if mustFail {
                #expect(code == -32002 || code == -32003, "\(name): \(r)")
            } else {
                #expect(r["result"] != nil || code == -32002 || code == -32003, "\(name): \(r)")
            }
        }
        #expect(try await w.call(1000, "ping")["result"] == [:])
    }

    @Test func convertWritesAtomicallyAndRefusesAMissingFolder() async throws {
        let dir = try Corpus.scratch()
        let w = try WorkerProcess()
        let ok = try #require(try await w.call(1, "image.convert", [
            "source": ["path": .string(Corpus.photo("rocket.jpg"))], "output": ["path": .string("\(dir)/r.png")],
        ])["result"])
        #expect(ok["output"]?["format"] == "png")
        #expect(Corpus.files(in: dir) == ["r.png"])
        let jpeg = try #require(try await w.call(2, "image.convert", [
            "source": ["path": .string("\(dir)/r.png")], "output": ["path": .string("\(dir)/r.jpg"), "quality": 80],
        ])["result"])
        #expect(jpeg["output"]?["format"] == "jpeg")
        let missing = try await w.call(3, "image.convert", [
            "source": ["path": .string(Corpus.photo("rocket.jpg"))], "output": ["path": .string("\(dir)/nope/r.png")],
        ])
        #expect(missing["error"]?["code"] == -32005)
        let badQuality = try await w.call(4, "image.convert", [
            "source": ["path": .string(Corpus.photo("rocket.jpg"))], "output": ["path": .string("\(dir)/q.jpg"), "quality": 0],
        ])
        #expect(badQuality["error"]?["data"]?["path"] == "output.quality")
        #expect(Corpus.files(in: dir) == ["r.jpg", "r.png"])
    }

    @Test func truncatedJPEGNeedsAllowTruncated() async throws {
        let w = try WorkerProcess()
        let src: JSONValue = ["path": .string(Corpus.broken("pillow-truncated_jpeg.jpg"))]
        let strict = try await w.call(1, "image.convert", ["source": src, "output": ["inline": true]])
        #expect(strict["error"]?["code"] == -32002)
        #expect(strict["error"]?["data"]?["truncated"] == true)
        let lenient = try #require(try await w.call(2, "image.convert", ["source": src, "output": ["inline": true], "allowTruncated": true])["result"])
        guard case .array(let warnings) = lenient["warnings"] else {
            Issue.record("no warnings array")
            return
        }
        #expect(!warnings.isEmpty)
    }

    @Test func thumbnailsFitTheBoxAndShrinkOnLoad() async throws {
        let w = try WorkerProcess()
        let src: JSONValue = ["path": .string(Corpus.photo("orientation-Landscape_1.jpg"))]
        let contain = try #require(try await w.call(1, "image.thumbnail", ["source": src, "size": 128, "output": ["inline": true]])["result"])
        #expect(contain["output"]?["width"] == 128)
        #expect((contain["output"]?["height"]?.intValue ?? 0) < 128)
        #expect((contain["shrinkOnLoad"]?.intValue ?? 1) > 1)
        // libvips' rule: twice the thumbnail's own size (100x67 for this 1800x1200 photo), so 1/8
        // (225x150), where twice the box (200x200) would have allowed only 1/4.
        let small = try #require(try await w.call(11, "image.thumbnail", ["source": src, "size": 100, "output": ["inline": true]])["result"])
        #expect(small["shrinkOnLoad"] == 8)
        #expect(small["output"]?["width"] == 100)
        let cover = try #require(try await w.call(2, "image.thumbnail", ["source": src, "width": 100, "height": 100, "fit": "cover", "output": ["inline": true]])["result"])
        #expect(cover["output"]?["width"] == 100)
        #expect(cover["output"]?["height"] == 100)
        let data = try #require(Data(base64Encoded: cover["output"]?["data"]?.stringValue ?? ""))
        let decoded = try ImageCodec.decode(Array(data), on: .inTurn)
        #expect(decoded.image.width == 100)
        let bad = try await w.call(3, "image.thumbnail", ["source": src, "size": 0, "output": ["inline": true]])
        #expect(bad["error"]?["data"]?["path"] == "size")
        let none = try await w.call(4, "image.thumbnail", ["source": src, "output": ["inline": true]])
        #expect(none["error"]?["code"] == -32602)
        let fit = try await w.call(5, "image.thumbnail", ["source": src, "size": 10, "fit": "stretch", "output": ["inline": true]])
        #expect(fit["error"]?["data"]?["path"] == "fit")
    }

    @Test func scaleAnyFactor() async throws {
        let w = try WorkerProcess()
        let src: JSONValue = ["path": .string(Corpus.photo("rocket.jpg"))]  // 640x427
        let up = try #require(try await w.call(1, "image.scale", ["source": src, "factor": 1.5, "output": ["inline": true]])["result"])
        #expect(up["output"]?["width"] == 960)
        let down = try #require(try await w.call(2, "image.scale", ["source": src, "factor": 0.25, "output": ["inline": true]])["result"])
        #expect(down["output"]?["width"] == 160)
        #expect(try await w.call(3, "image.scale", ["source": src, "factor": 0, "output": ["inline": true]])["error"]?["data"]?["path"] == "factor")
    }

    @Test func paletteIsSortedDeterministicAndValidated() async throws {
        let w = try WorkerProcess()
        let src: JSONValue = ["path": .string(Corpus.photo("animal-2.jpg"))]
        let a = try #require(try await w.call(1, "image.palette", ["source": src, "count": 5])["result"])
        let b = try #require(try await w.call(2, "image.palette", ["source": src, "count": 5])["result"])
        #expect(a["colors"] == b["colors"])
        guard case .array(let colors) = a["colors"] else {
            Issue.record("no colors")
            return
        }
        #expect(colors.count == 5)
        let fractions = colors.compactMap { $0["fraction"]?.doubleValue }
        #expect(fractions == fractions.sorted(by: >))
        let total: Double = fractions.reduce(0, +)
        #expect(abs(total - 1) < 0.01)
        for c in colors {
            let hex = try #require(c["hex"]?.stringValue)
            guard case .array(let rgb) = c["rgb"] else { continue }
            #expect(hex == String(format: "#%02X%02X%02X", rgb[0].intValue!, rgb[1].intValue!, rgb[2].intValue!))
        }
        for bad in [2, 11] {
            #expect(try await w.call(10 + bad, "image.palette", ["source": src, "count": .int(bad)])["error"]?["data"]?["path"] == "count")
        }
    }

    @Test func paletteOfAOneColourImageHasWhatItHas() async throws {
        let w = try WorkerProcess()
        let flat = try Self.base64PNG(Image(width: 8, height: 8, fill: RGBA(r: 255, g: 255, b: 255)))
        let r = try #require(try await w.call(1, "image.palette", ["source": ["data": .string(flat)], "count": 5])["result"])
        #expect(r["colors"] == [["hex": "#FFFFFF", "rgb": [255, 255, 255], "fraction": 1]])
    }

    @Test func effectsComposeAndValidate() async throws {
        let w = try WorkerProcess()
        let src = try Self.base64PNG(Image(width: 16, height: 16, fill: RGBA(r: 200, g: 100, b: 50)))
        let r = try #require(try await w.call(1, "image.effect", [
            "source": ["data": .string(src)], "effects": [["blur": 2], ["opacity": 0.5], ["grayscale": true]], "output": ["inline": true],
        ])["result"])
        let out = try ImageCodec.decode(Array(try #require(Data(base64Encoded: r["output"]?["data"]?.stringValue ?? ""))), on: .inTurn)
        let p = out.image[8, 8]
        #expect(abs(Int(p.a) - 128) <= 1)
        #expect(p.r == p.g && p.g == p.b)
        let bad = try await w.call(2, "image.effect", ["source": ["data": .string(src)], "effects": [["blur": 1], ["opacity": 2]], "output": ["inline": true]])
        #expect(bad["error"]?["data"]?["path"] == "effects[1].opacity")
        let two = try await w.call(3, "image.effect", ["source": ["data": .string(src)], "effects": [["blur": 1, "opacity": 1]], "output": ["inline": true]])
        #expect(two["error"]?["data"]?["path"] == "effects[0]")
    }

    @Test func stickerWritesCutoutAndFullSizeMask() async throws {
        let dir = try Corpus.scratch()
        let w = try WorkerProcess()
        let r = try #require(try await w.call(1, "image.sticker", [
            "source": ["path": .string(Corpus.photo("animal-2.jpg"))], "outline": ["width": 6, "color": "#FFFFFF"],
            "output": ["path": .string("\(dir)/s.png")], "maskOutput": ["path": .string("\(dir)/m.png")],
        ])["result"])
        let info = try #require(try await w.call(2, "image.info", ["source": ["path": .string(Corpus.photo("animal-2.jpg"))]])["result"])
        #expect(r["mask"]?["width"] == info["width"])
        #expect(r["mask"]?["height"] == info["height"])
        let box = try #require(r["boundingBox"])
        #expect((box["width"]?.intValue ?? 0) > 0)
        #expect((box["x"]?.intValue ?? -1) >= 0)
        let coverage = try #require(r["coverage"]?.doubleValue)
        #expect(coverage > 0.05 && coverage < 0.95)
        let sticker = try ImageCodec.decode(Array(try Data(contentsOf: URL(fileURLWithPath: "\(dir)/s.png"))), on: .inTurn)
        #expect(!sticker.image.isOpaque, "a sticker has transparent surroundings")
        #expect(sticker.image[0, 0].a == 0)
        let badMask = try await w.call(3, "image.sticker", [
            "source": ["path": .string(Corpus.photo("animal-2.jpg"))], "output": ["inline": true], "maskOutput": ["inline": true, "format": "jpeg"],
        ])
        #expect(badMask["error"]?["data"]?["path"] == "maskOutput.format")
    }

    @Test func photoProcessWritesStickerAndGradient() async throws {
        let dir = try Corpus.scratch()
        let w = try WorkerProcess()
        let r = try #require(try await w.call(1, "photo.process", [
            "source": ["path": .string(Corpus.photo("girl-1.jpg"))], "count": 4, "output": ["dir": .string(dir)],
        ])["result"])
        #expect(Corpus.files(in: dir) == ["girl-1-gradient.png", "girl-1-sticker.png"])
        guard case .array(let palette) = r["palette"] else {
            Issue.record("no palette")
            return
        }
        #expect((1...4).contains(palette.count))
        for key in ["decodeMs", "stickerMs", "paletteMs", "gradientMs", "totalMs"] {
            #expect(r["timings"]?[key]?.doubleValue != nil, "missing \(key)")
        }
        let gradient = try ImageCodec.decode(Array(try Data(contentsOf: URL(fileURLWithPath: "\(dir)/girl-1-gradient.png"))), on: .inTurn)
        #expect(gradient.image.isOpaque, "the gradient fills the background")
    }

    @Test func photosProcessStreamsItemsAndSurvivesBadPhotos() async throws {
        let dir = try Corpus.scratch()
        let w = try WorkerProcess()
        let sources: JSONValue = [
            ["path": .string(Corpus.photo("girl-1.jpg"))], ["path": "/no/such/photo.jpg"],
            ["path": .string(Corpus.broken("pillow-broken.png"))], ["path": .string(Corpus.photo("girl-2.jpg"))],
        ]
        w.request(1, "photos.process", ["sources": sources, "output": ["dir": .string(dir)], "maxConcurrency": 2])
        let (final, before) = try await w.response(1)
        #expect(final["result"]?["completed"] == 2)
        #expect(final["result"]?["failed"] == 2)
        #expect(final["result"]?["total"] == 4)
        let items = before.compactMap { $0["params"] }.filter { $0["kind"] == "item" }
        #expect(Set(items.compactMap { $0["index"]?.intValue }) == [0, 1, 2, 3])
        #expect(items.filter { $0["error"] != nil }.compactMap { $0["index"]?.intValue }.sorted() == [1, 2])
        #expect(items.first { $0["index"] == 1 }?["error"]?["code"] == -32001)
        #expect(try await w.call(2, "ping")["result"] == [:])
        #expect(!Corpus.files(in: dir).contains { $0.contains(".tmp-") })
    }

    @Test func cancellingABatchStopsEveryChildAndLeavesNoPartialFiles() async throws {
        try await WorkerProcess.untilCancelledInFlight {
            let dir = try Corpus.scratch()
            let w = try WorkerProcess()
            let photos = (1...3).flatMap { _ in ["animal-1.jpg", "animal-3.jpg", "car-2.jpg", "girl-3.jpg"] }
            w.request(1, "photos.process", ["sources": .array(photos.map { ["path": .string(Corpus.photo($0))] }), "output": ["dir": .string(dir)]])
            // Cancel once the first item is out.
            while let m = try await w.next(), m["params"]?["kind"] != "item" {}
            let (inFlight, final, afterFinal) = try await w.cancelAcknowledged(1, as: 2)
            guard inFlight else { return false }
            #expect(final["error"]?["code"] == -32800, "\(final)")
            w.request(3, "ping")
            let (_, after) = try await w.response(3)
            #expect(afterFinal.isEmpty && after.isEmpty, "nothing for the batch after its final reply: \(afterFinal + after)")
            let files = Corpus.files(in: dir)
            #expect(!files.contains { $0.contains(".tmp-") }, "\(files)")
            #expect(files.count < photos.count * 2, "\(files)")
            return true
        }
    }

    @Test func packExportLaysOutAGridAndExportsFiles() async throws {
        let dir = try Corpus.scratch()
        let w = try WorkerProcess()
        let sticker = try Self.base64PNG(Image(width: 40, height: 20, fill: RGBA(r: 255, g: 0, b: 0, a: 255)))
        let r = try #require(try await w.call(1, "pack.export", [
            "stickers": [["data": .string(sticker)], ["data": .string(sticker)], ["data": .string(sticker)]],
            "columns": 2, "cellSize": 64, "background": "#FFFFFF", "output": ["path": .string("\(dir)/sheet.png")],
            "filesDir": .string("\(dir)/pack"),
        ])["result"])
        #expect(r["output"]?["width"] == 128)
        #expect(r["output"]?["height"] == 128)
        #expect(r["rows"] == 2)
        #expect(Corpus.files(in: "\(dir)/pack") == ["sticker-001.png", "sticker-002.png", "sticker-003.png"])
        let sheet = try ImageCodec.decode(Array(try Data(contentsOf: URL(fileURLWithPath: "\(dir)/sheet.png"))), on: .inTurn)
        #expect(sheet.image[32, 32] == RGBA(r: 255, g: 0, b: 0))  // a sticker's centre
        #expect(sheet.image[96, 96] == RGBA(r: 255, g: 255, b: 255))  // the empty fourth cell
        // A batch: its decodes bypass the cache.
        let cached = try await w.call(2, "cache.stats")["result"]?["entries"]
        #expect(cached == 0, "\(String(describing: cached)) cache entries after an export")
        let neither = try await w.call(3, "pack.export", ["output": ["inline": true]])
        #expect(neither["error"]?["code"] == -32602)
    }

    /// Each sticker's file is written as it is made: with one job, the sticker before a source that fails is
    /// written and the export fails with the source's error, without a sheet.
    @Test func packExportWritesStickersAsTheyAreMade() async throws {
        let dir = try Corpus.scratch()
        let w = try WorkerProcess(["--max-jobs", "1"])
        let sticker = try Self.base64PNG(Image(width: 40, height: 20, fill: RGBA(r: 255, g: 0, b: 0, a: 255)))
        let r = try await w.call(1, "pack.export", [
            "stickers": [["data": .string(sticker)], ["path": .string("\(dir)/missing.png")]],
            "output": ["path": .string("\(dir)/sheet.png")], "filesDir": .string("\(dir)/pack"),
        ])
        #expect(r["error"]?["code"] == -32001, "\(r)")
        #expect(Corpus.files(in: "\(dir)/pack") == ["sticker-001.png"])
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/sheet.png"))
    }

    @Test func cacheServesRepeatsAndClears() async throws {
        let w = try WorkerProcess()
        let src: JSONValue = ["path": .string(Corpus.photo("rocket.jpg"))]
        _ = try await w.call(1, "image.palette", ["source": src])
        _ = try await w.call(2, "image.palette", ["source": src])
        let stats = try #require(try await w.call(3, "cache.stats")["result"])
        #expect(stats["hits"] == 1)
        #expect(stats["entries"] == 1)
        #expect(try await w.call(4, "cache.clear")["result"] == ["cleared": 1])
        #expect(try await w.call(5, "cache.stats")["result"]?["entries"] == 0)
    }

    @Test func cancelMidResampleLeavesNoFile() async throws {
        try await WorkerProcess.untilCancelledInFlight {
            let dir = try Corpus.scratch()
            let w = try WorkerProcess()
            // A big upscale (about 3600x2400) takes long enough to be cancelled in flight (a job that ended first is
            // tried again), in the resample or in its PNG's encode, which polls the cancel every 16 rows.
            w.request(1, "image.scale", ["source": ["path": .string(Corpus.photo("orientation-Landscape_1.jpg"))], "factor": 2, "output": ["path": .string("\(dir)/big.png")]])
            try await w.waitForJobs { !$0.isEmpty }
            let (inFlight, r, _) = try await w.cancelAcknowledged(1, as: 2)
            guard inFlight else { return false }
            #expect(r["error"]?["code"] == -32800, "\(r)")
            #expect(Corpus.files(in: dir).isEmpty, "\(Corpus.files(in: dir))")
            return true
        }
    }
}
