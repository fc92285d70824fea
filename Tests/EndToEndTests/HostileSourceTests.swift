import Foundation
import JSONRPCTransport
import PhotoWorkerTestSupport
import Testing

import Glibc

/// Hostile image sources: damaged files, pixel bombs, special files and misbehaving servers all get
/// their documented error code, and the worker keeps serving.
@Suite(.timeLimit(TestTiming.minutes(10)))
struct HostileSourceTests {
    /// What `image.info` and `image.convert` answer for each file of corpus/broken (nil: success).
    /// Files added to the corpus later must still get a success, -32002 or -32003.
    static let brokenExpectations: [String: (info: Int?, convert: Int?)] = [
        "pillow-broken.png": (-32002, -32002),
        "pillow-broken_data_stream.png": (nil, -32002),
        "pillow-decompression_bomb.gif": (-32002, -32002),
        "pillow-truncated_image.png": (nil, -32002),
        "pillow-truncated_jpeg.jpg": (nil, -32002),
        "pngfix-x_consecutive_idat.png": (nil, -32002),
        "pngfix-x_ihdr_missing.png": (-32002, -32002),
        "pngfix-x_image-issue-1075.png": (nil, -32002),
        "pngfix-x_interlaced_chck.png": (nil, -32002),
        "pngfix-x_issue-214.png": (-32002, -32002),
        "pngfix-x_issue-230.0.png": (-32002, -32002),
        "pngfix-x_issue-230.1.png": (-32002, -32002),
        "pngfix-x_unexpected_eof.png": (-32002, -32002),
        // Damaged in ways libpng/libjpeg recover from (warnings only), or misnamed but valid.
        "pillow-broken_exif_dpi.jpg": (nil, nil),
        "pillow-png_decompression_dos.png": (nil, nil),
        "plants-1-really-png.jpg": (nil, nil),
    ]

    @Test func everyBrokenCorpusFileGetsItsDocumentedAnswer() async throws {
        let files = Corpus.corpusFiles("broken", extensions: ["png", "jpg", "gif"])
        try #require(files.count >= 20, "corpus/broken not found at \(Corpus.root.path)")
        let w = try WorkerProcess()
        var id = 0
        for file in files {
            id += 2
            w.request(id, "image.info", ["source": ["path": .string(file.path)]])
            w.request(id + 1, "image.convert", ["source": ["path": .string(file.path)], "output": ["inline": true]])
        }
        var replies: [Int: JSONValue] = [:]
        while replies.count < 2 * files.count {
            let m = try #require(try await w.next())
            if let i = m["id"]?.intValue { replies[i] = m }
        }
        id = 0
        for file in files {
            id += 2
            let name = file.lastPathComponent
            let info = try #require(replies[id]), convert = try #require(replies[id + 1])
            for reply in [info, convert] where reply.errorCode != nil {
                #expect([-32002, -32003].contains(reply.errorCode), "\(name): \(reply)")
                #expect(reply["error"]?["data"]?["source"]?.stringValue == file.path, "\(name): error names its source")
            }
            if let expected = Self.brokenExpectations[name] {
                #expect(info.errorCode == expected.info, "image.info \(name): \(info)")
                #expect(convert.errorCode == expected.convert, "image.convert \(name): \(convert)")
            }
        }
        try await w.expectServing()
    }

    /// A PNG declaring 100000 x 100000 (and a JPEG declaring 60000 x 60000): -32003 from the header,
    /// before any pixel memory is allocated.
    @Test func pixelBombsAreRefusedFromTheHeader() async throws {
        let folder = try TempFolder("bomb")
        defer { folder.remove() }
        let png = PixelBomb.png(width: 100_000, height: 100_000)
        let pngPath = folder.path + "/bomb.png"
        try Data(png).write(to: URL(fileURLWithPath: pngPath))
        let jpeg = try PixelBomb.jpeg(from: Corpus.path("photos/libjpeg-testorig.jpg"), width: 60000, height: 60000)
        let sources: [(JSONValue, Int, Int)] = [
            (["path": .string(pngPath)], 100_000, 100_000),
            (["data": .string(Data(png).base64EncodedString())], 100_000, 100_000),
            (["data": .string(Data(jpeg).base64EncodedString())], 60000, 60000),
        ]
        let w = try WorkerProcess()
        var id = 0
        for (source, width, height) in sources {
            let info = try await w.call(id + 1, "image.info", ["source": source])
            #expect(info["result"]?["width"]?.intValue == width && info["result"]?["height"]?.intValue == height, "\(info)")
            for method in ["image.convert", "image.thumbnail", "image.palette", "image.sticker"] {
                id += 1
                var params: JSONValue = ["source": source, "output": ["inline": true]]
                if method == "image.thumbnail" { params = ["source": source, "output": ["inline": true], "size": 64] }
                if method == "image.palette" { params = ["source": source] }
                let reply = try await w.call(id + 10, method, params)
                #expect(reply.errorCode == -32003, "\(method): \(reply)")
                #expect(reply["error"]?["data"]?["width"]?.intValue == width)
                #expect(reply["error"]?["data"]?["maxPixels"]?.intValue == 100_000_000)
            }
            id += 20
        }
        let stats = try await w.call(1000, "worker.stats")
        let peak = try #require(stats["result"]?["peakRSSBytes"]?.intValue)
        #expect(peak < 1 << 30, "a refused bomb must not allocate its pixels (peak \(peak >> 20) MiB)")
        try await w.expectServing()
    }

