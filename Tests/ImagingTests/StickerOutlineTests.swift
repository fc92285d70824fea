import Testing
@testable import Imaging

@Suite("Sticker outline and mask helpers")
struct StickerOutlineTests {
    @Test func distanceTransformMatchesBruteForce() throws {
        let w = 23, h = 17
        let features = [(3, 4), (20, 2), (11, 15), (12, 8)]
        var f = [Float](repeating: .infinity, count: w * h)
        for (x, y) in features { f[y * w + x] = 0 }
        try StickerOutline.distanceTransform(&f, width: w, height: h)
        for y in 0..<h {
            for x in 0..<w {
                let expected = features.map { Float(($0.0 - x) * ($0.0 - x) + ($0.1 - y) * ($0.1 - y)) }.min()!
                #expect(f[y * w + x] == expected)
            }
        }
    }

    @Test func distanceTransformWithoutFeaturesStaysInfinite() throws {
        var f = [Float](repeating: .infinity, count: 12)
        try StickerOutline.distanceTransform(&f, width: 4, height: 3)
        #expect(f.allSatisfy { $0 == .infinity })
    }

    @Test func maskIoU() {
        let a = Mask(width: 4, height: 1, values: [255, 255, 0, 0])
        let b = Mask(width: 4, height: 1, values: [255, 130, 127, 255])
        #expect(a.intersectionOverUnion(b) == 2.0 / 3.0)
        let empty = Mask(width: 4, height: 1, repeating: 0)
        #expect(empty.intersectionOverUnion(empty) == 1)
        #expect(b.count() == 3)
    }

    @Test func featherKeepsTheHalfLevelOfAStraightEdge() throws {
        let w = 20, h = 6
        var v = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h { for x in 0..<10 { v[y * w + x] = 255 } }
        try MaskFeather.feather(&v, width: w, height: h, sigma: 1.5)
        for y in 0..<h {
            #expect(v[y * w + 9] >= 128 && v[y * w + 10] < 128)
            #expect(v[y * w + 9] < 255 && v[y * w + 10] > 0)
            #expect(v[y * w] == 255 && v[y * w + 19] == 0)
        }
    }
}
