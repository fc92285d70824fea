import Imaging
@testable import PhotoWorker
import Testing

/// The estimates' shape: they grow with the pixels, a JPEG thumbnail decodes shrunk, a batch narrows to its budget.
@Suite(.timeLimit(.minutes(10)))
struct MemoryEstimateTests {
    static func photo(_ w: Int, _ h: Int, _ format: ImageFormat = .jpeg) -> MemoryEstimate.Source {
        MemoryEstimate.Source(width: w, height: h, format: format, encodedBytes: w * h / 8)
    }

    @Test func aStickerOf24MegapixelsIsEstimatedNearItsMeasuredPeak() {
        let bytes = MemoryEstimate.sticker(Self.photo(6000, 4000), segmenter: .network)
        // bench/README.md: 285 MiB measured alone; the estimate must cover it without doubling it.
        #expect((285 << 20)...(428 << 20) ~= bytes, "\(bytes >> 20) MiB")
        #expect(MemoryEstimate.sticker(Self.photo(600, 400), segmenter: .network) < bytes)
    }

    @Test func aJPEGThumbnailDecodesAtAnEighthOfEachSide() {
        let jpeg = MemoryEstimate.thumbnail(Self.photo(6000, 4000), width: 256, height: 171)
        let png = MemoryEstimate.thumbnail(Self.photo(6000, 4000, .png), width: 256, height: 171)
        #expect(jpeg < 16 << 20, "\(jpeg >> 20) MiB")
        #expect(png > 96 << 20, "\(png >> 20) MiB")
    }

    /// libheif's planes are held only while it decodes: a HEIF costs more than a JPEG of the same size when what
    /// follows needs less than they did (a convert to JPEG), not when the stage after needs more (a sticker's maps).
    @Test func heifDecodesCostMoreOnlyWhileTheyRun() {
        let heif = Self.photo(4000, 3000, .heif), jpeg = Self.photo(4000, 3000)
        #expect(MemoryEstimate.decodeTransient(heif) > MemoryEstimate.decodeTransient(jpeg))
        #expect(MemoryEstimate.convert(heif, output: .jpeg) > MemoryEstimate.convert(jpeg, output: .jpeg))
        let extra = MemoryEstimate.sticker(heif, segmenter: .network) - MemoryEstimate.sticker(jpeg, segmenter: .network)
        #expect(extra < 10 << 20, "the planes added \(extra >> 20) MiB to the sticker; they overlap its maps")
    }

    @Test func aBatchNarrowsToFitItsBudget() {
        let children = [300 << 20, 300 << 20, 100 << 20, 50 << 20]
        #expect(MemoryEstimate.widthWithin(nil, children: children, width: 4) == 4)
        let two = MemoryEstimate.batch(children, width: 2)
        #expect(MemoryEstimate.widthWithin(two, children: children, width: 4) == 2)
        #expect(MemoryEstimate.widthWithin(1, children: children, width: 4) == 1)
        #expect(MemoryEstimate.batch(children, width: 1) < two)
    }

    /// A header may declare anything: the estimate neither traps nor wraps.
    @Test func hostileSizesDoNotOverflow() {
        let bomb = MemoryEstimate.Source(width: .max, height: .max, format: .heif, encodedBytes: .max)
        #expect(MemoryEstimate.sticker(bomb, segmenter: .network) > 0)
        #expect(MemoryEstimate.scale(bomb, factor: 64, output: .webp) > 0)
        #expect(MemoryEstimate.thumbnail(bomb, width: .max, height: .max) > 0)
    }
}
