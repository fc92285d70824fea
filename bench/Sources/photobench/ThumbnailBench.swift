import Foundation
import Imaging
import Synchronization

/// Thumbnail hot path: 8 large JPEGs -> 256-px thumbnails in one batch on both cores
/// (decode with shrink-on-load + Lanczos resize), wall time; peers and quality in
/// bench/thumbnail_peers.py (vipsthumbnail, Pillow draft + LANCZOS; PSNR against a Pillow
/// full-decode LANCZOS reference, the same for every tool).
///
/// Usage: `photobench thumbnail [size]` (default 256). Inputs are generated once, deterministically,
/// into bench/out/thumbnail/input (gitignored): each is a 3x3 mosaic of corpus photos scaled to fill
/// 6000x4000, JPEG quality 90.
enum ThumbnailBench {
    static let count = 8
    static let bigWidth = 6000, bigHeight = 4000

    static func run(_ args: [String]) throws {
        let size = args.first.flatMap(Int.init) ?? 256
        let out = BenchPaths.benchDirectory.appendingPathComponent("out/thumbnail")
        let input = out.appendingPathComponent("input")
        let thumbs = out.appendingPathComponent("swift")
        let fm = FileManager.default
        try fm.createDirectory(at: input, withIntermediateDirectories: true)
        try fm.createDirectory(at: thumbs, withIntermediateDirectories: true)
        let files = (0..<count).map { input.appendingPathComponent(String(format: "big-%02d.jpg", $0)) }
        if !files.allSatisfy({ fm.fileExists(atPath: $0.path) }) { try generateInputs(files) }

        let inputs = try files.map { [UInt8](try Data(contentsOf: $0)) }
        // Warm-up round writes the thumbnails for the quality comparison; then best of 3.
        let results = try runBatch(inputs, size: size)
        for (file, image) in zip(files, results) {
            let png = try ImageCodec.encodePNG(image, compressionLevel: 1, on: .inTurn)
            try Data(png).write(to: thumbs.appendingPathComponent(file.deletingPathExtension().lastPathComponent + ".png"))
        }
        var best = Double.infinity
        for _ in 0..<3 {
            let start = ContinuousClock.now
            _ = try runBatch(inputs, size: size)
            best = min(best, (ContinuousClock.now - start).milliseconds / 1000)
        }

        // Resize alone, on what a 1/8 shrink-on-load decode delivers (the part this library owns).
        let decoded = try inputs.map { try decode($0, size: size) }
        var resizeBest = Double.infinity
        for _ in 0..<5 {
            let start = ContinuousClock.now
            for d in decoded { _ = try Resampler.thumbnail(d, width: size, height: size, on: .inTurn) }
            resizeBest = min(resizeBest, (ContinuousClock.now - start).milliseconds / Double(decoded.count))
        }
        let d0 = decoded[0]
        print(String(format: "swift: %d x %dx%d JPEG -> %d px, 2 workers: %.3f s wall (best of 3); resize alone %.2f ms/image (%dx%d -> %d px, one core)",
                     count, bigWidth, bigHeight, size, best, resizeBest, d0.width, d0.height, size))
        fflush(nil) // all C streams: keeps our lines before the python output
        try BenchPaths.python([BenchPaths.benchDirectory.appendingPathComponent("thumbnail_peers.py").path,
                               out.path, String(size), String(best)])
    }

    /// Decode with shrink-on-load (the decoded image stays at least 2x the target).
    static func decode(_ bytes: [UInt8], size: Int) throws -> Image {
        let info = try ImageCodec.info(bytes)
        let t = ThumbnailGeometry.target(sourceWidth: info.width, sourceHeight: info.height,
                                         width: size, height: size, fit: .contain)
        return try ImageCodec.decode(bytes, options: DecodeOptions(minimumSize: (t.width, t.height)), on: .inTurn).image
    }

    /// All thumbnails, two at a time (one per core), in input order.
    static func runBatch(_ inputs: [[UInt8]], size: Int) throws -> [Image] {
        let results = ResultSlots(count: inputs.count)
        let next = Counter()
        let group = DispatchGroup()
        for _ in 0..<2 {
            DispatchQueue.global().async(group: group) {
                while let i = next.take(below: inputs.count) {
                    results.set(i, Result { try Resampler.thumbnail(try decode(inputs[i], size: size), width: size, height: size, on: .inTurn) })
                }
            }
        }
        group.wait()
        return try results.values().map { try $0.get() }
    }

    /// Deterministic 6000x4000 mosaics of the corpus photos.
    static func generateInputs(_ files: [URL]) throws {
        let photos = BenchPaths.benchDirectory.appendingPathComponent("../corpus/photos")
        let names = try FileManager.default.contentsOfDirectory(atPath: photos.path).sorted()
            .filter { $0.hasSuffix(".jpg") && !$0.hasPrefix("orientation-") && !$0.hasPrefix("pillow-") }
        var sources: [Image] = []
        for n in names {
            let bytes = [UInt8](try Data(contentsOf: photos.appendingPathComponent(n)))
            if let d = try? ImageCodec.decode(bytes, on: .inTurn), d.image.width >= 200, d.image.height >= 200 { sources.append(d.image) }
        }
        guard !sources.isEmpty else { throw CocoaError(.fileNoSuchFile) }
        let cellW = bigWidth / 3, cellH = bigHeight / 3
        for (index, file) in files.enumerated() {
            var canvas = Image(width: bigWidth, height: bigHeight, fill: RGBA(r: 0, g: 0, b: 0))
            for cell in 0..<9 {
                let src = sources[(index * 5 + cell * 7) % sources.count]
                let tile = try Resampler.thumbnail(src, width: cellW, height: cellH, fit: .cover, on: .inTurn)
                canvas = Compositing.over(tile, on: canvas, at: (cell % 3) * cellW, y: (cell / 3) * cellH)
            }
            try Data(try ImageCodec.encodeJPEG(canvas, quality: 90)).write(to: file)
            print("generated \(file.lastPathComponent)")
        }
    }
}

/// Result slots shared by the two bench workers.
final class ResultSlots: Sendable {
    private let slots: Mutex<[Result<Image, any Error>?]>
    init(count: Int) { slots = Mutex(Array(repeating: nil, count: count)) }
    func set(_ i: Int, _ r: Result<Image, any Error>) { slots.withLock { $0[i] = r } }
    func values() -> [Result<Image, any Error>] { slots.withLock { $0.map { $0! } } }
}

/// Work counter shared by the two bench workers.
final class Counter: Sendable {
    private let value = Mutex(0)
    func take(below limit: Int) -> Int? {
        value.withLock { v in
            guard v < limit else { return nil }
            v += 1
            return v - 1
        }
    }
}
