import Foundation
import Imaging

/// `photobench decode [--iterations N] [--no-pillow]` (default 9 iterations)
///
/// Decode throughput on large JPEGs: full size and 1/8 shrink-on-load (libjpeg DCT scaling), single thread,
/// against Pillow on the same files (bench/decode_pillow.py). Inputs are 6000x4000 mosaics of corpus photos
/// generated deterministically into bench/out/ (not committed). Megapixels are counted at the file's full
/// size for both modes, so the 1/8 figure shows how much faster a thumbnail-sized decode gets.
enum DecodeBench {
    static let benchDir = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let outDir = benchDir.appendingPathComponent("out")
    static let corpus = benchDir.appendingPathComponent("../../shared/corpus/photos").standardizedFileURL

    static func run(_ args: [String]) throws {
        var iterations = 9
        if let i = args.firstIndex(of: "--iterations"), i + 1 < args.count, let n = Int(args[i + 1]) { iterations = max(1, n) }
        let runPillow = !args.contains("--no-pillow")

        let files = try makeInputs()
        print("decode: best of \(iterations) runs, one thread; MP/s counts full-size megapixels")
        var ours: [String: Double] = [:]
        for file in files {
            let bytes = [UInt8](try Data(contentsOf: file))
            let info = try ImageCodec.info(bytes)
            let megapixels = Double(info.width * info.height) / 1e6
            for (mode, options) in [("full", DecodeOptions()),
                                    ("1/8", DecodeOptions(minimumSize: (width: info.width / 16, height: info.height / 16)))] {
                var decoded: DecodedImage? = nil
                let seconds = try best(iterations) { decoded = try ImageCodec.decode(bytes, options: options) }
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
        process.arguments = ["python3", script, "--iterations", String(iterations)] + files.map(\.path)
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
        if let version = rows.first?["pillow"] as? String { print("  (Pillow \(version))") }
    }

    /// Best wall time of `body` over `n` runs, after one warm-up. The minimum, not the median: the machine is
    /// shared, and interference only ever adds time.
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

    /// 6000x4000 mosaics of corpus photos, baseline and progressive, written once into bench/out/.
    static func makeInputs() throws -> [URL] {
        try FileManager.default.createDirectory(at: outDir, withIntermediateDirectories: true)
        let baseline = outDir.appendingPathComponent("mosaic-6000x4000.jpg")
        let progressive = outDir.appendingPathComponent("mosaic-6000x4000-progressive.jpg")
        let fm = FileManager.default
        if fm.fileExists(atPath: baseline.path) && fm.fileExists(atPath: progressive.path) {
            return [baseline, progressive]
        }
        let width = 6000, height = 4000
        let tiles = try ["car-1.jpg", "animal-1.jpg", "girl-1.jpg", "rocket.jpg", "hubble_deep_field.jpg", "anime-girl-2.jpg"]
            .map { try ImageCodec.decode([UInt8](try Data(contentsOf: corpus.appendingPathComponent($0)))).image }
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
        let image = Image(width: width, height: height, pixels: pixels)
        try Data(try ImageCodec.encodeJPEG(image, quality: 90)).write(to: baseline)
        try Data(try ImageCodec.encodeJPEG(image, quality: 90, progressive: true)).write(to: progressive)
        return [baseline, progressive]
    }
}
