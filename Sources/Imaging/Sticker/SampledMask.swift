/// A mask's sides of 128 on a grid at most ``longSide`` pixels on its long side: enough to compare two cuts of a
/// large photo (their IoU) without holding both at full size.
struct SampledMask: Sendable, Equatable {
    static let longSide = 512
    let width: Int, height: Int
    let inside: [Bool]

    init(_ mask: Mask) {
        let step = max(1, (max(mask.width, mask.height) + Self.longSide - 1) / Self.longSide)
        (width, height) = ((mask.width + step - 1) / step, (mask.height + step - 1) / step)
        var inside = [Bool](repeating: false, count: width * height)
        for y in 0..<height {
            for x in 0..<width { inside[y * width + x] = mask.values[y * step * mask.width + x * step] >= 128 }
        }
        self.inside = inside
    }

    /// Intersection over union of the two samples (of masks of one size); 0 when both are empty.
    func intersectionOverUnion(_ other: SampledMask) -> Double {
        precondition(width == other.width && height == other.height, "samples of masks of different sizes")
        var both = 0, either = 0
        for i in inside.indices {
            if inside[i] && other.inside[i] { both += 1 }
            if inside[i] || other.inside[i] { either += 1 }
        }
        return either == 0 ? 0 : Double(both) / Double(either)
    }
}
