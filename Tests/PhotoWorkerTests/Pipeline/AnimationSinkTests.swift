import Foundation
import Imaging
import Testing
@testable import PhotoWorker

/// `AnimationSink`: settled frames cut out, placed and encoded in order.
@Suite("Animation sink", .timeLimit(.minutes(10)))
struct AnimationSinkTests {
    /// Frames of 320 x 192 with a 60-px square: the test's positions are in half pixels (x is drawn at 2x), so a
    /// subject the size of a phone clip's at the cut's 512 px moves as in the positions given.
    static let (width, height, side) = (320, 192, 60)

    /// Blotches 8 px apart (random values, blended between), the square's texture at a coarse scale.
    static let blotches: [Double] = {
        var random = SplitMix64(seed: 5)
        return (0..<(9 * 9)).map { _ in Double(random.next() % 201) - 100 }
    }()

    /// A textured square at (2x, 60) over flat grey, and its true mask; what lies past the right edge is cut off. The
    /// texture has structure at every scale (blotches and grain) and repeats nowhere, as a subject's, for the flow
    /// to follow.
    static func frame(_ x: Int) -> (Image, Mask) {
        var image = Image(width: width, height: height, fill: RGBA(r: 120, g: 120, b: 120, a: 255))
        var random = SplitMix64(seed: 11)
        var mask = Mask(width: width, height: height, repeating: 0)
        for v in 0..<side {
            for u in 0..<side {
                let (gx, gy) = (Double(u) / 8, Double(v) / 8)
                let (i, j) = (Int(gx), Int(gy))
                let (fx, fy) = (gx - Double(i), gy - Double(j))
                let b = { (a: Int, c: Int) in Self.blotches[c * 9 + a] }
                let blotch = (b(i, j) * (1 - fx) + b(i + 1, j) * fx) * (1 - fy) + (b(i, j + 1) * (1 - fx) + b(i + 1, j + 1) * fx) * fy
                let value = UInt8(clamping: 128 + Int(blotch) + Int(random.next() % 41) - 20)
                guard 2 * x + u < width else { continue }
                image[2 * x + u, 60 + v] = RGBA(r: value, g: 255 - value, b: value / 2, a: 255)
                mask.values[(60 + v) * width + 2 * x + u] = 255
            }
        }
        return (image, mask)
    }

    @Test("The sink encodes batches in order and its first fitting attempt is the file when it fits")
    func sinkFirstAttempt() throws {
        let placement = FramePlacement(outline: nil, target: .telegram, cropsToSubject: false, format: .webm)
        let sink = try AnimationSink(placement: placement, frameWidth: Self.width, frameHeight: Self.height,
                                     output: AnimationSettings(format: .webm, width: 2, height: 2), maskSettings: nil)
        for k in 0..<6 {
            let (image, mask) = Self.frame(10 + 5 * k)
            try sink.add([AnimatedFrame(image: image, mask: mask, duration: 1.0 / 12, edge: .plain)])
        }
        var steps: [String] = []
        let (bytes, canvas, first, fit, mask) = try sink.finish(path: "t.webm") { steps.append($0.summary) }
        let chosen = try #require(fit?.chosen)
        #expect(mask == nil && fit?.attempts.count == 1 && steps.count == 1, "\(steps)")
        #expect(chosen.frames == 6 && chosen.quality == 75 && bytes.count == chosen.bytes, "\(chosen.summary)")
        let decoded = try MotionDecoder(bytes: bytes)
        #expect(decoded.info.width == canvas.width && decoded.info.height == canvas.height && canvas.width == 512,
                "\(decoded.info)")
        #expect(first?.width == canvas.width, "\(String(describing: first?.width))")
    }

    @Test("Cropped to the subject, every frame shows the box of the subject over the whole clip")
    func sinkCropsToTheSubjectOverTheClip() throws {
        // The square (60 px) moves 10 px a frame from x = 20 for six frames: its box over the clip is 110 x 60.
        let placement = FramePlacement(outline: OutlineSpec(width: 4), target: nil, cropsToSubject: true, format: .apng)
        let sink = try AnimationSink(placement: placement, frameWidth: Self.width, frameHeight: Self.height,
                                     output: AnimationSettings(format: .apng, width: 2, height: 2, quality: 100),
                                     maskSettings: nil)
        // Two batches, as key frames settle them.
        for batch in [0..<4, 4..<6] {
            try sink.add(batch.map { k in
                let (image, mask) = Self.frame(10 + 5 * k)
                return AnimatedFrame(image: image, mask: mask, duration: 0.1, edge: .decontaminated)
            })
        }
        let (_, canvas, first, _, _) = try sink.finish(path: "t.png")
        // The outline's room: its width and two pixels on each side.
        #expect(canvas.width == 122 && canvas.height == 72, "\(canvas)")
        let image = try #require(first)
        #expect(image.width == canvas.width && image[6, 6].a == 255 && image[100, 6].a == 0,
                "\(image.width) \(image[6, 6]) \(image[100, 6])")
    }
}
