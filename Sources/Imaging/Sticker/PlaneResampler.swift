/// Small float-plane resamplers used by the sticker pipeline: an area-average reduction (to build the
/// working copy without aliasing) and a bilinear enlargement (to bring per-pixel coefficients back to
/// full resolution). Kept private to the pipeline so it does not depend on the ops helper's resizer.
enum PlaneResampler {
    /// One output sample's footprint on the source axis: first source index and the weights that follow.
    private struct Footprint { var start: Int; var weights: [Float] }

    /// Area weights for reducing `source` samples to `target` (target ≤ source): every output sample
    /// averages exactly the source interval it covers, fractional ends included.
    private static func footprints(source: Int, target: Int) -> [Footprint] {
        let scale = Double(source) / Double(target)
        var result: [Footprint] = []
        result.reserveCapacity(target)
        for o in 0..<target {
            let lo = Double(o) * scale, hi = min(Double(source), Double(o + 1) * scale)
            let first = Int(lo), last = min(source - 1, Int((hi - 1e-9).rounded(.down)))
            var w: [Float] = []
            var total = 0.0
            for s in first...max(first, last) {
                let cover = min(hi, Double(s + 1)) - max(lo, Double(s))
                w.append(Float(cover)); total += cover
            }
            for i in w.indices { w[i] = Float(Double(w[i]) / total) }
            result.append(Footprint(start: first, weights: w))
        }
        return result
    }

    /// `image` reduced by area averaging so its longest side is at most `maxSide` (never enlarged):
    /// the reduced size and its RGBA samples as floats on the same 0...255 scale.
    static func reduced(_ image: Image, maxSide: Int) -> (width: Int, height: Int, rgba: [Float]) {
        let scale = min(1.0, Double(maxSide) / Double(max(image.width, image.height)))
        let w = max(1, Int((Double(image.width) * scale).rounded()))
        let h = max(1, Int((Double(image.height) * scale).rounded()))
        if w == image.width && h == image.height { return (w, h, image.pixels.map(Float.init)) }
        let rgba = image.pixels.withUnsafeBufferPointer {
            reduce($0, width: image.width, height: image.height, channels: 4, targetWidth: w, targetHeight: h)
        }
        return (w, h, rgba)
    }

    /// Area-average reduction of interleaved `channels`-channel 8-bit data to floats (same 0...255 scale).
    /// The horizontal pass reads the bytes directly so a large photo is never expanded to floats whole.
    /// - Precondition: `targetWidth <= width`, `targetHeight <= height`.
    static func reduce(_ src: UnsafeBufferPointer<UInt8>, width: Int, height: Int, channels c: Int,
                       targetWidth tw: Int, targetHeight th: Int) -> [Float] {
        let fx = footprints(source: width, target: tw), fy = footprints(source: height, target: th)
        var rows = [Float](repeating: 0, count: tw * height * c)
        rows.withUnsafeMutableBufferPointer { r in
            for y in 0..<height {
                let srow = y * width * c, drow = y * tw * c
                for (ox, f) in fx.enumerated() {
                    for ch in 0..<c {
                        var acc: Float = 0
                        for (k, w) in f.weights.enumerated() { acc += w * Float(src[srow + (f.start + k) * c + ch]) }
                        r[drow + ox * c + ch] = acc
                    }
                }
            }
        }
        var out = [Float](repeating: 0, count: tw * th * c)
        out.withUnsafeMutableBufferPointer { o in
            rows.withUnsafeBufferPointer { r in
                let stride = tw * c
                for (oy, f) in fy.enumerated() {
                    let drow = oy * stride
                    for (k, w) in f.weights.enumerated() {
                        let srow = (f.start + k) * stride
                        for i in 0..<stride { o[drow + i] += w * r[srow + i] }
                    }
                }
            }
        }
        return out
    }

    /// Bilinear enlargement of a plane with pixel-centre alignment (edges clamp), one output row at a
    /// time so a full-size float plane never has to exist. Per-column source indices and weights are
    /// precomputed, so each output sample is four loads and three lerps.
    struct RowEnlarger {
        let width: Int
        let height: Int
        /// Per output column: the two source columns and the weight of the second.
        let x0: [Int], x1: [Int], wx: [Float]
        private let sy: Float

        init(width: Int, height: Int, targetWidth tw: Int, targetHeight th: Int) {
            self.width = width
            self.height = height
            let sx = Float(width) / Float(tw)
            sy = Float(height) / Float(th)
            var x0 = [Int](repeating: 0, count: tw), x1 = x0, wx = [Float](repeating: 0, count: tw)
            for x in 0..<tw {
                let f = max(0, (Float(x) + 0.5) * sx - 0.5)
                let i = min(width - 1, Int(f))
                x0[x] = i; x1[x] = min(width - 1, i + 1); wx[x] = f - Float(i)
            }
            self.x0 = x0; self.x1 = x1; self.wx = wx
        }

        /// Output row `y`'s two source rows (as offsets into the plane) and the weight of the second.
        func rows(_ y: Int) -> (r0: Int, r1: Int, wy: Float) {
            let f = max(0, (Float(y) + 0.5) * sy - 0.5)
            let j0 = min(height - 1, Int(f)), j1 = min(height - 1, j0 + 1)
            return (j0 * width, j1 * width, f - Float(j0))
        }

        /// Writes output row `y` of the enlarged `src` into `out` (`targetWidth` samples).
        func row(_ y: Int, of src: UnsafeBufferPointer<Float>, into out: inout [Float]) {
            let (r0, r1, wy) = rows(y)
            out.withUnsafeMutableBufferPointer { o in
                for x in 0..<o.count {
                    let a = src[r0 + x0[x]] + (src[r0 + x1[x]] - src[r0 + x0[x]]) * wx[x]
                    let b = src[r1 + x0[x]] + (src[r1 + x1[x]] - src[r1 + x0[x]]) * wx[x]
                    o[x] = a + (b - a) * wy
                }
            }
        }
    }
}
