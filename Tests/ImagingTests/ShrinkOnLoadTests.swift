import Testing
@testable import Imaging

/// The DCT-scale rule of shrink-on-load (libvips': the largest scale that leaves at least twice
/// what the caller needs), decided from the image's display size alone.
@Suite(.timeLimit(.minutes(10)))
struct ShrinkOnLoadTests {
    @Test("a thumbnail needs twice its own size, not twice the box")
    func thumbnailUsesTheFittedSize() {
        // 6000x4000 into a 256 box is 256x171; 1/8 gives 750x500 >= 512x342.
        let contain = ShrinkOnLoad.thumbnail(width: 256, height: 256, fit: .contain)
        #expect(contain.requiredSize(sourceWidth: 6000, sourceHeight: 4000) == (256, 171))
        #expect(contain.jpegScaleDenominator(sourceWidth: 6000, sourceHeight: 4000) == 8)
        // The box itself (256x256) would have allowed only 1/4 (4000 / 8 = 500 < 512).
        #expect(ShrinkOnLoad.atLeast(width: 256, height: 256).jpegScaleDenominator(sourceWidth: 6000, sourceHeight: 4000) == 4)
        // A 2048x1536 photo in the same box: 256x192, so 1/4 (512x384) and not 1/8 (256x192).
        #expect(contain.jpegScaleDenominator(sourceWidth: 2048, sourceHeight: 1536) == 4)
    }

    @Test("cover needs the whole image scaled until the box is covered")
    func coverNeedsTheCoveringSize() {
        let cover = ShrinkOnLoad.thumbnail(width: 256, height: 256, fit: .cover)
        // Scaled by 256/4000: 384x256; twice that is 768x512, and 1/4 gives 1500x1000.
        #expect(cover.requiredSize(sourceWidth: 6000, sourceHeight: 4000) == (384, 256))
        #expect(cover.jpegScaleDenominator(sourceWidth: 6000, sourceHeight: 4000) == 4)
        // One side constrained (the worker's box for width alone): the other side is free.
        let widthOnly = ShrinkOnLoad.thumbnail(width: 300, height: Resampler.maximumDimension, fit: .contain)
        #expect(widthOnly.requiredSize(sourceWidth: 6000, sourceHeight: 4000) == (300, 200))
        #expect(widthOnly.jpegScaleDenominator(sourceWidth: 6000, sourceHeight: 4000) == 8)
    }

    @Test("a colour sample keeps the longest side at the working size, with no filter margin")
    func colorSampleHasNoMargin() {
        let sample = ShrinkOnLoad.colorSample(longestSide: 128)
        // 481x321: 1/2 gives 241x161 (long side >= 128); 1/4 would give 121x81.
        #expect(sample.jpegScaleDenominator(sourceWidth: 481, sourceHeight: 321) == 2)
        #expect(sample.jpegScaleDenominator(sourceWidth: 6000, sourceHeight: 4000) == 8)
        #expect(sample.jpegScaleDenominator(sourceWidth: 200, sourceHeight: 100) == 1)
    }

    @Test("degenerate sizes never trap and never shrink below one pixel")
    func degenerateSizes() {
        for shrink in [ShrinkOnLoad.atLeast(width: 0, height: -5), .thumbnail(width: 0, height: 0, fit: .cover),
                       .colorSample(longestSide: 0)] {
            let d = shrink.jpegScaleDenominator(sourceWidth: 1, sourceHeight: 1)
            #expect(d == 1)
            #expect(shrink.jpegScaleDenominator(sourceWidth: 16, sourceHeight: 16) >= 1)
        }
    }

    @Test("decoding a JPEG for a thumbnail box uses the fitted size")
    func decoderFollowsTheRule() throws {
        let bytes = try CodecCorpus.bytes("photos/orientation-Landscape_1.jpg")   // 1800x1200
        // 1800x1200 into a 100 box is 100x67: 1/8 (225x150) keeps twice that.
        let decoded = try ImageCodec.decode(bytes, options: DecodeOptions(
            shrinkOnLoad: .thumbnail(width: 100, height: 100, fit: .contain)), on: .inTurn)
        #expect(decoded.metadata.scaleDenominator == 8)
        #expect(decoded.image.width == 225 && decoded.image.height == 150)
    }
}