    /// Directories, FIFOs and devices are refused up front (-32001) instead of hanging or reading
    /// forever; a missing file is -32001, an empty one -32002.
    @Test func specialFilesAreRefused() async throws {
        let folder = try TempFolder("special")
        defer { folder.remove() }
        let fifo = folder.path + "/fifo.png"
        #expect(mkfifo(fifo, 0o600) == 0)
        let link = folder.path + "/zero.png"
        #expect(symlink("/dev/zero", link) == 0)
        let empty = folder.path + "/empty.png"
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        let cases: [(String, Int)] = [
            (folder.path, -32001), (fifo, -32001), ("/dev/zero", -32001), ("/dev/urandom", -32001),
            (link, -32001), ("/dev/stdin", -32001), (folder.path + "/missing.png", -32001), (empty, -32002),
        ]
        let w = try WorkerProcess()
        var id = 0
        for (path, code) in cases {
            for method in ["image.info", "image.convert"] {
                id += 1
                let params: JSONValue = method == "image.info"
                    ? ["source": ["path": .string(path)]] : ["source": ["path": .string(path)], "output": ["inline": true]]
                let reply = try await w.call(id, method, params)
                #expect(reply.errorCode == code, "\(method) \(path): \(reply)")
            }
        }
        // An output path that is a FIFO or a directory is an output error, not a hang.
        let out = try await w.call(100, "image.convert", [
            "source": ["path": .string(Corpus.path("pngsuite/basn6a08.png"))], "output": ["path": .string(folder.path)]])
        #expect(out.errorCode == -32005, "\(out)")
        try await w.expectServing()
    }

    /// URL sources that never answer, never end, trickle, lie about their length, 404 or loop:
    /// -32004 within the fetch timeout / byte cap, and a cancelled fetch is -32800.
    @Test func misbehavingServersAreFetchFailures() async throws {
        let server = try HostileHTTPServer()
        defer { server.stop() }
        let w = try WorkerProcess(["--fetch-timeout", "3", "--max-fetch-bytes", "1048576"])
        let limits = try await w.call(100, "initialize")["result"]?["limits"]
        #expect(limits?["fetchTimeoutSeconds"]?.doubleValue == 3 && limits?["maxFetchBytes"]?.intValue == 1 << 20)
        // Three of each at once: concurrent floods, redirects and timeouts used to trap inside
        // FoundationNetworking (cancel racing a redirect answer) and to stall every other request.
        let kinds = ["/silent", "/endless", "/trickle", "/huge", "/missing", "/loop"]
        let paths = kinds + kinds + kinds
        for (i, path) in paths.enumerated() {
            w.request(i + 1, "image.info", ["source": ["url": .string(server.url(path))]])
        }
        var replies: [Int: JSONValue] = [:]
        while replies.count < paths.count {
            let m = try #require(try await w.next(), "the worker's output ended; stderr: \(w.stderr)")
            if let i = m["id"]?.intValue { replies[i] = m }
        }
        for (i, path) in paths.enumerated() {
            let reply = try #require(replies[i + 1])
            #expect(reply.errorCode == -32004, "\(path): \(reply)")
            #expect(reply["error"]?["data"]?["url"]?.stringValue == server.url(path))
        }
        // The 404 is reported with its status (unless a loaded machine let the fetch time out first).
        for i in [5, 11, 17] {
            let data = replies[i]?["error"]?["data"]
            #expect(data?["status"] == 404 || data?["reason"]?.stringValue?.contains("longer than") == true, "\(String(describing: data))")
        }
        #expect(server.connections.load(ordering: .relaxed) > 0)

        // A client cancel ends a fetch that would otherwise wait for its timeout.
        let slow = try WorkerProcess(["--fetch-timeout", "600"])
        let connectedBefore = server.connections.load(ordering: .relaxed)
        slow.request(1, "image.info", ["source": ["url": .string(server.url("/silent"))]])
        #expect(await eventually { server.connections.load(ordering: .relaxed) > connectedBefore })
        slow.cancel(1)
        #expect(try await slow.response(1).response.errorCode == -32800)
        try await slow.expectServing()
        try await w.expectServing()
    }
}

/// Builders for images whose headers declare absurd sizes.
enum PixelBomb {
    /// A well-formed PNG (valid CRCs) declaring `width` x `height` RGBA with one tiny IDAT.
    static func png(width: UInt32, height: UInt32) -> [UInt8] {
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        func chunk(_ type: String, _ data: [UInt8]) {
            out += bigEndian(UInt32(data.count))
            let body = Array(type.utf8) + data
            out += body + bigEndian(crc32(body))
        }
        chunk("IHDR", bigEndian(width) + bigEndian(height) + [8, 6, 0, 0, 0])
        chunk("IDAT", [0x78, 0x9C, 0x63, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01])
        chunk("IEND", [])
        return out
    }

    /// A real JPEG with the frame header's dimensions overwritten.
    static func jpeg(from path: String, width: UInt16, height: UInt16) throws -> [UInt8] {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var i = 2
        while i + 9 < bytes.count {
            guard bytes[i] == 0xFF else { i += 1; continue }
            let marker = bytes[i + 1]
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            if (0xC0...0xC2).contains(marker) {
                bytes[i + 5] = UInt8(height >> 8); bytes[i + 6] = UInt8(height & 0xFF)
                bytes[i + 7] = UInt8(width >> 8); bytes[i + 8] = UInt8(width & 0xFF)
                return bytes
            }
            i += 2 + length
        }
        throw TimedOut(what: "a SOF marker in \(path)")
    }

    static func bigEndian(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            crc ^= UInt32(b)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
