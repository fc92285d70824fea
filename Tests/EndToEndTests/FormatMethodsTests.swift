import Foundation
import Imaging
import JSONRPCTransport
import PhotoWorkerTestSupport
import Testing

/// The new formats through the real binary: every method takes every format, broken files are -32002 (or
/// -32003 for sizes over the limit) and the worker keeps serving, WebP outputs, messenger-ready packs.
@Suite(.timeLimit(TestTiming.minutes(10)))
struct FormatMethodsTests {
    static func format(_ name: String) -> String { Corpus.path("formats/\(name)") }

    @Test func infoReportsFormatFramesAndProfile() async throws {
        let w = try WorkerProcess()
        let cases: [(String, String, Int)] = [("girl.heic", "heif", 1), ("girl.avif", "avif", 1), ("girl-animated.webp", "webp", 2),
                                              ("girl-animated-offset.gif", "gif", 2)]
        for (i, (name, format, frames)) in cases.enumerated() {
            let r = try #require(try await w.call(i + 1, "image.info", ["source": ["path": .string(Self.format(name))]])["result"], "\(name)")
            #expect(r["format"] == .string(format), "\(name): \(r)")
            #expect(r["frames"]?.intValue == frames, "\(name): \(r)")
        }
        let adobe = try #require(try await w.call(10, "image.info", ["source": ["path": .string(Self.format("girl-adobergb.jpg"))]])["result"])
        #expect(adobe["colorProfile"]?.stringValue?.contains("Adobe RGB") == true, "\(adobe)")
    }

    @Test func everyMethodTakesEveryFormat() async throws {
        let dir = try Corpus.scratch()
        let w = try WorkerProcess()
        // A HEIC sticker, a WebP palette, an AVIF thumbnail, a GIF scaled, a HEIC converted to WebP.
        let sticker = try await w.call(1, "image.sticker", ["source": ["path": .string(Self.format("girl.heic"))],
                                                            "output": ["path": .string("\(dir)/s.webp")]])
        #expect(sticker["result"]?["sticker"]?["format"] == "webp" || sticker["result"]?["output"]?["format"] == "webp", "\(sticker)")
        let palette = try await w.call(2, "image.palette", ["source": ["path": .string(Self.format("girl-lossy.webp"))], "count": 4])
        #expect(palette["result"]?["colors"]?.arrayCount == 4, "\(palette)")
        let thumb = try await w.call(3, "image.thumbnail", ["source": ["path": .string(Self.format("girl.avif"))], "size": 64,
                                                           "output": ["inline": true]])
        #expect(thumb["result"]?["output"]?["width"]?.intValue == 64, "\(thumb)")
        let scaled = try await w.call(4, "image.scale", ["source": ["path": .string(Self.format("girl.gif"))], "factor": 0.5,
                                                        "output": ["inline": true, "format": "webp"]])
        #expect(scaled["result"]?["output"]?["format"] == "webp" && scaled["result"]?["output"]?["width"]?.intValue == 120, "\(scaled)")
        let converted = try await w.call(5, "image.convert", ["source": ["path": .string(Self.format("coffee-alpha.heic"))],
                                                             "output": ["path": .string("\(dir)/c.webp")]])
        #expect(converted["result"]?["sourceFormat"] == "heif", "\(converted)")
        let written = try ImageCodec.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(dir)/c.webp"))), on: .inTurn)
        #expect(written.metadata.format == .webp && written.metadata.hadAlpha, "\(written.metadata)")
    }

    @Test func aBatchOfMixedFormatsStreamsEveryItem() async throws {
        let dir = try Corpus.scratch()
        let w = try WorkerProcess()
        let names = ["girl.gif", "girl.heic", "girl.avif", "girl-lossy.webp"]
        w.request(1, "photos.process", ["sources": .array(names.map { ["path": .string(Self.format($0))] }),
                                       "segmenter": "classical", "output": ["dir": .string(dir)]])
        let (final, before) = try await w.response(1, timeout: .seconds(120))
        #expect(final["result"]?["completed"]?.intValue == names.count, "\(final)")
        let items = before.filter { $0["params"]?["kind"] == "item" }
        #expect(items.count == names.count, "\(items)")
    }

