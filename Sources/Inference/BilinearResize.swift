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
