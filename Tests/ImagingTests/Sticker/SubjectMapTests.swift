import Testing
@testable import Imaging

/// `SubjectMap`'s geometry: a region's own map averaged into the whole photo's.
@Suite(.timeLimit(.minutes(10)))
struct SubjectMapTests {
    @Test func aRegionsMapIsAveragedInOverItsPlaceAndCountsZeroOutside() {
        // A 300x200 photo; its map 0.4 everywhere; the region (150, 50, 120x100) mapped 1.0.
        let whole = SubjectMap(width: 32, height: 32, values: [Float](repeating: 0.4, count: 32 * 32))
        let part = SubjectMap(width: 32, height: 32, values: [Float](repeating: 1, count: 32 * 32))
        let region = PixelRect(x: 150, y: 50, width: 120, height: 100)
        let m = whole.averaged(with: part, of: region, photoWidth: 300, photoHeight: 200, longSide: 60)
        #expect(m.width == 60 && m.height == 40, "\(m.width)x\(m.height)")
        // At a fifth of the photo's size the region is x 30..<54, y 10..<30.
        var wrong: [(Int, Int, Float)] = []
        for y in 0..<m.height {
            for x in 0..<m.width {
                let inside = x >= 30 && x < 54 && y >= 10 && y < 30
                let v = m.values[y * m.width + x]
                if abs(v - (inside ? 0.7 : 0.2)) > 1e-5 { wrong.append((x, y, v)) }
            }
        }
        #expect(wrong.isEmpty, "\(wrong.count) samples off, first \(wrong.prefix(3))")
    }
}
