import CKernels

/// The two source samples and the weight of the second for every output sample along one axis.
struct BilinearTaps: Sendable {
    let first: [Int]
    let second: [Int]
    let weight: [Float]
    /// Whether these are exactly the taps of a doubling (``ck_bilinear_row_doubled``'s), as every resize of
    /// U²-Netp at 320 or 256 is: rows are then interpolated without gathering, to the same values.
    let doubles: Bool

    init(count n: Int, source inN: Int) {
        var first = [Int](), second = [Int](), weight = [Float]()
        for i in 0..<n {
            let s = n > 1 ? (Float(i) + 0.5) * Float(inN) / Float(n) - 0.5 : 0
            let c = min(max(s, 0), Float(inN - 1))
            let i0 = Int(c)
            first.append(i0)
            second.append(min(i0 + 1, inN - 1))
            weight.append(c - Float(i0))
        }
        self.first = first
        self.second = second
        self.weight = weight
        doubles = inN >= 2 && n == 2 * inN && (0..<n).allSatisfy { i in
            let (expected0, expected1, expectedWeight): (Int, Int, Float) =
                i == 0 ? (0, 1, 0) : i == n - 1 ? (inN - 1, inN - 1, 0) : ((i - 1) / 2, (i - 1) / 2 + 1, i % 2 == 0 ? 0.75 : 0.25)
            return first[i] == expected0 && second[i] == expected1 && weight[i] == expectedWeight
        }
    }

    /// One row resampled along this axis: `out[i]` from `row`'s two samples for `i`.
    func interpolate(_ row: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>) {
        if doubles {
            ck_bilinear_row_doubled(row, first.count / 2, out)
        } else {
            ck_bilinear_row(row, first, second, weight, first.count, out)
        }
    }

    /// Output sample `index` of this axis for `count` positions at once: `a + (b - a) · weight`.
    func blend(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, at index: Int, into out: UnsafeMutablePointer<Float>,
               count: Int) {
        ck_bilinear_blend(a, b, weight[index], count, out)
    }
}
