import Foundation
import Imaging

/// `photobench faces [--dir DIR] [--max-side N] [--scale F] [--neighbors N] [--min-size F] [--verbose]`
///
/// Runs `FaceDetector.detect` over the sticker-dev photos with the sticker pipeline's settings (or the
/// ones given) and prints the CPU time per photo and, with `--verbose`, every box as
/// `NAME x y w h` so `bench/faces_opencv.py --ours FILE` can compare them with OpenCV's
/// `CascadeClassifier.detectMultiScale` on the same photos.
enum FaceBench {
    static func run(_ args: [String]) throws {
        var dir = "corpus/sticker-dev"
        var maxSide = 320, scale = 1.2, neighbors = 4, minSize = 0.1, verbose = false
        var i = 0
        while i < args.count {
            switch args[i] {
            case "--dir": i += 1; dir = args[i]
            case "--max-side": i += 1; maxSide = Int(args[i]) ?? maxSide
            case "--scale": i += 1; scale = Double(args[i]) ?? scale
            case "--neighbors": i += 1; neighbors = Int(args[i]) ?? neighbors
            case "--min-size": i += 1; minSize = Double(args[i]) ?? minSize
            case "--verbose", "-v": verbose = true
            default: throw StickerBench.BenchError("unknown argument \(args[i])")
            }
            i += 1
        }
        let pairs = try StickerBench.loadPairs(dir: dir, pnm: nil)
        guard let first = pairs.first else { throw StickerBench.BenchError("no images found") }
        _ = try FaceDetector.detect(in: first.image, maxSide: maxSide, on: .inTurn)  // warm-up
        var cpu: [Double] = [], found = 0, photos = 0
        for pair in pairs {
            let start = StickerBench.threadCPUTime()
            let faces = try FaceDetector.detect(in: pair.image, maxSide: maxSide, scaleFactor: scale,
                                                minNeighbors: neighbors, minRelativeSize: minSize, on: .inTurn)
            cpu.append((StickerBench.threadCPUTime() - start) * 1000)
            found += faces.count
            if !faces.isEmpty { photos += 1 }
            if verbose { for f in faces { print("\(pair.name) \(f.x) \(f.y) \(f.width) \(f.height)") } }
        }
        let mean = cpu.reduce(0, +) / Double(cpu.count)
        print(String(format: "faces: %d photos, %d faces on %d of them; %.1f ms CPU/photo mean, %.1f max (max side %d, scale %.2f, neighbours %d, min %.2f)",
                     pairs.count, found, photos, mean, cpu.max() ?? 0, maxSide, scale, neighbors, minSize))
    }
}
