import Compute
import Foundation
@testable import Imaging
import Testing

/// A test animation: a square with a gradient moving right over a transparent canvas, its colour shifting per
/// frame; pixels inside the square opaque, a soft half-transparent border band around it, the rest transparent.
func movingSquareFrame(_ index: Int, width: Int = 64, height: Int = 48, side: Int = 20) -> Image {
    var image = Image(width: width, height: height)
    let x0 = 4 + index * 3, y0 = (height - side) / 2
    for y in max(0, y0 - 2)..<min(height, y0 + side + 2) {
        for x in max(0, x0 - 2)..<min(width, x0 + side + 2) {
            let inside = x >= x0 && x < x0 + side && y >= y0 && y < y0 + side
            image[x, y] = RGBA(r: UInt8((x - x0 + 2) * 10 % 256), g: UInt8((index * 40) % 256),
                               b: UInt8((y - y0 + 2) * 9 % 256), a: inside ? 255 : 128)
        }
    }
    return image
}

/// Encodes `count` moving-square frames with the given per-frame durations (cycled).
func encodeMovingSquare(_ format: ImageFormat, count: Int, durations: [Double], quality: Int = 90,
                        width: Int = 64, height: Int = 48) throws -> [UInt8] {
    let encoder = try AnimationSettings(format: format, width: width, height: height, quality: quality).makeEncoder()
    for i in 0..<count {
        try encoder.add(movingSquareFrame(i, width: width, height: height), duration: durations[i % durations.count], on: InTurnLoop())
    }
    #expect(encoder.frameCount == count)
    return try encoder.finish()
}

/// Mean absolute difference of one channel (0 r ... 3 a) over the pixels where `mask` holds in `a`.
func meanDifference(_ a: Image, _ b: Image, channel: Int, where mask: (RGBA) -> Bool = { _ in true }) -> Double {
    var sum = 0, n = 0
    for y in 0..<a.height {
        for x in 0..<a.width where mask(a[x, y]) {
            let i = (y * a.width + x) * 4 + channel
            sum += abs(Int(a.pixels[i]) - Int(b.pixels[i]))
            n += 1
        }
    }
    return n == 0 ? 0 : Double(sum) / Double(n)
}

/// A sticker-like clip: noisy photo-like texture (value noise plus gradients) inside a soft-edged ellipse that
/// moves, on a transparent canvas; the texture pans with the ellipse so every frame differs.
enum StickerLikeClip {
    static func frame(_ i: Int, side: Int = 96) -> Image {
        var image = Image(width: side, height: side)
        var rng = SplitMix64(seed: 7)
        let noise = (0..<(side * side)).map { _ in Int(rng.next() % 24) }
        let cx = Double(side) / 2 + Double(i * 2), cy = Double(side) / 2
        let rx = Double(side) * 0.3, ry = Double(side) * 0.4
        for y in 0..<side {
            for x in 0..<side {
                let u = (Double(x) - cx) / rx, v = (Double(y) - cy) / ry
                let alpha = max(0, min(1, (1 - (u * u + v * v).squareRoot()) * min(rx, ry) / 3))
                guard alpha > 0 else { continue }
                let n = noise[(y * side + (x + side - i * 2) % side)]
                image[x, y] = RGBA(r: UInt8(min(255, 60 + x + n)), g: UInt8(min(255, 40 + y + n)),
                                   b: UInt8(min(255, 120 + n * 2)), a: UInt8((alpha * 255).rounded()))
            }
        }
        return image
    }
}
