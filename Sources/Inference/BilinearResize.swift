/// Bilinear resampling with PyTorch's half-pixel centres (ONNX `pytorch_half_pixel`, as the export
/// has it): source coordinate `(dst + 0.5) * in / out - 0.5`, clamped to the image.
enum BilinearResize {
    /// - Parameter out: `x`'s channels at the size to resample to.
    static func resize(_ x: TensorView, into out: TensorView) {
        let h = x.height, w = x.width, oh = out.height, ow = out.width
        if oh == h && ow == w {
            out.base.update(from: x.base, count: x.count)
            return
        }
        let ys = BilinearTaps(count: oh, source: h), xs = BilinearTaps(count: ow, source: w)
        // Separable: each source row interpolated along x once (into `rows`), then every output row
        // is a blend of two of them (contiguous, vectorised). The same arithmetic as blending four
        // taps per pixel, so the same values.
        var rows = [Float](repeating: 0, count: h * ow)
        rows.withUnsafeMutableBufferPointer { rows in
            let r = rows.baseAddress!
            for c in 0..<x.channels {
                let s = x.plane(c), o = out.plane(c)
                for y in 0..<h { xs.interpolate(s + y * w, into: r + y * ow) }
                for oy in 0..<oh { ys.blend(r + ys.first[oy] * ow, r + ys.second[oy] * ow, at: oy, into: o + oy * ow, count: ow) }
            }
        }
    }
}

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
