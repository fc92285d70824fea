import Foundation
@testable import Imaging

/// corpus/motion (scripts/gen-motion-corpus.sh) and what the tests read from it.
enum MotionCorpus {
    static func bytes(_ name: String) throws -> [UInt8] { try CodecCorpus.bytes("motion/" + name) }

    /// Every frame of a file, with the default limits unless given.
    static func frames(_ name: String, limits: MotionLimits = MotionLimits(), start: Double = 0,
                       duration: Double? = nil) throws -> (MotionInfo, [MotionFrame]) {
        let decoder = try MotionDecoder(bytes: bytes(name), limits: limits, start: start, duration: duration, on: .inTurn)
        var frames: [MotionFrame] = []
        while let frame = try decoder.next(on: .inTurn) { frames.append(frame) }
        return (decoder.info, frames)
    }

    /// The n-th cutout frame as made before any encoder, and its true mask (1 byte per pixel, 0 or 255).
    static func cutoutFrame(_ n: Int) throws -> Image {
        try ImageCodec.decode(CodecCorpus.bytes(String(format: "motion/cutout-frames/%02d.png", n)), on: .inTurn).image
    }

    static func cutoutMask(_ n: Int) throws -> [UInt8] {
        let image = try ImageCodec.decode(CodecCorpus.bytes(String(format: "motion/cutout-masks/%02d.png", n)), on: .inTurn).image
        return stride(from: 0, to: image.pixels.count, by: 4).map { image.pixels[$0] }
    }

    /// Mean absolute difference per RGB sample; infinity for images of different sizes (a failed expectation,
    /// not a crash).
    static func meanError(_ a: Image, _ b: Image) -> Double {
        guard a.width == b.width && a.height == b.height else { return .infinity }
        var total = 0
        for i in stride(from: 0, to: a.pixels.count, by: 4) {
            for c in 0..<3 { total += abs(Int(a.pixels[i + c]) - Int(b.pixels[i + c])) }
        }
        return Double(total) / Double(a.pixelCount * 3)
    }

    /// Intersection over union of alpha >= 128 against a 0/255 mask.
    static func alphaIoU(_ image: Image, _ mask: [UInt8]) -> Double {
        var both = 0, either = 0
        for p in 0..<image.pixelCount {
            let a = image.pixels[p * 4 + 3] >= 128, m = mask[p] >= 128
            if a && m { both += 1 }
            if a || m { either += 1 }
        }
        return either == 0 ? 1 : Double(both) / Double(either)
    }
}
