import Testing
@testable import Imaging

@Suite("Key-frame masks", .timeLimit(.minutes(10)))
struct KeyFrameMasksTests {
    /// A mask with a filled rectangle from x0 (inclusive) to x1 (exclusive), all rows.
    func bar(_ x0: Int, _ x1: Int) -> Mask {
        Mask(width: 20, height: 4, values: (0..<80).map { ($0 % 20) >= x0 && ($0 % 20) < x1 ? 255 : 0 })
    }

    @Test("Blending is the key frames' masks at its ends and moves pixels across 128 a share at a time")
    func interpolation() {
        let a = bar(0, 10), b = bar(5, 15)
        #expect(KeyFrameMasks.interpolate(a, b, weight: 0) == a)
        #expect(KeyFrameMasks.interpolate(a, b, weight: 1) == b)
        let mid = KeyFrameMasks.interpolate(a, b, weight: 0.5)
        #expect(mid.values[2] == 128 && mid.values[7] == 255 && mid.values[12] == 128 && mid.values[17] == 0,
                "\(mid.values.prefix(20))")
        // Four frames between the two key frames change fewer pixels per step than the two key frames do.
        let direct = KeyFrameMasks.changedShare(a, b)
        var steps: [Double] = []
        var previous = a
        for k in 1...4 {
            let next = KeyFrameMasks.interpolate(a, b, weight: Double(k) / 4)
            steps.append(KeyFrameMasks.changedShare(previous, next))
            previous = next
        }
        #expect(steps.allSatisfy { $0 <= direct / 2 + 1e-9 }, "steps \(steps), key frames \(direct)")
        #expect(abs(direct - 10.0 / 15.0) < 1e-9, "\(direct)")
    }

    @Test("Applying a mask scales alpha and clears what it hides")
    func apply() {
        var image = Image(width: 20, height: 4, fill: RGBA(r: 200, g: 100, b: 50, a: 200))
        var mask = bar(0, 10)
        mask.values[1] = 128
        KeyFrameMasks.apply(mask, to: &image)
        #expect(image[0, 0] == RGBA(r: 200, g: 100, b: 50, a: 200))
        #expect(image[1, 0].a == 100)
        #expect(image[15, 0] == RGBA(r: 0, g: 0, b: 0, a: 0))
    }

    @Test("Blending keeps a shared soft edge soft, and where the masks disagree takes the nearer key frame's value")
    func blending() {
        let a = Mask(width: 4, height: 1, values: [255, 0, 100, 200])
        let b = Mask(width: 4, height: 1, values: [0, 255, 180, 120])
        #expect(KeyFrameMasks.blend(a, b, weight: 0.25).values == [255, 0, 120, 180])
        #expect(KeyFrameMasks.blend(a, b, weight: 0.75).values == [0, 255, 160, 140])
        // Where they agree it is the linear blend; where not, on the same side of 128 as the linear blend.
        for weight in stride(from: 0.0, through: 1, by: 0.125) {
            let blended = KeyFrameMasks.blend(a, b, weight: weight), linear = KeyFrameMasks.interpolate(a, b, weight: weight)
            #expect(blended.values[2...] == linear.values[2...])
            #expect(zip(blended.values, linear.values).allSatisfy { ($0 >= 128) == ($1 >= 128) || $1 == 128 },
                    "weight \(weight): \(blended.values) against \(linear.values)")
        }
    }

    @Test("Where only one carried mask saw a pixel on its own frame, its value stands")
    func blendingWhatOnlyOneSaw() {
        // b's key frame had the bar cut by its right edge (x 15 on); carried back 5 px, b knows x 0 to 14 only.
        let bKnows = Mask(width: 20, height: 4, values: (0..<80).map { ($0 % 20) < 15 ? 255 : 0 })
        let a = bar(10, 20), b = bar(10, 15)
        let blended = KeyFrameMasks.blend(a, b, weight: 0.75, aReliability: nil, bReliability: bKnows)
        #expect(blended == a, "\(blended.values.prefix(20))")
        // Without it, the nearer mask's background wins where the bar ran off its frame.
        #expect(KeyFrameMasks.blend(a, b, weight: 0.75) == b)
    }

    @Test("The median of three masks: the two carried ones outvote the frame's own where they agree, and count only where they saw")
    func medianOfThree() {
        let first = Mask(width: 4, height: 1, values: [255, 255, 0, 100])
        let middle = Mask(width: 4, height: 1, values: [0, 255, 255, 200])
        let last = Mask(width: 4, height: 1, values: [255, 0, 0, 150])
        #expect(KeyFrameMasks.median(first, middle, last).values == [255, 255, 0, 150])
        // `last` cannot be trusted at x 2 and 3: there the frame's own value counts in its place.
        let trusted = Mask(width: 4, height: 1, values: [255, 200, 127, 0])
        #expect(KeyFrameMasks.median(first, middle, last, lastReliability: trusted).values == [255, 255, 255, 200])
    }
}
