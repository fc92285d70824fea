import Compute
import Foundation
import Testing
@testable import Imaging

/// `ForegroundEstimator`: a known foreground mixed with a saturated background over a soft edge.
@Suite("Foreground estimation", .timeLimit(.minutes(10)))
struct ForegroundEstimatorTests {
    /// A warm subject (left of x = 40, its colour varying with y) over saturated green, alpha ramping over x 32..<48.
    static func scene() -> (image: Image, alpha: Mask, truth: (Int, Int) -> RGBA) {
        let w = 90, h = 60
        func fg(_ x: Int, _ y: Int) -> RGBA { RGBA(r: 200, g: UInt8(80 + y), b: 60) }
        let bg = RGBA(r: 0, g: 255, b: 0)
        var image = Image(width: w, height: h)
        var alpha = Mask(width: w, height: h, repeating: 0)
        for y in 0..<h {
            for x in 0..<w {
                let a = max(0, min(255, (48 - x) * 16))
                alpha.values[y * w + x] = UInt8(a)
                let f = fg(x, y), t = Double(a) / 255
                func mix(_ u: UInt8, _ v: UInt8) -> UInt8 { UInt8((t * Double(u) + (1 - t) * Double(v)).rounded()) }
                image[x, y] = RGBA(r: mix(f.r, bg.r), g: mix(f.g, bg.g), b: mix(f.b, bg.b))
            }
        }
        return (image, alpha, fg)
    }

    static func distance(_ a: RGBA, _ b: RGBA) -> Double {
        ColorScience.ciede2000(ColorScience.lab(fromSRGB: a.r, a.g, a.b), ColorScience.lab(fromSRGB: b.r, b.g, b.b))
    }

    @Test func softEdgeTakesTheSubjectsColourNotTheBackgrounds() throws {
        let (image, alpha, truth) = Self.scene()
        let (rect, out) = try ForegroundEstimator.estimate(image, alpha: alpha,
                                                           in: PixelRect(x: 0, y: 0, width: image.width, height: image.height), on: .inTurn)
        #expect(rect == PixelRect(x: 0, y: 0, width: image.width, height: image.height))
        var plain = 0.0, estimated = 0.0, n = 0.0
        for y in 0..<image.height {
            for x in 33..<48 {
                let e = RGBA(r: out[4 * (y * image.width + x)], g: out[4 * (y * image.width + x) + 1],
                             b: out[4 * (y * image.width + x) + 2])
                plain += Self.distance(image[x, y], truth(x, y)); estimated += Self.distance(e, truth(x, y)); n += 1
            }
        }
        // The plain cut's edge is green-tinged (mean CIEDE2000 about 40 here); the estimate is close to the subject.
        #expect(estimated / n < 0.25 * plain / n, "plain \(plain / n), estimated \(estimated / n)")
    }

    @Test func hardPixelsKeepThePhotosColourAndTheRectangleIsClipped() throws {
        let (image, alpha, _) = Self.scene()
        let (rect, out) = try ForegroundEstimator.estimate(image, alpha: alpha, in: PixelRect(x: -5, y: 10, width: 200, height: 20), on: .inTurn)
        #expect(rect == PixelRect(x: 0, y: 10, width: image.width, height: 20))
        for y in 0..<rect.height {
            for x in 0..<rect.width where alpha.values[(y + 10) * image.width + x] % 255 == 0 {
                let o = 4 * (y * rect.width + x)
                #expect(RGBA(r: out[o], g: out[o + 1], b: out[o + 2], a: out[o + 3]) == image[x, y + 10], "at \(x), \(y + 10)")
            }
        }
    }

    @Test func stickerEdgeIsDecontaminatedUnlessTurnedOff() async throws {
        let (image, _) = StickerScenes.disc(fg: RGBA(r: 220, g: 40, b: 40), bg: RGBA(r: 0, g: 255, b: 0))
        var options = StickerOptions()
        let clean = try await StickerExtractor.extract(from: image, options: options, on: InlineStages())
        options.decontaminatesEdges = false
        let plain = try await StickerExtractor.extract(from: image, options: options, on: InlineStages())
        #expect(clean.mask == plain.mask)
        var greener = 0, soft = 0
        for y in 0..<clean.image.height {
            for x in 0..<clean.image.width {
                let c = clean.image[x, y], p = plain.image[x, y]
                #expect(c.a == p.a)
                if p.a == 255 || p.a == 0 { #expect(c == p, "at \(x), \(y)"); continue }
                // Off, the soft edge is the photo's colour; on, it is less green than the photo's.
                let photo = image[x + plain.origin.x, y + plain.origin.y]
                #expect(RGBA(r: p.r, g: p.g, b: p.b) == RGBA(r: photo.r, g: photo.g, b: photo.b))
                soft += 1
                if Int(c.g) < Int(p.g) { greener += 1 }
            }
        }
        #expect(soft > 50 && greener * 10 >= soft * 9, "\(greener) of \(soft) soft pixels less green")
    }
}
