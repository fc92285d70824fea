import Compute

/// Draws a solid outline of a given width around an RGBA cut-out: the subject's alpha is dilated by
/// an exact Euclidean distance transform (Felzenszwalb & Huttenlocher) and the band is filled with
/// the outline colour *under* the subject, with a one-pixel anti-aliased rim.
public enum StickerOutline {
    /// - Parameters:
    ///   - image: straight-alpha RGBA cut-out; should already carry a transparent margin ≥ `width` + 1.
    ///   - width: outline width in pixels (> 0).
    /// - Throws: `CancellationError`, checked per band of rows.
    public static func apply(to image: inout Image, width: Int, color: RGBA, on loop: some ParallelLoop) throws {
        guard width > 0 else { return }
        let w = image.width, h = image.height
        // Squared distance to the nearest pixel that is at least half covered.
        var f = [Float](repeating: 0, count: w * h)
        image.pixels.withUnsafeBufferPointer { px in
            for i in 0..<(w * h) { f[i] = px[4 * i + 3] >= 128 ? 0 : .infinity }
        }
        try distanceTransform(&f, width: w, height: h, on: loop)
        let limit = Float(width) + 0.5
        let ca = Float(color.a) / 255
        image.pixels.withUnsafeMutableBufferPointer { px in
            for i in 0..<(w * h) {
                let d = f[i].squareRoot()
                let coverage = max(0, min(1, limit - d)) * ca
                guard coverage > 0 else { continue }
                let sa = Float(px[4 * i + 3]) / 255
                let outA = sa + coverage * (1 - sa)
                guard outA > 0 else { continue }
                let under = coverage * (1 - sa)
                px[4 * i] = UInt8(((Float(px[4 * i]) * sa + Float(color.r) * under) / outA).rounded())
                px[4 * i + 1] = UInt8(((Float(px[4 * i + 1]) * sa + Float(color.g) * under) / outA).rounded())
                px[4 * i + 2] = UInt8(((Float(px[4 * i + 2]) * sa + Float(color.b) * under) / outA).rounded())
                px[4 * i + 3] = UInt8(min(255, (outA * 255).rounded()))
            }
        }
    }

    /// In-place exact squared Euclidean distance transform of a sampled function (0 at features,
    /// +∞ elsewhere), separable: columns then rows, each by the lower envelope of parabolas.
    static func distanceTransform(_ f: inout [Float], width w: Int, height h: Int, on loop: some ParallelLoop) throws {
        let n = max(w, h)
        var line = [Float](repeating: 0, count: n), out = line
        var v = [Int](repeating: 0, count: n), z = [Float](repeating: 0, count: n + 1)
        for x in 0..<w {
            for y in 0..<h { line[y] = f[y * w + x] }
            transform1D(line, h, &out, &v, &z)
            for y in 0..<h { f[y * w + x] = out[y] }
        }
        for y in 0..<h {
            if y & 63 == 0 && loop.isCancelled { throw CancellationError() }
            for x in 0..<w { line[x] = f[y * w + x] }
            transform1D(line, w, &out, &v, &z)
            for x in 0..<w { f[y * w + x] = out[x] }
        }
    }

    private static func transform1D(_ f: [Float], _ n: Int, _ d: inout [Float], _ v: inout [Int], _ z: inout [Float]) {
        // Sites with infinite value contribute no parabola; with none at all the result stays infinite.
        var k = -1
        for q in 0..<n where f[q].isFinite {
            let fq = f[q] + Float(q * q)
            if k < 0 {
                k = 0; v[0] = q; z[0] = -.infinity; z[1] = .infinity
                continue
            }
            var s: Float
            repeat {
                let p = v[k]
                s = (fq - (f[p] + Float(p * p))) / Float(2 * (q - p))
                if s <= z[k] { k -= 1 } else { break }
            } while k >= 0
            k += 1
            v[k] = q; z[k] = k == 0 ? -.infinity : s; z[k + 1] = .infinity
        }
        if k < 0 {
            for q in 0..<n { d[q] = .infinity }
            return
        }
        var j = 0
        for q in 0..<n {
            while z[j + 1] < Float(q) { j += 1 }
            let dq = Float(q - v[j])
            d[q] = dq * dq + f[v[j]]
        }
    }
}
