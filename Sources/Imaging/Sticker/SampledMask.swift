/// A mask's sides of 128 on a grid at most ``longSide`` pixels on its long side: enough to compare two cuts of a
/// large photo without holding both at full size.
struct SampledMask: Sendable, Equatable {
    static let longSide = 512
    let width: Int, height: Int
    /// Pixels of the mask between samples.
    let step: Int
    let inside: [Bool]

    init(_ mask: Mask) {
        let step = max(1, (max(mask.width, mask.height) + Self.longSide - 1) / Self.longSide)
        self.step = step
        (width, height) = ((mask.width + step - 1) / step, (mask.height + step - 1) / step)
        var inside = [Bool](repeating: false, count: width * height)
        for y in 0..<height {
            for x in 0..<width { inside[y * width + x] = mask.values[y * step * mask.width + x * step] >= 128 }
        }
        self.inside = inside
    }

    /// Samples inside.
    var count: Int { inside.reduce(0) { $0 + ($1 ? 1 : 0) } }

    /// The share of the samples inside that are inside `other` too (a mask of the same size); 1 when none is inside.
    func share(within other: SampledMask) -> Double {
        precondition(other.width == width && other.height == height, "a mask of another size")
        var (mine, both) = (0, 0)
        for i in inside.indices where inside[i] {
            mine += 1
            if other.inside[i] { both += 1 }
        }
        return mine == 0 ? 1 : Double(both) / Double(mine)
    }

    /// The share of the samples inside that lie in the 8-connected parts under `points` (in the mask's pixels).
    func shareOfParts(under points: [PixelPoint]) -> Double {
        let labels = inside.map { UInt8($0 ? 1 : 0) }
        let (ids, sizes, _) = MaskCleanup.components(labels, width: width, height: height, value: 1)
        let total = sizes.reduce(0, +)
        let under = Set(points.compactMap { p -> Int32? in
            let (x, y) = (p.x / step, p.y / step)
            return x >= 0 && y >= 0 && x < width && y < height && ids[y * width + x] >= 0 ? ids[y * width + x] : nil
        })
        return total == 0 ? 0 : Double(under.reduce(0) { $0 + sizes[Int($1)] }) / Double(total)
    }
}
