import Compute
import Foundation
import Imaging
import Synchronization

/// `photobench decode [--iterations N] [--no-pillow] [--files F...]` (default 9 iterations)
///
/// `--files` decodes the given files instead (any format: bench/formats_bench.py passes WebP, GIF, HEIC, AVIF,
/// PNG and JPEG files); a file with a colour profile is also decoded as stored (mode "raw": no conversion to
/// sRGB), so the conversion's share of the decode shows, and both again as the worker runs them: as a piece on a
/// 2-thread compute pool (modes "pool" and "pool-raw"), where a JPEG's conversion overlaps its decode on the idle
/// thread (`ComputePool.pipelined`).
/// Decode throughput on large JPEGs: full size and 1/8 shrink-on-load (libjpeg DCT scaling), single thread,
/// against Pillow on the same files (bench/decode_pillow.py); plus one large PNG. Inputs are mosaics of
/// corpus photos generated deterministically into bench/out/ (not committed). Megapixels are counted at the file's full
/// size for both modes, so the 1/8 figure shows how much faster a thumbnail-sized decode gets.
enum DecodeBench {
    static let benchDir = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let outDir = benchDir.appendingPathComponent("out")
    static let corpus = benchDir.appendingPathComponent("../corpus/photos").standardizedFileURL

    static func run(_ args: [String]) throws {
        var iterations = 9
        if let i = args.firstIndex(of: "--iterations"), i + 1 < args.count, let n = Int(args[i + 1]) { iterations = max(1, n) }
        let runPillow = !args.contains("--no-pillow")

        var files: [URL]
        if let i = args.firstIndex(of: "--files") {
            files = args[(i + 1)...].map { URL(fileURLWithPath: $0) }
        } else {
            files = try makeInputs()   // JPEGs, then one PNG
        }
        print("decode: best of \(iterations) runs, one thread; MP/s counts full-size megapixels")
        var ours: [String: Double] = [:]
        for file in files {
            let bytes = [UInt8](try Data(contentsOf: file))
            let info = try ImageCodec.info(bytes)
            let megapixels = Double(info.width * info.height) / 1e6
            var modes = [("full", DecodeOptions())]
            if info.format == .jpeg && !args.contains("--files") {
                modes.append(("1/8", DecodeOptions(minimumSize: (width: info.width / 16, height: info.height / 16))))
            }
            if info.color != nil {
                modes.append(("raw", DecodeOptions(convertToSRGB: false)))
                modes.append(("pool", DecodeOptions()))
                modes.append(("pool-raw", DecodeOptions(convertToSRGB: false)))
            }
            for (mode, options) in modes {
                var decoded: DecodedImage? = nil
                let seconds = try best(iterations) {
                    decoded = mode.hasPrefix("pool") ? try onPool { loop in try ImageCodec.decode(bytes, options: options, on: loop) }
                                                     : try ImageCodec.decode(bytes, options: options, on: .inTurn)
                }
                let rate = megapixels / seconds
                ours["\(file.lastPathComponent) \(mode)"] = rate
                let size = decoded.map { "\($0.image.width)x\($0.image.height)" } ?? "?"
                print(String(format: "  ours    %-36@ %-5@ %9@  %7.1f ms  %7.1f MP/s",
                             file.lastPathComponent as NSString, mode as NSString, size as NSString, seconds * 1000, rate))
            }
        }
        guard runPillow else { return }
        let script = benchDir.appendingPathComponent("decode_pillow.py").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, "--iterations", String(iterations)]
            + (args.contains("--files") ? ["--full-only"] : []) + files.map(\.path)
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
              let rows = try JSONSerialization.jsonObject(with: output) as? [[String: Any]] else {
            print("  pillow: decode_pillow.py failed (is Pillow installed? pip install pillow)")
            return
        }
        for row in rows {
            guard let name = row["file"] as? String, let mode = row["mode"] as? String,
                  let rate = row["mp_per_s"] as? Double, let ms = row["ms"] as? Double else { continue }
            let key = "\(name) \(mode)"
            let ratio = ours[key].map { String(format: "ours/pillow %.2fx", $0 / rate) } ?? ""
            print(String(format: "  pillow  %-36@ %-5@ %9@  %7.1f ms  %7.1f MP/s  %@",
                         name as NSString, mode as NSString, (row["size"] as? String ?? "?") as NSString, ms, rate,
                         ratio as NSString))
        }
        if let version = rows.first?["pillow"] as? String {
            print("  (Pillow \(version); Pillow's plain open/load does not apply EXIF orientation, so the exif6 rows")
            print("   compare our decode + 90° rotation with Pillow's decode alone)")
        }
    }

    /// Best wall time of `body` over `n` runs, after one warm-up. The minimum, not the median: the machine is
    /// shared, and interference only ever adds time.
    /// Two compute threads, as the worker has on this machine.
    static let pool: ComputePool = {
        let pool = ComputePool(threads: 2)
        pool.start()
        return pool
    }()

    /// Runs `body` as a piece on ``pool`` and waits for it (from this plain thread).
    static func onPool<T: Sendable>(_ body: @escaping @Sendable (ComputePiece) throws -> T) throws -> T {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Result<T, any Error>?>(nil)
        Task {
            let r: Result<T, any Error>
            do { r = .success(try await pool.run(lease: .unleased, body)) } catch { r = .failure(error) }
            result.withLock { $0 = r }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0! }.get()
    }

    static func best(_ n: Int, _ body: () throws -> Void) throws -> Double {
        try body()
        var times: [Double] = []
        for _ in 0..<n {
            let start = DispatchTime.now().uptimeNanoseconds
            try body()
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        return times.min()!
    }

    /// 6000x4000 mosaics of corpus photos (JPEG baseline and progressive at q90) and a 3000x2000 RGB PNG,
    /// written once into bench/out/.
    static func makeInputs() throws -> [URL] {
        try FileManager.default.createDirectory(at: outDir, withIntermediateDirectories: true)
        let baseline = outDir.appendingPathComponent("mosaic-6000x4000.jpg")
        let progressive = outDir.appendingPathComponent("mosaic-6000x4000-progressive.jpg")
        let rotated = outDir.appendingPathComponent("mosaic-6000x4000-exif6.jpg")
        let png = outDir.appendingPathComponent("mosaic-3000x2000.png")
        let all = [baseline, rotated, progressive, png]
        if all.allSatisfy({ FileManager.default.fileExists(atPath: $0.path) }) { return all }
        let big = try mosaic(width: 6000, height: 4000)
        let jpeg = try ImageCodec.encodeJPEG(big, quality: 90)
        try Data(jpeg).write(to: baseline)
        // The same file with EXIF orientation 6 inserted after SOI: measures decode + 90° rotation.
        try Data(Array(jpeg[0..<2]) + exifSegment(orientation: 6) + Array(jpeg[2...])).write(to: rotated)
        try Data(try ImageCodec.encodeJPEG(big, quality: 90, progressive: true)).write(to: progressive)
        try Data(try ImageCodec.encodePNG(try mosaic(width: 3000, height: 2000), on: .inTurn)).write(to: png)
        return all
    }

    /// An APP1 Exif segment holding only IFD0 with the orientation tag (big-endian TIFF).
    static func exifSegment(orientation: UInt8) -> [UInt8] {
        let tiff: [UInt8] = [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, orientation, 0, 0,
                             0, 0, 0, 0]
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let length = payload.count + 2
        return [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    /// Rows of corpus photos at their own size, cycling through them, cropped at the edges.
    static func mosaic(width: Int, height: Int) throws -> Image {
        let tiles = try ["car-1.jpg", "animal-1.jpg", "girl-1.jpg", "rocket.jpg", "hubble_deep_field.jpg", "anime-girl-2.jpg"]
            .map { try ImageCodec.decode([UInt8](try Data(contentsOf: corpus.appendingPathComponent($0))), on: .inTurn).image }
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        pixels.withUnsafeMutableBufferPointer { out in
            // Rows of tiles, each row using one photo height, cycling through the photos.
            var y = 0, t = 0
            while y < height {
                var x = 0
                let rowHeight = tiles[t % tiles.count].height
                while x < width {
                    let tile = tiles[t % tiles.count]
                    t += 1
                    tile.pixels.withUnsafeBufferPointer { src in
                        for ty in 0..<min(rowHeight, tile.height, height - y) {
                            let n = min(tile.width, width - x) * 4
                            let dst = ((y + ty) * width + x) * 4
                            let from = ty * tile.width * 4
                            for i in 0..<n { out[dst + i] = src[from + i] }
                        }
                    }
                    x += tile.width
                }
                y += rowHeight
            }
        }
        return Image(width: width, height: height, pixels: pixels)
    }
}
