import Testing
@testable import Imaging

@Suite("Mask motion")
struct MaskMotionTests {
    /// A grey background with a textured square (seeded noise) whose top-left corner is at (x, y).
    static func frame(squareAt x: Int, _ y: Int, width: Int = 160, height: Int = 120, side: Int = 40,
                      seed: UInt64 = 7) -> Image {
        var image = Image(width: width, height: height, fill: RGBA(r: 120, g: 120, b: 120, a: 255))
        var random = SplitMix64(seed: seed)
        for v in 0..<side {
            for u in 0..<side {
                let value = UInt8(truncatingIfNeeded: random.next())
                if (0..<width).contains(x + u) && (0..<height).contains(y + v) {
                    image[x + u, y + v] = RGBA(r: value, g: value / 2, b: 255 - value, a: 255)
                }
            }
        }
        return image
    }

    static func mask(squareAt x: Int, _ y: Int, width: Int = 160, height: Int = 120, side: Int = 40) -> Mask {
        Mask(width: width, height: height, values: (0..<(width * height)).map { i in
            (x..<(x + side)).contains(i % width) && (y..<(y + side)).contains(i / width) ? 255 : 0
        })
    }

    @Test("The shift that carries a textured subject onto the next frame is found, each way and both axes",
          arguments: [(5, -3), (-11, 7), (1, 0), (0, 12)])
    func findsTheShift(_ dx: Int, _ dy: Int) {
        let from = MaskMotion.Luma(Self.frame(squareAt: 50, 40))
        let to = MaskMotion.Luma(Self.frame(squareAt: 50 + dx, 40 + dy))
        let shift = MaskMotion.shift(from: from, mask: Self.mask(squareAt: 50, 40), to: to)
        #expect(shift == MaskMotion.Shift(dx: dx, dy: dy), "found \(shift)")
    }

    @Test("A subject that does not move, or has nothing to follow, stays where it is")
    func standsStill() {
        let a = MaskMotion.Luma(Self.frame(squareAt: 50, 40))
        #expect(MaskMotion.shift(from: a, mask: Self.mask(squareAt: 50, 40), to: a) == .zero)
        // A flat subject on a flat background: every shift inside it compares the same.
        let flat = MaskMotion.Luma(Image(width: 160, height: 120, fill: RGBA(r: 90, g: 90, b: 90, a: 255)))
        #expect(MaskMotion.shift(from: flat, mask: Self.mask(squareAt: 50, 40), to: flat) == .zero)
        // An empty mask has no subject to follow.
        let moved = MaskMotion.Luma(Self.frame(squareAt: 55, 40))
        #expect(MaskMotion.shift(from: a, mask: Mask(width: 160, height: 120, repeating: 0), to: moved) == .zero)
    }

    @Test("A translated mask moves its values; what comes in from outside is background")
    func translates() {
        let mask = Self.mask(squareAt: 10, 10)
        #expect(MaskMotion.translated(mask, by: MaskMotion.Shift(dx: 7, dy: -4)) == Self.mask(squareAt: 17, 6))
        #expect(MaskMotion.translated(mask, by: .zero) == mask)
        let gone = MaskMotion.translated(mask, by: MaskMotion.Shift(dx: 500, dy: 0))
        #expect(gone.values.allSatisfy { $0 == 0 })
        // Partly off the edge: the part still inside is kept.
        let edge = MaskMotion.translated(mask, by: MaskMotion.Shift(dx: -30, dy: 0))
        #expect(edge.values.filter { $0 == 255 }.count == 20 * 40, "\(edge.values.filter { $0 == 255 }.count)")
    }
}
