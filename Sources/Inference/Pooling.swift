import CKernels

/// 2x2 max pooling, stride 2, ceil mode: an odd last row or column pools what it has.
enum Pooling {
    /// - Parameter out: `x`'s channels at half its size, rounded up.
    static func maxPool2x2(_ x: TensorView, into out: TensorView) {
        precondition(out.height == (x.height + 1) / 2 && out.width == (x.width + 1) / 2, "the plan sizes a pool's output")
        for c in 0..<x.channels { ck_max_pool_2x2(x.plane(c), x.height, x.width, out.plane(c)) }
    }
}
