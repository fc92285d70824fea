import Foundation
import Imaging

/// Palette quality and speed against colorthief and scikit-learn k-means (bench/palette_peers.py).
///
/// 1. `palette_peers.py prepare` decodes the corpus .jpg photos (Pillow) into bench/out/palette/src;
/// 2. here: each is downscaled to a 128-px copy (Lanczos, longest side 128) saved to
///    bench/out/palette/128, and `PaletteExtractor.palette(of:count:)` is timed on those copies
///    (one core); palettes go to bench/out/palette/swift.json;
/// 3. `palette_peers.py score` runs the peers on the same 128-px copies and scores everything
///    with one metric implementation.
///
/// Usage: `photobench palette [count]` (default 5).
enum PaletteBench {
    static func run(_ args: [String]) throws {
        let count = args.first.flatMap(Int.init) ?? 5
        let bench = BenchPaths.benchDirectory
        let out = bench.appendingPathComponent("out/palette")
        let fm = FileManager.default
        let srcDir = out.appendingPathComponent("src")
        if !fm.fileExists(atPath: srcDir.path) {
            try BenchPaths.python([bench.appendingPathComponent("palette_peers.py").path, "prepare", out.path])
        }
        let small = out.appendingPathComponent("128")
        try fm.createDirectory(at: small, withIntermediateDirectories: true)

        var names: [String] = []
        var full: [Image] = []
        var thumbs: [Image] = []
        for file in try fm.contentsOfDirectory(atPath: srcDir.path).sorted() where file.hasSuffix(".rgba") {
            let image = try RawImage.read(srcDir.appendingPathComponent(file))
            let t = ThumbnailGeometry.target(sourceWidth: image.width, sourceHeight: image.height,
                                             width: 128, height: 128, fit: .contain)
            let thumb = try Resampler.resize(image, width: t.width, height: t.height, on: .inTurn)
            try RawImage.write(thumb, to: small.appendingPathComponent(file))
            names.append(String(file.dropLast(5)))
            full.append(image)
            thumbs.append(thumb)
        }

        // Warm-up, then the best of 5 rounds (the machine is shared).
        var palettes: [[PaletteColor]] = []
        for t in thumbs { palettes.append(try PaletteExtractor.palette(of: t, count: count, on: .inTurn)) }
        var best = Double.infinity
        for _ in 0..<5 {
            let start = ContinuousClock.now
            for t in thumbs { _ = try PaletteExtractor.palette(of: t, count: count, on: .inTurn) }
            best = min(best, (ContinuousClock.now - start).milliseconds / Double(thumbs.count))
        }
        var bestFull = Double.infinity
        for _ in 0..<3 {
            let start = ContinuousClock.now
            for image in full { _ = try PaletteExtractor.palette(of: image, count: count, on: .inTurn) }
            bestFull = min(bestFull, (ContinuousClock.now - start).milliseconds / Double(full.count))
        }
        print(String(format: "swift palette: %.2f ms/image on the 128-px copies, %.2f ms/image from the full decode (incl. downscale), %d images",
                     best, bestFull, thumbs.count))

        fflush(nil) // all C streams: keeps our lines before the python output
        var json: [String: Any] = ["msPerImage": best, "msPerImageFromFullDecode": bestFull]
        var pals: [String: [String]] = [:]
        for (n, p) in zip(names, palettes) { pals[n] = p.map(\.hex) }
        json["palettes"] = pals
        let data = try JSONSerialization.data(withJSONObject: json, options: [.prettyPrinted, .sortedKeys])
        try data.write(to: out.appendingPathComponent("swift.json"))
        try BenchPaths.python([bench.appendingPathComponent("palette_peers.py").path, "score", out.path, String(count)])
    }
}

/// Raw RGBA exchange format shared with the python scripts: UInt32 LE width, UInt32 LE height, RGBA8.
enum RawImage {
    static func read(_ url: URL) throws -> Image {
        let data = try Data(contentsOf: url)
        let bytes = [UInt8](data)
        guard bytes.count >= 8 else { throw CocoaError(.fileReadCorruptFile) }
        let w = Int(UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24)
        let h = Int(UInt32(bytes[4]) | UInt32(bytes[5]) << 8 | UInt32(bytes[6]) << 16 | UInt32(bytes[7]) << 24)
        guard w > 0, h > 0, bytes.count == 8 + w * h * 4 else { throw CocoaError(.fileReadCorruptFile) }
        return Image(width: w, height: h, pixels: Array(bytes[8...]))
    }

    static func write(_ image: Image, to url: URL) throws {
        var bytes = [UInt8]()
        bytes.reserveCapacity(8 + image.pixels.count)
        for v in [UInt32(image.width), UInt32(image.height)] {
            bytes += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)]
        }
        bytes += image.pixels
        try Data(bytes).write(to: url)
    }
}

/// Locations and helpers shared by the suites of this owner.
enum BenchPaths {
    /// bench/ (this file is bench/Sources/photobench/PaletteBench.swift).
    static let benchDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func python(_ arguments: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3"] + arguments
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw CocoaError(.executableLoad) }
    }
}

extension Duration {
    var milliseconds: Double {
        let c = components
        return Double(c.seconds) * 1000 + Double(c.attoseconds) / 1e15
    }
}
