import Testing
import Imaging

@Suite(.timeLimit(.minutes(10))) struct ThumbnailGeometryTests {
    @Test func containFitsInsideKeepingAspect() {
        let t = ThumbnailGeometry.target(sourceWidth: 6000, sourceHeight: 4000, width: 256, height: 256, fit: .contain)
        #expect(t.width == 256 && t.height == 171 && t.crop == nil)
        let p = ThumbnailGeometry.target(sourceWidth: 4000, sourceHeight: 6000, width: 256, height: 256, fit: .contain)
        #expect(p.width == 171 && p.height == 256)
        let thin = ThumbnailGeometry.target(sourceWidth: 10000, sourceHeight: 1, width: 100, height: 100, fit: .contain)
        #expect(thin.width == 100 && thin.height == 1)
    }

    @Test func coverFillsAndCentreCropsInSourcePixels() throws {
        let t = ThumbnailGeometry.target(sourceWidth: 6000, sourceHeight: 4000, width: 256, height: 256, fit: .cover)
        #expect(t.width == 256 && t.height == 256)
        let crop = try #require(t.crop)
        #expect(crop.x == 1000 && crop.y == 0 && crop.w == 4000 && crop.h == 4000)
        let tall = ThumbnailGeometry.target(sourceWidth: 300, sourceHeight: 900, width: 200, height: 100, fit: .cover)
        let c = try #require(tall.crop)
        #expect(c.x == 0 && c.w == 300 && c.h == 150 && c.y == 375)
        #expect(ThumbnailGeometry.target(sourceWidth: 800, sourceHeight: 400, width: 200, height: 100, fit: .cover).crop == nil)
    }

    @Test func degenerateInputsNeverTrap() {
        for (sw, sh, w, h) in [(0, 0, 0, 0), (-5, 3, 7, -1), (Int.max, 1, Int.max, 1), (1, Int.max, Int.max, Int.max)] {
            for fit in FitMode.allCases {
                let t = ThumbnailGeometry.target(sourceWidth: sw, sourceHeight: sh, width: w, height: h, fit: fit)
                #expect(t.width >= 1 && t.height >= 1)
                if let c = t.crop { #expect(c.w >= 1 && c.h >= 1 && c.x >= 0 && c.y >= 0) }
            }
        }
    }

    @Test func thumbnailCoverProducesTheBoxAndMatchesCropThenResize() throws {
        var image = Image(width: 90, height: 30, fill: RGBA(r: 0, g: 0, b: 255))
        for y in 0..<30 { for x in 30..<60 { image[x, y] = RGBA(r: 255, g: 0, b: 0) } }
        let thumb = try Resampler.thumbnail(image, width: 10, height: 10, fit: .cover, on: .inTurn)
        #expect(thumb.width == 10 && thumb.height == 10)
        // The centred square crop is the red block only (kernel taps at its edges read a little blue).
        #expect(thumb[5, 5] == RGBA(r: 255, g: 0, b: 0))
        let contain = try Resampler.thumbnail(image, width: 10, height: 10, on: .inTurn)
        #expect(contain.width == 10 && contain.height == 3)
    }
}
