import Compute
import Testing
@testable import Imaging

/// `SubjectCut`: a subject cut before it is made a sticker (what an animated sticker's key frame keeps).
@Suite("Subject cuts", .timeLimit(.minutes(10)))
struct SubjectCutTests {
    /// Its box is the mask's extent above zero and its coverage the share at 128 or more; an empty mask's box is the
    /// part that was cut.
    @Test func aCutMeasuresItsMask() {
        var mask = Mask(width: 20, height: 10, repeating: 0)
        for y in 2..<6 { for x in 3..<11 { mask.values[y * 20 + x] = 200 } }
        mask.values[7 * 20 + 15] = 40
        let cut = SubjectCut(mask: mask, confidence: 0.5)
        #expect(cut.boundingBox == PixelRect(x: 3, y: 2, width: 13, height: 6), "\(cut.boundingBox)")
        #expect(cut.coverage == 32.0 / 200.0, "coverage \(cut.coverage)")
        let part = PixelRect(x: 4, y: 1, width: 5, height: 5)
        let empty = SubjectCut(mask: Mask(width: 20, height: 10, repeating: 0), confidence: 0, emptyBox: part)
        #expect(empty.boundingBox == part && empty.coverage == 0, "\(empty.boundingBox)")
    }

    /// The cut a point asks for, made a sticker, is the sticker of the same request: whichever round (the whole photo's
    /// or the subject's own part's) it came from, the mask, box, coverage and confidence agree.
    @Test(arguments: [PixelPoint(x: 60, y: 60), PixelPoint(x: 180, y: 60)])
    func aPointsCutIsItsStickersMask(point: PixelPoint) async throws {
        let (image, _, _) = SubjectPromptTests.twoDiscs()
        var options = SubjectOwnCutTests.options
        options.subject = .point(point.x, point.y)
        options.outlineWidth = 3
        let settled = options
        let cut = try await StickerExtractor.subjectCut(from: image, options: settled,
                                                        photoMap: { try await SubjectOwnCutTests.map(image) },
                                                        ownCutMap: SubjectOwnCutTests.map, on: InlineStages())
        let sticker = try await StickerExtractor.extract(from: image, options: settled,
                                                         photoMap: { try await SubjectOwnCutTests.map(image) },
                                                         ownCutMap: SubjectOwnCutTests.map, on: InlineStages())
        #expect(cut.mask == sticker.mask && cut.boundingBox == sticker.boundingBox,
                "cut \(cut.boundingBox), sticker \(sticker.boundingBox)")
        #expect(cut.coverage == sticker.coverage && cut.confidence == sticker.confidence,
                "cut \(cut.coverage) / \(cut.confidence), sticker \(sticker.coverage) / \(sticker.confidence)")
        #expect(cut.mask.count() > 1000, "subject pixels \(cut.mask.count())")
        // The sticker is the cut's box with the outline's margin.
        #expect(sticker.image.width == cut.boundingBox.width + 10, "sticker \(sticker.image.width) px wide")
    }

    /// A photo that is a cut-out already keeps its own edge colours, even when the edge is to be decontaminated.
    @Test func aCutOutPhotoKeepsItsEdgeColours() async throws {
        var image = Image(width: 64, height: 64)
        for y in 0..<64 {
            for x in 0..<64 {
                let dx = Double(x) - 31.5, dy = Double(y) - 31.5
                let alpha = max(0, min(255, Int((20 - (dx * dx + dy * dy).squareRoot()) * 60)))
                image[x, y] = RGBA(r: 200, g: UInt8(x * 3), b: UInt8(y * 3), a: UInt8(alpha))
            }
        }
        var options = StickerOptions()
        options.decontaminatesEdges = true
        let cut = try await StickerExtractor.subjectCut(from: image, options: options, on: InlineStages())
        let made = try StickerExtractor.makeSticker(image, cut: cut, options: options, on: .inTurn)
        let o = made.origin
        var changed = 0
        for y in 0..<made.image.height {
            for x in 0..<made.image.width where made.image[x, y].a > 0 {
                let s = image[x + o.x, y + o.y], d = made.image[x, y]
                if (s.r, s.g, s.b) != (d.r, d.g, d.b) { changed += 1 }
            }
        }
        #expect(changed == 0 && made.mask.count() > 1000, "\(changed) edge pixels recoloured")
    }
}
