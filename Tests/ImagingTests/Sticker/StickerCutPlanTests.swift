import Testing
@testable import Imaging

/// ``StickerCutPlan``: a photo that is a cut-out already is decided (its alpha, confidence 1, no cut); otherwise each
/// hypothesis is cut on its own, in either order, and the mask is their consensus, the same whichever cut was made
/// first.
@Suite(.timeLimit(.minutes(10)))
struct StickerCutPlanTests {
    /// A red disc on a grey-green background.
    static func disc(width: Int = 160, height: Int = 120) -> Image {
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let dx = Double(x - width / 2), dy = Double(y - height / 2), i = (y * width + x) * 4
                let inside = dx * dx + dy * dy < Double(height * height) / 9
                (pixels[i], pixels[i + 1], pixels[i + 2]) = inside ? (220, 40, 30) : (90, 110, 95)
            }
        }
        return Image(width: width, height: height, pixels: pixels)
    }

    @Test("A photo that is a cut-out already is decided: its alpha, confidence 1, nothing cut")
    func aCutOutIsDecided() throws {
        var image = Self.disc()
        for p in 0..<image.pixelCount where p % image.width < image.width / 2 { image.pixels[p * 4 + 3] = 0 }
        let plan = try StickerPreparation(image, options: StickerOptions(), on: .inTurn).plan(faces: [], options: StickerOptions())
        let cuts = (pixel: try plan.cut(.pixel, on: .inTurn), region: try plan.cut(.region, on: .inTurn))
        #expect(cuts.pixel.labels.isEmpty && cuts.region.labels.isEmpty, "a decided plan cut something")
        let (mask, confidence) = try plan.mask(of: image, cuts: cuts, feather: 0, on: .inTurn)
        #expect(confidence == 1, "confidence \(confidence)")
        let opaque = (0..<image.pixelCount).filter { image.pixels[$0 * 4 + 3] >= 128 }
        let kept = (0..<mask.values.count).filter { mask.values[$0] >= 128 }
        #expect(kept == opaque, "mask pixels \(kept.count), opaque pixels \(opaque.count)")
    }

    @Test("The two cuts are independent: made in either order they give the same mask, the disc")
    func cutsInEitherOrder() throws {
        let image = Self.disc()
        let plan = try StickerPreparation(image, options: StickerOptions(), on: .inTurn).plan(faces: [], options: StickerOptions())
        let pixelFirst = (pixel: try plan.cut(.pixel, on: .inTurn), region: try plan.cut(.region, on: .inTurn))
        let regionCut = try plan.cut(.region, on: .inTurn)
        let regionFirst = (pixel: try plan.cut(.pixel, on: .inTurn), region: regionCut)
        let a = try plan.mask(of: image, cuts: pixelFirst, feather: 1, on: .inTurn)
        let b = try plan.mask(of: image, cuts: regionFirst, feather: 1, on: .inTurn)
        #expect(a.mask.values == b.mask.values && a.confidence == b.confidence, "the order changed the mask")
        // The disc (radius 40: 5027 px of 19200) within a few per cent, and confidently.
        let covered = a.mask.values.filter { $0 >= 128 }.count
        #expect(abs(covered - 5027) < 500 && a.confidence > 0.3, "covered \(covered), confidence \(a.confidence)")
        #expect(a.mask.values[60 * 160 + 80] == 255 && a.mask.values[5 * 160 + 5] == 0, "centre and corner")
    }
}
