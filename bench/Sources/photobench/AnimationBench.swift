import Compute
import Foundation
import Imaging
import PhotoWorker

/// Animated sticker encoding: each encoder's time per frame and bytes on a sticker-like clip, and each messenger's
/// fitting (attempts, total time, final size).
///
/// The clip: a corpus photo panned under an elliptical subject mask with a soft edge that moves with it (what a
/// cut-out subject in a hand-held clip looks like), 512x512, 30 fps, `seconds` long (default 3).
///
/// Usage: `photobench animation [seconds] [photo]` (photo relative to corpus/photos, default animal-1.jpg).
enum AnimationBench {
    static func run(_ args: [String]) throws {
        let seconds = args.first.flatMap(Double.init) ?? 3
        let name = args.count > 1 ? args[1] : "animal-1.jpg"
        let corpus = BenchPaths.benchDirectory.deletingLastPathComponent().appendingPathComponent("corpus/photos")
        let photo = try ImageCodec.decode([UInt8](try Data(contentsOf: corpus.appendingPathComponent(name))), on: .inTurn).image
        let frames = Int(seconds * 30)
        let clip = try StickerClip(photo: photo, side: 512)
        print("clip: \(name), \(frames) frames of 512x512 at 30 fps (\(seconds) s)")

        print("format  quality  ms/frame  bytes     bytes/frame")
        for format in ImageFormat.allCases {
            let quality = AnimationFitting.defaultQualities(format)[0]
            let encoder = try AnimationSettings(format: format, width: 512, height: 512, quality: quality).makeEncoder()
            var encodeTime = Duration.zero
            for i in 0..<frames {
                let frame = clip.frame(i)
                let start = ContinuousClock.now
                try encoder.add(frame, duration: 1.0 / 30, on: InTurnLoop())
                encodeTime += ContinuousClock.now - start
            }
            let start = ContinuousClock.now
            let bytes = try encoder.finish()
            encodeTime += ContinuousClock.now - start
            let ms = Double(encodeTime.components.seconds) * 1000 + Double(encodeTime.components.attoseconds) / 1e15
            print(String(format: "%-7@ %7d  %8.1f  %-9d %d", format.rawValue, quality, ms / Double(frames), bytes.count,
                         bytes.count / frames))
        }

        for target in MessengerTarget.allCases {
            var spool = FrameSpool(width: 512, height: 512)
            let spoolStart = ContinuousClock.now
            for i in 0..<frames { try spool.append(try target.layoutFrame(clip.frame(i), on: .inTurn), duration: 1.0 / 30, on: .inTurn) }
            let spoolTime = ContinuousClock.now - spoolStart
            let start = ContinuousClock.now
            do {
                let result = try target.fitAnimation(spool, fps: nil, path: "bench", on: .inTurn)
                print("\(target.rawValue) (\(target.animatedFormat.rawValue), limit \(target.animatedMaxBytes)): "
                      + "\(result.bytes.count) bytes in \(ContinuousClock.now - start); spool \(spool.storedBytes) bytes "
                      + "in \(spoolTime)")
                for attempt in result.attempts { print("  \(attempt.summary)\(attempt.fits ? " fits" : "")") }
            } catch {
                print("\(target.rawValue): \(error) after \(ContinuousClock.now - start)")
            }
        }
    }
}

/// A photo panned under a moving elliptical subject mask with a soft edge.
struct StickerClip {
    let source: Image
    let side: Int

    init(photo: Image, side: Int) throws {
        let scale = Double(side + 120) / Double(min(photo.width, photo.height))
        source = try Resampler.resize(photo, width: Int(Double(photo.width) * scale), height: Int(Double(photo.height) * scale), on: .inTurn)
        self.side = side
    }

    func frame(_ i: Int) -> Image {
        var image = Image(width: side, height: side)
        let dx = min(i, 119), dy = min(i / 2, 119)
        let cx = Double(side) / 2 + 40 * sin(Double(i) / 15), cy = Double(side) / 2
        let rx = Double(side) * 0.32, ry = Double(side) * 0.42
        image.pixels.withUnsafeMutableBufferPointer { out in
            source.pixels.withUnsafeBufferPointer { src in
                for y in 0..<side {
                    for x in 0..<side {
                        let u = (Double(x) - cx) / rx, v = (Double(y) - cy) / ry
                        let edge = (1 - (u * u + v * v).squareRoot()) * min(rx, ry) / 6  // 6 px soft edge
                        let alpha = max(0, min(1, edge))
                        guard alpha > 0 else { continue }
                        let s = ((y + dy) * source.width + x + dx) * 4, d = (y * side + x) * 4
                        out[d] = src[s]; out[d + 1] = src[s + 1]; out[d + 2] = src[s + 2]
                        out[d + 3] = UInt8((alpha * 255).rounded())
                    }
                }
            }
        }
        return image
    }
}
