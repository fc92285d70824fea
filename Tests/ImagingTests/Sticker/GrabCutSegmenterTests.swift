import Foundation
import Testing
@testable import Imaging

@Suite("GrabCut segmenter", .timeLimit(.minutes(10)))
struct GrabCutSegmenterTests {
    static let width = 72, height = 54

    /// A reddish disc and a reddish bar over a bluish-green background, all with strong seeded noise:
    /// the minimum cut has no ties, and the smoothness term has work to do.
    static func scene(noise: Int = 90) throws -> LabImage {
        var px = [UInt8](repeating: 255, count: width * height * 4)
        var rng = SplitMix64(seed: 7)
        for y in 0..<height {
            for x in 0..<width {
                let dx = x - 30, dy = y - 26
                let subject = dx * dx + dy * dy <= 14 * 14 || (x >= 52 && x < 60 && y >= 10 && y < 44)
                let base: (Int, Int, Int) = subject ? (190, 50, 50) : (50, 120, 140)
                let i = 4 * (y * width + x)
                for (c, v) in [base.0, base.1, base.2].enumerated() {
                    px[i + c] = UInt8(clamping: v + Int(rng.next() % UInt64(noise)) - noise / 2)
                }
            }
        }
        return try LabImage(Image(width: width, height: height, pixels: px), maxSide: width, on: .inTurn)
    }

    /// A soft prior centred on (cx, cy), and its 0.5 split as the starting labelling.
    static func prior(cx: Float, cy: Float, radius: Float) -> (prior: [Float], initial: [UInt8]) {
        var prior = [Float](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let d = ((Float(x) - cx) * (Float(x) - cx) + (Float(y) - cy) * (Float(y) - cy)).squareRoot()
                prior[y * width + x] = 1 / (1 + expf((d - radius) / 3))
            }
        }
        return (prior, prior.map { $0 > 0.5 ? 1 : 0 })
    }

    /// Seeded on either object, the cut keeps that object and not the other one (the smoothness and
    /// colour terms decide the edge; the prior picks the object).
    @Test func eachPriorCutsItsOwnObject() throws {
        let image = try Self.scene()
        var segmenter = GrabCutSegmenter()
        segmenter.iterations = 2
        let disc = Self.prior(cx: 30, cy: 26, radius: 16)
        let bar = Self.prior(cx: 56, cy: 27, radius: 14)
        let onDisc = try segmenter.segment(image, prior: disc.prior, initial: disc.initial, on: .inTurn)
        let onBar = try segmenter.segment(image, prior: bar.prior, initial: bar.initial, on: .inTurn)
        let discCentre = 26 * Self.width + 30, barCentre = 27 * Self.width + 56
        #expect(onDisc[discCentre] == 1 && onDisc[barCentre] == 0)
        #expect(onBar[barCentre] == 1 && onBar[discCentre] == 0)
    }
}
