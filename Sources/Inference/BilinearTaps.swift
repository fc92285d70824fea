/// The two source samples and the weight of the second for every output sample along one axis.
struct BilinearTaps: Sendable {
    let first: [Int]
    let second: [Int]
    let weight: [Float]

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
    }

    /// One row resampled along this axis: `out[i]` from `row`'s two samples for `i`.
    func interpolate(_ row: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>) {
        for i in 0..<first.count {
            let a = row[first[i]]
            out[i] = a + (row[second[i]] - a) * weight[i]
        }
    }

    /// Output sample `index` of this axis for `count` positions at once: `a + (b - a) · weight`.
    func blend(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, at index: Int, into out: UnsafeMutablePointer<Float>,
               count: Int) {
        let f = weight[index]
        for i in 0..<count { out[i] = a[i] + (b[i] - a[i]) * f }
    }
}
