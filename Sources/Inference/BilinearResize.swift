/// Bilinear resampling with PyTorch's half-pixel centres (ONNX `pytorch_half_pixel`, as the export
/// has it): source coordinate `(dst + 0.5) * in / out - 0.5`, clamped to the image.
enum BilinearResize {
    static func resize(_ x: Tensor, height oh: Int, width ow: Int) -> Tensor {
        let h = x.height, w = x.width
        if oh == h && ow == w { return x }
        func taps(_ n: Int, _ inN: Int) -> [(Int, Int, Float)] {
            (0..<n).map { i in
                let s = n > 1 ? (Float(i) + 0.5) * Float(inN) / Float(n) - 0.5 : 0
                let c = min(max(s, 0), Float(inN - 1))
                let i0 = Int(c), i1 = min(i0 + 1, inN - 1)
                return (i0, i1, c - Float(i0))
            }
        }
        let ys = taps(oh, h), xs = taps(ow, w)
        return x.mapPlanes(height: oh, width: ow) { s, o in
            for (oy, (y0, y1, fy)) in ys.enumerated() {
                let r0 = s + y0 * w, r1 = s + y1 * w
                for (ox, (x0, x1, fx)) in xs.enumerated() {
                    let top = r0[x0] + (r0[x1] - r0[x0]) * fx
                    let bottom = r1[x0] + (r1[x1] - r1[x0]) * fx
                    o[oy * ow + ox] = top + (bottom - top) * fy
                }
            }
        }
    }
}
