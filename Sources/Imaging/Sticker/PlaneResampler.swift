import Compute

/// Small float-plane resamplers used by the sticker pipeline: an area-average reduction (to build the
/// working copy without aliasing) and a bilinear enlargement (to bring per-pixel coefficients back to
/// full resolution). Kept private to the pipeline so it does not depend on the ops helper's resizer.
enum PlaneResampler {
    /// The area weights for reducing `source` samples to `target` (target ≤ source), flat: output sample `o`
    /// averages source samples `start[o]...` with weights `weights[offset[o]..<offset[o + 1]]`, exactly the
    /// source interval it covers, fractional ends included.
    private struct Footprints {
        var start: [Int] = [], offset: [Int] = [0], weights: [Float] = []

        init(source: Int, target: Int) {
            let scale = Double(source) / Double(target)
            start.reserveCapacity(target)
            offset.reserveCapacity(target + 1)
            for o in 0..<target {
                let lo = Double(o) * scale, hi = min(Double(source), Double(o + 1) * scale)
                let first = Int(lo), last = min(source - 1, Int((hi - 1e-9).rounded(.down)))
                let covers = (first...max(first, last)).map { s in min(hi, Double(s + 1)) - max(lo, Double(s)) }
                let total = covers.reduce(0, +)
                weights += covers.map { Float(Double(Float($0)) / total) }
                start.append(first)
                offset.append(weights.count)
            }
        }
    }

    /// The source bytes and the destination of a `reduce`, shared by the threads of its `spread`.
    ///
    /// `@unchecked Sendable` is sound here: each index of the `spread` writes only its own band of rows of `out`, and
    /// `spread` returns with every helper out of its body before `reduce` returns the destination.
    private struct Planes: @unchecked Sendable {
        let source: UnsafePointer<UInt8>
        let out: UnsafeMutablePointer<Float>
    }

    /// `image` reduced by area averaging so its longest side is at most `maxSide` (never enlarged):
    /// the reduced size and its RGBA samples as floats on the same 0...255 scale.
    /// - Throws: `CancellationError` (checked per band of rows).
    static func reduced(_ image: Image, maxSide: Int, on loop: some ParallelLoop) throws -> (width: Int, height: Int, rgba: [Float]) {
        let scale = min(1.0, Double(maxSide) / Double(max(image.width, image.height)))
        let w = max(1, Int((Double(image.width) * scale).rounded()))
        let h = max(1, Int((Double(image.height) * scale).rounded()))
        if w == image.width && h == image.height { return (w, h, image.pixels.map(Float.init)) }
        let rgba = try image.pixels.withUnsafeBufferPointer {
            try reduce($0, width: image.width, height: image.height, channels: 4, targetWidth: w, targetHeight: h, on: loop)
        }
        return (w, h, rgba)
    }

    /// Area-average reduction of interleaved `channels`-channel 8-bit data to floats (same 0...255 scale), in bands
    /// of output rows spread over the pool's idle threads (the `loop` it is given): each band reduces the
    /// source rows its footprint covers across, then sums them down. Every output sums its footprint in source
    /// order, whatever the split, so the floats do not depend on it; the source rows a band needs are reduced
    /// across in that band (those shared by two bands twice) so no reduced copy of the whole height is ever held (a
    /// 1800x1200 photo's to 1440x960 was 28 MB).
    /// - Precondition: `targetWidth <= width`, `targetHeight <= height`, `channels` 1...4.
    /// - Throws: `CancellationError` (checked per band of rows).
    static func reduce(_ src: UnsafeBufferPointer<UInt8>, width: Int, height: Int, channels c: Int,
                       targetWidth tw: Int, targetHeight th: Int, on loop: some ParallelLoop) throws -> [Float] {
        var out = [Float](repeating: 0, count: tw * c * th)
        try out.withUnsafeMutableBufferPointer { o in
            try reduce(src, width: width, height: height, channels: c, targetWidth: tw, targetHeight: th,
                       into: o.baseAddress!, channels: c, on: loop) { band, count, dst in dst.update(from: band, count: count * c) }
        }
        return out
    }

