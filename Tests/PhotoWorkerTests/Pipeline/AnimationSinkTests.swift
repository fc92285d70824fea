import Compute
import Foundation
import Imaging
import Testing
@testable import PhotoWorker

/// `AnimationSink`: settled frames cut out, placed and encoded in order.
@Suite("Animation sink", .timeLimit(.minutes(10)))
struct AnimationSinkTests {
    /// Frames of 320 x 192 with a 60-px square at (2x, 60) over grey, and its mask. The sink needs no texture (the
    /// motion is `ClipCutTests`'s): a flat square is enough to see it cut out, placed and encoded.
    static let (width, height, side) = (320, 192, 60)

    static func frame(_ x: Int) -> (Image, Mask) {
        var image = Image(width: width, height: height, fill: RGBA(r: 120, g: 120, b: 120, a: 255))
        var mask = Mask(width: width, height: height, repeating: 0)
        for v in 60..<(60 + side) {
            for u in (2 * x)..<min(width, 2 * x + side) {
                image[u, v] = RGBA(r: 200, g: 60, b: 90, a: 255)
                mask.values[v * width + u] = 255
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
            try sink.add([AnimatedFrame(image: image, mask: mask, duration: 1.0 / 12, edge: .plain)], on: .inTurn)
        }
        var steps: [String] = []
        let (bytes, canvas, first, fit, mask) = try sink.finish(path: "t.webm", on: .inTurn) { steps.append($0.summary) }
        let chosen = try #require(fit?.chosen)
        #expect(mask == nil && fit?.attempts.count == 1 && steps.count == 1, "\(steps)")
        #expect(chosen.frames == 6 && chosen.quality == 75 && bytes.count == chosen.bytes, "\(chosen.summary)")
        let decoded = try MotionDecoder(bytes: bytes, on: .inTurn)
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
            }, on: .inTurn)
        }
        let (_, canvas, first, _, _) = try sink.finish(path: "t.png", on: .inTurn)
        // The outline's room: its width and two pixels on each side.
        #expect(canvas.width == 122 && canvas.height == 72, "\(canvas)")
        let image = try #require(first)
        #expect(image.width == canvas.width && image[6, 6].a == 255 && image[100, 6].a == 0,
                "\(image.width) \(image[6, 6]) \(image[100, 6])")
    }
}
