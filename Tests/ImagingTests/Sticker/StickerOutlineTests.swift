import Compute
import Foundation
import Testing
@testable import Imaging

@Suite("Sticker outline and mask helpers", .timeLimit(.minutes(10)))
struct StickerOutlineTests {
    @Test func distanceTransformMatchesBruteForce() throws {
        let w = 23, h = 17
        let features = [(3, 4), (20, 2), (11, 15), (12, 8)]
        var f = [Float](repeating: .infinity, count: w * h)
        for (x, y) in features { f[y * w + x] = 0 }
        try StickerOutline.distanceTransform(&f, width: w, height: h, on: .inTurn)
        for y in 0..<h {
            for x in 0..<w {
                let expected = features.map { Float(($0.0 - x) * ($0.0 - x) + ($0.1 - y) * ($0.1 - y)) }.min()!
                #expect(f[y * w + x] == expected)
            }
        }
    }

    @Test func distanceTransformWithoutFeaturesStaysInfinite() throws {
        var f = [Float](repeating: .infinity, count: 12)
        try StickerOutline.distanceTransform(&f, width: 4, height: 3, on: .inTurn)
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
        try MaskFeather.feather(&v, width: w, height: h, sigma: 1.5, on: .inTurn)
        for y in 0..<h {
            #expect(v[y * w + 9] >= 128 && v[y * w + 10] < 128)
            #expect(v[y * w + 9] < 255 && v[y * w + 10] > 0)
            #expect(v[y * w] == 255 && v[y * w + 19] == 0)
        }
    }

    /// The edge-only, ring-buffered feather must equal a plain separable Gaussian blur with clamped
    /// edges (up to rounding) on a mask with many edges, including ones at the image border, and when
    /// the kernel is wider than the image or the image is a single row or column.
    @Test(arguments: [(37, 29, 0.6), (37, 29, 1.0), (37, 29, 2.5), (37, 29, 16.0), (1, 23, 2.0), (23, 1, 2.0)])
    func featherMatchesAPlainSeparableBlur(w: Int, h: Int, sigma: Double) throws {
        var rng = SplitMix64(seed: 7)
        var v = [UInt8](repeating: 0, count: w * h)
        for _ in 0..<6 {
            let cx = Int(rng.next() % UInt64(w)), cy = Int(rng.next() % UInt64(h)), r = 2 + Int(rng.next() % 7)
            for y in 0..<h {
                for x in 0..<w where (x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r { v[y * w + x] = 255 }
            }
        }
        // Both levels present whatever the discs covered, with an edge right at two corners.
        v[0] = 0
        v[w * h - 1] = 255
        let r = max(1, Int((3 * sigma).rounded(.up)))
        var kernel = (-r...r).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = kernel.reduce(0, +)
        kernel = kernel.map { $0 / total }
        var rows = [Double](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                var acc = 0.0
                for k in -r...r { acc += kernel[k + r] * Double(v[y * w + min(w - 1, max(0, x + k))]) }
                rows[y * w + x] = acc
            }
        }
        var expected = [Double](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                var acc = 0.0
                for k in -r...r { acc += kernel[k + r] * rows[min(h - 1, max(0, y + k)) * w + x] }
                expected[y * w + x] = acc
            }
        }
        var feathered = v
        try MaskFeather.feather(&feathered, width: w, height: h, sigma: sigma, on: .inTurn)
        var worst = 0.0
        for i in 0..<(w * h) { worst = max(worst, abs(Double(feathered[i]) - expected[i])) }
        #expect(worst <= 0.5 + 1e-3)
        #expect(feathered != v)
    }

    /// The row-at-a-time enlarger is bilinear with pixel-centre alignment and clamped edges: checked
    /// against that formula written out independently, on a plane with a distinct value everywhere.
    @Test func rowEnlargerIsCentreAlignedBilinear() {
        let w = 5, h = 4, tw = 13, th = 11
        let plane = (0..<(w * h)).map { Float(($0 * 37) % 23) }
        let enlarger = PlaneResampler.RowEnlarger(width: w, height: h, targetWidth: tw, targetHeight: th)
        var row = [Float](repeating: 0, count: tw)
        func sample(_ x: Int, _ y: Int) -> Float { plane[min(h - 1, y) * w + min(w - 1, x)] }
        for y in 0..<th {
            plane.withUnsafeBufferPointer { enlarger.row(y, of: $0, into: &row) }
            let fy = max(0, (Float(y) + 0.5) * Float(h) / Float(th) - 0.5)
            for x in 0..<tw {
                let fx = max(0, (Float(x) + 0.5) * Float(w) / Float(tw) - 0.5)
                let x0 = Int(fx), y0 = Int(fy), ax = fx - Float(x0), ay = fy - Float(y0)
                let top = sample(x0, y0) * (1 - ax) + sample(x0 + 1, y0) * ax
                let bottom = sample(x0, y0 + 1) * (1 - ax) + sample(x0 + 1, y0 + 1) * ax
                #expect(abs(row[x] - (top * (1 - ay) + bottom * ay)) < 1e-3)
            }
        }
    }
}
