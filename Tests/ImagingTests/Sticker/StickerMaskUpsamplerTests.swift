import Compute
import Testing
@testable import Imaging

@Suite("Sticker mask upsampling", .timeLimit(.minutes(10)))
struct StickerMaskUpsamplerTests {
    /// A 40×40 working mask with a 20×20 subject square in the middle, a flat guide (so the filter
    /// is a plain box smoothing of the mask) and a 4× larger target image.
    static let size = 40, scale = 4
    static func square() -> [Float] {
        (0..<(size * size)).map { i in
            let x = i % size, y = i / size
            return (10..<30).contains(x) && (10..<30).contains(y) ? 1 : 0
        }
    }

    static func upsample(level: Float) throws -> [UInt8] {
        let guide = [Float](repeating: 0.5, count: 3 * size * size)
        let target = Image(width: size * scale, height: size * scale, fill: RGBA(r: 128, g: 128, b: 128, a: 255))
        return try MaskUpsampler.upsample(mask: square(), guide: guide, width: size, height: size, to: target,
                                          radius: 2, epsilon: 1e-3, level: level, on: .inTurn)
    }

    /// Full-resolution bounding box of the subject pixels (minX, minY, maxX, maxY).
    static func box(_ mask: [UInt8]) -> (Int, Int, Int, Int) {
        let w = size * scale
        var minX = w, minY = w, maxX = -1, maxY = -1
        for (i, v) in mask.enumerated() where v == 255 {
            minX = min(minX, i % w); maxX = max(maxX, i % w); minY = min(minY, i / w); maxY = max(maxY, i / w)
        }
        return (minX, minY, maxX, maxY)
    }

    @Test func halfLevelKeepsTheEdgeWhereTheWorkingMaskHasIt() throws {
        let (minX, minY, maxX, maxY) = Self.box(try Self.upsample(level: 0.5))
        // The square spans working pixels 10..<30, i.e. full-resolution 40..<120.
        for edge in [minX, minY] { #expect(abs(edge - 40) <= 2) }
        for edge in [maxX, maxY] { #expect(abs(edge - 119) <= 2) }
    }

    @Test func lowerLevelMovesTheEdgeOutwardsAndKeepsEverySubjectPixel() throws {
        let half = try Self.upsample(level: 0.5), quarter = try Self.upsample(level: 0.25)
        #expect(zip(half, quarter).allSatisfy { $0.0 == 0 || $0.1 == 255 })
        let (minX, minY, maxX, maxY) = Self.box(quarter)
        let (hMinX, hMinY, hMaxX, hMaxY) = Self.box(half)
        // Outwards by a fraction of the smoothing window (5 working pixels = 20 full-resolution ones).
        #expect(minX < hMinX && minY < hMinY && maxX > hMaxX && maxY > hMaxY)
        #expect(hMinX - minX < 20 && maxX - hMaxX < 20)
    }

    /// Red beside green of (nearly) the same luma, the subject being the red half: the colour guide
    /// keeps the edge on the colour boundary even at a low level, where a luma guide would see no
    /// edge and let the smoothed mask spread several pixels into the green.
    @Test func edgeBetweenColoursOfEqualBrightnessStaysPut() throws {
        let red = RGBA(r: 220, g: 40, b: 40), green = RGBA(r: 60, g: 120, b: 70)
        let n = Self.size, w = n * Self.scale
        var guide = [Float](repeating: 0, count: 3 * n * n), mask = [Float](repeating: 0, count: n * n)
        for i in 0..<(n * n) {
            let c = i % n < n / 2 ? red : green
            guide[3 * i] = Float(c.r) / 255; guide[3 * i + 1] = Float(c.g) / 255; guide[3 * i + 2] = Float(c.b) / 255
            mask[i] = i % n < n / 2 ? 1 : 0
        }
        var target = Image(width: w, height: w)
        for y in 0..<w { for x in 0..<w { target[x, y] = x < w / 2 ? red : green } }
        let out = try MaskUpsampler.upsample(mask: mask, guide: guide, width: n, height: n, to: target,
                                             radius: 2, epsilon: 1e-3, level: 0.25, on: .inTurn)
        for y in stride(from: 0, to: w, by: 7) {
            let row = out[(y * w)..<(y * w + w)]
            let edge = row.firstIndex(of: 0).map { $0 - y * w } ?? w
            #expect(abs(edge - w / 2) <= 1, "row \(y): subject ends at x = \(edge)")
        }
    }
}