    @Test func everyBrokenVariantIsRefusedAndTheWorkerKeepsServing() async throws {
        let w = try WorkerProcess()
        let recovered: Set<String> = ["frame-lies.gif", "mutated-data.avif", "riff-size-lies.webp", "fuzz-damaged-first-frame.gif", "truncated.gif"]
        let names = Corpus.files(in: Corpus.path("formats/broken"))
        #expect(names.count >= 10)
        for (i, name) in names.enumerated() {
            let r = try await w.call(i + 1, "image.palette", ["source": ["path": .string(Corpus.path("formats/broken/\(name)"))]])
            let code = r["error"]?["code"]?.intValue
            if recovered.contains(name) {
                #expect(r["result"] != nil || code == -32002, "\(name): \(r)")
            } else {
                #expect(code == -32002 || code == -32003, "\(name): \(r)")
                if code == -32002 { #expect(r["error"]?["data"]?["detail"]?.stringValue?.isEmpty == false, "\(name): \(r)") }
            }
        }
        #expect(try await w.call(1000, "ping")["result"] == [:])
    }

    /// The limits are protocol/README.md's table (``MessengerLimitsTable``).
    @Test(arguments: [("whatsapp", 512, 512), ("telegram", 512, 0), ("signal", 512, 512)])
    func packForAMessenger(_ target: String, _ side: Int, _ square: Int) async throws {
        let limits = MessengerLimitsTable.row(target), limit = limits.stillMaxBytes
        let dir = try Corpus.scratch("pack-\(target)")
        let w = try WorkerProcess()
        let stickers: [JSONValue] = ["coffee-alpha.webp", "coffee-alpha.heic", "girl.gif"].map { ["path": .string(Self.format($0))] }
        let r = try await w.call(1, "pack.export", ["stickers": .array(stickers), "output": ["path": .string("\(dir)/sheet.webp")],
                                                   "filesDir": .string("\(dir)/files"), "target": .string(target)])
        let result = try #require(r["result"], "\(r)")
        #expect(result["output"]?["format"] == "webp")
        var files: [String] = []
        if case .array(let a)? = result["files"] { files = a.compactMap(\.stringValue) }
        #expect(files.count == 3, "\(result)")
        for file in files {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
            #expect(bytes.count <= limit, "\(file): \(bytes.count) bytes")
            let image = try ImageCodec.decode(bytes, on: .inTurn)
            #expect(image.metadata.format == .webp)
            #expect(max(image.image.width, image.image.height) == side, "\(file): \(image.image.width)x\(image.image.height)")
            if square > 0 { #expect(image.image.width == square && image.image.height == square) }
        }
        #expect(result["target"]?["maxBytes"]?.intValue == limit)
        if target == "whatsapp" {
            let tray = try #require(result["target"]?["tray"]?.stringValue)
            let icon = [UInt8](try Data(contentsOf: URL(fileURLWithPath: tray)))
            #expect(icon.count <= limits.trayMaxBytes ?? 0)
            let decoded = try ImageCodec.decode(icon, on: .inTurn)
            #expect(decoded.metadata.format == .png && decoded.image.width == limits.traySide && decoded.image.height == limits.traySide)
            // The 16 px margin stays clear.
            let first = try ImageCodec.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: files[0]))), on: .inTurn).image
            #expect((0..<512).allSatisfy { first[$0, 8].a == 0 && first[8, $0].a == 0 }, "the margin is not transparent")
        }
    }

    @Test func aTargetNeedsAFolder() async throws {
        let w = try WorkerProcess()
        let r = try await w.call(1, "pack.export", ["stickers": [["path": .string(Self.format("girl.gif"))]],
                                                   "output": ["inline": true], "target": "signal"])
        #expect(r["error"]?["code"] == -32602, "\(r)")
        #expect(r["error"]?["data"]?["path"] == "target", "\(r)")
        let bad = try await w.call(2, "pack.export", ["stickers": [["path": .string(Self.format("girl.gif"))]],
                                                     "output": ["inline": true], "filesDir": "/tmp", "target": "icq"])
        #expect(bad["error"]?["code"] == -32602, "\(bad)")
    }
}
