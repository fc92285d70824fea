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
        func taps(_ n: Int, _ inN: Int) -> [(Int, Int, Float)] {
            (0..<n).map { i in
                let s = n > 1 ? (Float(i) + 0.5) * Float(inN) / Float(n) - 0.5 : 0
                let c = min(max(s, 0), Float(inN - 1))
                let i0 = Int(c), i1 = min(i0 + 1, inN - 1)
                return (i0, i1, c - Float(i0))
            }
        }
        let ys = taps(oh, h), xs = taps(ow, w)
        // Separable: each source row interpolated along x once (into `rows`), then every output row
        // is a blend of two of them (contiguous, vectorised). The same arithmetic as blending four
        // taps per pixel, so the same values.
        var rows = [Float](repeating: 0, count: h * ow)
        rows.withUnsafeMutableBufferPointer { rows in
            let r = rows.baseAddress!
            for c in 0..<x.channels {
                let s = x.plane(c), o = out.plane(c)
                for y in 0..<h {
                    let src = s + y * w, dst = r + y * ow
                    for (ox, (x0, x1, fx)) in xs.enumerated() { dst[ox] = src[x0] + (src[x1] - src[x0]) * fx }
                }
                for (oy, (y0, y1, fy)) in ys.enumerated() {
                    let top = r + y0 * ow, bottom = r + y1 * ow, dst = o + oy * ow
                    for ox in 0..<ow { dst[ox] = top[ox] + (bottom[ox] - top[ox]) * fy }
                }
            }
        }
    }
}