    /// The luma (``ColorScience/luma601(_:_:_:)`` of the reduced channels, as the caller would compute it from
    /// ``reduce(_:width:height:channels:targetWidth:targetHeight:)``'s output) of RGBA bytes reduced by area: one
    /// float per output pixel, never the four.
    static func reducedLuma(_ src: UnsafeBufferPointer<UInt8>, width: Int, height: Int, targetWidth tw: Int,
                            targetHeight th: Int, on loop: some ParallelLoop) throws -> [Float] {
        var out = [Float](repeating: 0, count: tw * th)
        try out.withUnsafeMutableBufferPointer { o in
            try reduce(src, width: width, height: height, channels: 4, targetWidth: tw, targetHeight: th,
                       into: o.baseAddress!, channels: 1, on: loop) { band, count, dst in
                for i in 0..<count { dst[i] = ColorScience.luma601(band[4 * i], band[4 * i + 1], band[4 * i + 2]) }
            }
        }
        return out
    }

    /// The bands of ``reduce(_:width:height:channels:targetWidth:targetHeight:)``: `store(band, pixels, dst)` turns
    /// a band's reduced pixels (`channels c` floats each) into its rows of `out` (`outChannels` floats a pixel).
    private static func reduce(_ src: UnsafeBufferPointer<UInt8>, width: Int, height: Int, channels c: Int,
                               targetWidth tw: Int, targetHeight th: Int, into out: UnsafeMutablePointer<Float>,
                               channels outChannels: Int, on loop: some ParallelLoop,
                               store: @escaping @Sendable (UnsafePointer<Float>, Int, UnsafeMutablePointer<Float>) -> Void)
        throws {
        precondition((1...4).contains(c) && tw <= width && th <= height && src.count >= width * height * c)
        guard let source = src.baseAddress, tw > 0, th > 0 else { return }
        let fx = Footprints(source: width, target: tw), fy = Footprints(source: height, target: th)
        let stride = tw * c
        let planes = Planes(source: source, out: out)
        let band = 32
        try loop.forEach((th + band - 1) / band) { _, index in
            if loop.isCancelled { throw CancellationError() }
            let oy0 = index * band, oy1 = min(th, oy0 + band)
            // The source rows the band's footprints cover, reduced across.
            let first = fy.start[oy0], end = fy.start[oy1 - 1] + fy.offset[oy1] - fy.offset[oy1 - 1]
            let rows = UnsafeMutablePointer<Float>.allocate(capacity: (end - first + (oy1 - oy0)) * stride)
            defer { rows.deallocate() }
            for y in first..<end {
                Self.across(planes.source + y * width * c, channels: c, fx, into: rows + (y - first) * stride)
            }
            let reduced = rows + (end - first) * stride
            reduced.update(repeating: 0, count: (oy1 - oy0) * stride)
            for oy in oy0..<oy1 {
                let row = reduced + (oy - oy0) * stride
                for k in fy.offset[oy]..<fy.offset[oy + 1] {
                    let w = fy.weights[k], from = rows + (fy.start[oy] + k - fy.offset[oy] - first) * stride
                    for i in 0..<stride { row[i] += w * from[i] }
                }
            }
            store(reduced, (oy1 - oy0) * tw, planes.out + oy0 * tw * outChannels)
        }
    }

    /// One row reduced across: each output pixel's channels are its footprint's weighted sum, a four-lane vector
    /// for four channels (the same products and sums, lane by lane, as one channel at a time).
    @inline(__always)
    private static func across(_ row: UnsafePointer<UInt8>, channels c: Int, _ fx: Footprints,
                               into out: UnsafeMutablePointer<Float>) {
        fx.start.withUnsafeBufferPointer { start in
            fx.offset.withUnsafeBufferPointer { offset in
                fx.weights.withUnsafeBufferPointer { weights in
                    if c == 4 {
                        for ox in 0..<start.count {
                            var acc = SIMD4<Float>()
                            var p = row + 4 * start[ox]
                            for k in offset[ox]..<offset[ox + 1] {
                                acc += weights[k] * SIMD4<Float>(Float(p[0]), Float(p[1]), Float(p[2]), Float(p[3]))
                                p += 4
                            }
                            out[4 * ox] = acc[0]; out[4 * ox + 1] = acc[1]; out[4 * ox + 2] = acc[2]; out[4 * ox + 3] = acc[3]
                        }
                    } else {
                        for ox in 0..<start.count {
                            for ch in 0..<c {
                                var acc: Float = 0
                                var p = row + c * start[ox] + ch
                                for k in offset[ox]..<offset[ox + 1] { acc += weights[k] * Float(p[0]); p += c }
                                out[c * ox + ch] = acc
                            }
                        }
                    }
                }
            }
        }
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
