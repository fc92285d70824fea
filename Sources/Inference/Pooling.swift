/// 2x2 max pooling, stride 2, ceil mode: an odd last row or column pools what it has.
enum Pooling {
    /// - Parameter out: `x`'s channels at half its size, rounded up.
    static func maxPool2x2(_ x: TensorView, into out: TensorView) {
        let h = x.height, w = x.width
        let oh = out.height, ow = out.width
        for c in 0..<x.channels {
            let s = x.plane(c), o = out.plane(c)
            for oy in 0..<oh {
                let y0 = 2 * oy, y1 = min(y0 + 1, h - 1)
                for ox in 0..<ow {
                    let x0 = 2 * ox, x1 = min(x0 + 1, w - 1)
                    o[oy * ow + ox] = max(max(s[y0 * w + x0], s[y0 * w + x1]), max(s[y1 * w + x0], s[y1 * w + x1]))
                }
            }
        }
    }
}
