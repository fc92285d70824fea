import Compute
import CKernels
import Foundation

/// A bottom-up saliency prior on the working image, after Zhang et al., "Minimum Barrier Salient
/// Object Detection at 80 FPS" (ICCV 2015):
/// - minimum-barrier distance of every pixel to the image border (a region that is separated from the
///   border by a colour "barrier" is likely an object), computed per Lab channel by raster scanning
///   and, when given, per `TextureFeatures` channel;
/// - a backgroundness cue: Mahalanobis colour distance to each of the four border strips, summed
///   without the strip that differs most (the subject may touch one side);
/// - a centre bias.
/// Values are normalised to 0...1; `threshold` is Otsu's split of them.
struct SaliencyMap {
    let width: Int
    let height: Int
    var values: [Float]
    /// Otsu threshold of `values`.
    var threshold: Float
    /// Largest raw barrier distance (Lab units) before normalisation: near zero means no structure.
    var rawStrength: Float

    /// A map from given values (0...1), such as a learned subject map blended with a classical one.
    init(values: [Float], width: Int, height: Int) {
        self.width = width
        self.height = height
        self.values = values
        threshold = SaliencyMap.otsu(values)
        rawStrength = 1
    }

    /// - Parameter regionWeight: weight (0...1) of `RobustBackgroundSaliency` blended into the map after
    ///   the MBD cues (see `blended(withRegion:weight:)`); 0, the default, skips it entirely. As a
    ///   single map it does not pay off (sticker-dev tuning / held-out half, `photobench sticker
    ///   --split`, one cut: weight 0 → 0.550 / 0.455, 1 → 0.523 / 0.494, ½ → 0.505 / 0.478);
    ///   `StickerExtractor` instead cuts each map separately and keeps their consensus.
    /// - Parameters:
    ///   - texture: `TextureFeatures.values` of `image`, or nil for colour alone.
    ///   - textureWeight: each texture channel, times this weight, adds its own minimum-barrier
    ///     distance to the three Lab ones, so a region fenced off from the border by a change of
    ///     texture (rather than of colour) also stands out. `rawStrength` stays colour-only.
    ///   - focus: `FocusFeatures.values` of `image` (one value per pixel), or nil.
    ///   - focusWeight: the focus map, times this weight, adds one more minimum-barrier distance, so a
    ///     sharp subject over a defocused background stands out even where their colours match.
    /// - Throws: `CancellationError` between the passes.
    init(_ image: LabImage, regionWeight: Float = 0, texture: [Float]? = nil, textureWeight: Float = 0,
         focus: [Float]? = nil, focusWeight: Float = 0, on loop: some ParallelLoop) throws {
        let w = image.width, h = image.height, n = w * h
        width = w; height = h
        // The channels' minimum-barrier distances, each a raster scan of its own, at once where the pool has
        // idle threads (`loop`), then summed in the channels' order: the three Lab ones
        // (each after a 3×3 mean: single noisy pixels would otherwise raise barriers inside textures), then the
        // texture ones (already box-smoothed by construction) and the focus one (smooth by construction:
        // pooled and spread by FocusFeatures).
        let useTexture = texture.map { $0.count == 3 * n } == true && textureWeight > 0
        let useFocus = focus.map { $0.count == n } == true && focusWeight > 0
        let channels = 3 + (useTexture ? 3 : 0) + (useFocus ? 1 : 0)
        let prepared = SpreadResults<[Float]>(count: channels)
        try loop.forEach(channels) { _, k in
            try loop.checkCancellation()
            var channel = [Float](repeating: 0, count: n)
            switch k {
            case 0..<3:
                image.lab.withUnsafeBufferPointer { lab in for i in 0..<n { channel[i] = lab[3 * i + k] } }
                channel = MaskUpsampler.boxMean(channel, w, h, 1)
            case 3..<6 where useTexture:
                texture!.withUnsafeBufferPointer { t in
                    for i in 0..<n { channel[i] = textureWeight * t[3 * i + k - 3] }
                }
            default:
                for i in 0..<n { channel[i] = focusWeight * focus![i] }
            }
            prepared.set(k, channel)
        }
        try loop.checkCancellation()
        let sums = SaliencyMap.barrierDistanceSums(prepared.take(), colourChannels: 3, width: w, height: h)
        var mbd = sums.all
        rawStrength = sums.colour.max() ?? 0
        if loop.isCancelled { throw CancellationError() }
        SaliencyMap.normalise(&mbd)
        var back = SaliencyMap.backgroundness(image)
        SaliencyMap.normalise(&back)
        let bias = SaliencyMap.centreBias(width: w, height: h)
        var s = [Float](repeating: 0, count: n)
        for i in 0..<n { s[i] = (mbd[i] + back[i]) * bias[i] }
        // Regional smoothing (a box of ~4% of the image, in the spirit of MBD+'s morphological
        // smoothing) so the split follows regions rather than texture. Measured on sticker-dev:
        // 2% → 0.487, 4% → 0.499, 7% → 0.481 mean IoU; the gain is small and the optimum flat.
        let r = max(1, Int(Float(max(w, h)) * 0.04))
        s = MaskUpsampler.boxMean(s, w, h, r)
        SaliencyMap.normalise(&s)
        values = s
        threshold = SaliencyMap.otsu(s)
        if regionWeight > 0 {
            if loop.isCancelled { throw CancellationError() }
            SaliencyMap.blend(&values, region: try RobustBackgroundSaliency(image, on: loop).values, weight: regionWeight,
                              width: w, height: h)
            threshold = SaliencyMap.otsu(values)
        }
    }

    /// This map blended with a region-level saliency map (`RobustBackgroundSaliency.values`, same
    /// size) at `weight` (0...1); the region map gets the same centre bias as the MBD cues, and the
    /// threshold is recomputed. Weight 1 is the centre-biased region map alone.
    func blended(withRegion region: [Float], weight: Float) -> SaliencyMap {
        var out = self
        SaliencyMap.blend(&out.values, region: region, weight: weight, width: width, height: height)
        out.threshold = SaliencyMap.otsu(out.values)
        return out
    }

    /// This map raised to at least `level` × its Otsu threshold (at most 1) wherever `prior` (a
    /// `PersonPrior.map`) is 1: enough to seed the cut there and to tilt its unary term, while the
    /// colour models still place the edge. The threshold is left as it was, so the rest of the map
    /// keeps its split. Levels 1.0 / 1.3 / 1.6 score 0.597 / 0.599 / 0.595 on sticker-dev.
    func raised(by prior: [Float], level: Float = 1.3) -> SaliencyMap {
        var out = self
        let floor = min(1, level * threshold)
        for i in out.values.indices where prior[i] > 0 {
            out.values[i] = max(out.values[i], floor * prior[i])
        }
        return out
    }

    private static func blend(_ values: inout [Float], region: [Float], weight: Float, width w: Int, height h: Int) {
        let alpha = min(1, max(0, weight))
        let bias = centreBias(width: w, height: h)
        for i in 0..<values.count { values[i] = (1 - alpha) * values[i] + alpha * region[i] * bias[i] }
        SaliencyMap.normalise(&values)
    }

    /// The centre bias every cue is weighted with: 1 at the centre falling to 0.5 at the corners.
    private static func centreBias(width w: Int, height h: Int) -> [Float] {
        let cx = Float(w - 1) / 2, cy = Float(h - 1) / 2
        let radius = (cx * cx + cy * cy).squareRoot() + 1e-6
        var bias = [Float](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                let dx = Float(x) - cx, dy = Float(y) - cy
                bias[y * w + x] = 0.5 + 0.5 * (1 - (dx * dx + dy * dy).squareRoot() / radius)
            }
        }
        return bias
    }

    /// Fast minimum-barrier distances to the border seeds of up to eight channels at once, a lane of an eight-float
    /// vector each (CKernels' `ck_barrier_scans`): alternate forward and backward raster scans, each relaxing a pixel
    /// from its two already-visited neighbours (barrier = max − min on the path). Each channel's distances are the
    /// floats of the one-channel scans it replaced (kept in the tests; for finite channels, which these are), in
    /// about the time of one channel (seven channels one at a time took ~24 ms of an undecided 1800x1200 photo's CPU).
    static func barrierDistances(_ channels: [[Float]], width w: Int, height h: Int) -> [[Float]] {
        let n = w * h, count = channels.count
        return barrierScans(channels, width: w, height: h) { u, l in
            // The border's spans are 0; a pixel no path reached keeps the largest float, as the one-channel scans do.
            (0..<count).map { k in (0..<n).map { min(u[8 * $0 + k] - l[8 * $0 + k], .greatestFiniteMagnitude) } }
        }
    }

    /// The sums of `barrierDistances` over the first `colourChannels` channels and over all of them, added in the
    /// channels' order (the same floats as summing the distances), without a plane per channel: the channels are
    /// freed once packed into the scans' lanes, so at most the three planes of lanes are alive (15 MB at 480x320,
    /// where the distances beside their channels added 8.6 MB).
    static func barrierDistanceSums(_ channels: consuming [[Float]], colourChannels: Int, width w: Int, height h: Int)
        -> (colour: [Float], all: [Float]) {
        let n = w * h, count = channels.count
        return barrierScans(channels, width: w, height: h) { u, l in
            var colour = [Float](repeating: 0, count: n), all = [Float](repeating: 0, count: n)
            for i in 0..<n {
                var sum: Float = 0
                for k in 0..<count {
                    sum += min(u[8 * i + k] - l[8 * i + k], .greatestFiniteMagnitude)
                    if k == colourChannels - 1 { colour[i] = sum }
                }
                all[i] = sum
            }
            return (colour, all)
        }
    }

    /// The scans of up to eight channels, a lane each: `read` gets the upper and lower ends of each pixel's
    /// path in lane `k` at `8 * pixel + k` (its distance is their span), before they are freed.
    private static func barrierScans<R>(_ channels: consuming [[Float]], width w: Int, height h: Int,
                                        read: (UnsafePointer<Float>, UnsafePointer<Float>) -> R) -> R {
        precondition(channels.count <= 8 && channels.allSatisfy { $0.count == w * h })
        let n = w * h
        guard n > 0, !channels.isEmpty else {
            let none = UnsafeMutablePointer<Float>.allocate(capacity: 0)
            defer { none.deallocate() }
            return read(none, none)
        }
        // Eight floats a pixel, a channel a lane (lanes without a channel stay zero). No distance plane: a pixel's is
        // the span u - l of its path (three planes of eight floats a pixel, 15 MB at 480x320, instead of four).
        let v = UnsafeMutablePointer<Float>.allocate(capacity: 8 * n)
        v.initialize(repeating: 0, count: 8 * n)
        for (k, channel) in channels.enumerated() {
            channel.withUnsafeBufferPointer { c in for i in 0..<n { v[8 * i + k] = c[i] } }
        }
        channels = []
        let u = UnsafeMutablePointer<Float>.allocate(capacity: 8 * n), l = UnsafeMutablePointer<Float>.allocate(capacity: 8 * n)
        defer { u.deallocate(); l.deallocate() }
        // Inside, a span larger than any path's until a path reaches the pixel; on the border, the pixel's own.
        u.initialize(repeating: .greatestFiniteMagnitude, count: 8 * n)
        l.initialize(repeating: -.greatestFiniteMagnitude, count: 8 * n)
        for y in 0..<h {
            for x in 0..<w where y == 0 || y == h - 1 || x == 0 || x == w - 1 {
                let p = 8 * (y * w + x)
                (u + p).update(from: v + p, count: 8)
                (l + p).update(from: v + p, count: 8)
            }
        }
        ck_barrier_scans(v, w, h, u, l)
        v.deallocate()
        return read(u, l)
    }

    /// Colour distinctness from the border: Mahalanobis distance to each border strip's colour
    /// distribution, normalised per strip, summed, minus the largest (tolerates one touched side).
    static func backgroundness(_ image: LabImage) -> [Float] {
        let w = image.width, h = image.height, n = w * h
        let tw = max(1, w / 10), th = max(1, h / 10)
        let strips: [(x0: Int, y0: Int, x1: Int, y1: Int)] = [
            (0, 0, w, th), (0, h - th, w, h), (0, 0, tw, h), (w - tw, 0, w, h),
        ]
        var total = [Float](repeating: 0, count: n)
        var largest = [Float](repeating: 0, count: n)
        var dist = [Float](repeating: 0, count: n)
        image.lab.withUnsafeBufferPointer { lab in
            total.withUnsafeMutableBufferPointer { total in
                largest.withUnsafeMutableBufferPointer { largest in
                    dist.withUnsafeMutableBufferPointer { dist in
                        for strip in strips {
                            // The strip's colour sums and products, each summed over its pixels in order.
                            var s0 = 0.0, s1 = 0.0, s2 = 0.0
                            var ss00 = 0.0, ss01 = 0.0, ss02 = 0.0, ss11 = 0.0, ss12 = 0.0, ss22 = 0.0
                            var count = 0.0
                            for y in strip.y0..<strip.y1 {
                                for x in strip.x0..<strip.x1 {
                                    let i = 3 * (y * w + x)
                                    let l0 = Double(lab[i]), l1 = Double(lab[i + 1]), l2 = Double(lab[i + 2])
                                    s0 += l0; s1 += l1; s2 += l2
                                    ss00 += l0 * l0; ss01 += l0 * l1; ss02 += l0 * l2
                                    ss11 += l1 * l1; ss12 += l1 * l2; ss22 += l2 * l2
                                    count += 1
                                }
                            }
                            let mean = [s0 / count, s1 / count, s2 / count]
                            // Symmetric: the lower triangle is the upper one (the same products, summed alike).
                            let ss = [ss00, ss01, ss02, ss01, ss11, ss12, ss02, ss12, ss22]
                            var cov = [Double](repeating: 0, count: 9)
                            for a in 0..<3 {
                                for b in 0..<3 { cov[3 * a + b] = ss[3 * a + b] / count - mean[a] * mean[b] }
                            }
                            for a in 0..<3 { cov[4 * a] += 4 } // ridge: flat strips must not blow up
                            let inv = SaliencyMap.invert3(cov).map(Float.init)
                            let i0 = inv[0], i1 = inv[1], i2 = inv[2], i3 = inv[3], i4 = inv[4], i5 = inv[5]
                            let i6 = inv[6], i7 = inv[7], i8 = inv[8]
                            let m0 = Float(mean[0]), m1 = Float(mean[1]), m2 = Float(mean[2])
                            var peak: Float = 1e-6
                            for p in 0..<n {
                                let x = lab[3 * p] - m0, y = lab[3 * p + 1] - m1, z = lab[3 * p + 2] - m2
                                let q = x * (i0 * x + i1 * y + i2 * z) + y * (i3 * x + i4 * y + i5 * z)
                                    + z * (i6 * x + i7 * y + i8 * z)
                                dist[p] = max(0, q).squareRoot()
                                peak = max(peak, dist[p])
                            }
                            for p in 0..<n {
                                let v = dist[p] / peak
                                total[p] += v
                                largest[p] = max(largest[p], v)
                            }
                        }
                    }
                }
            }
        }
        for p in 0..<n { total[p] -= largest[p] }
        return total
    }

    static func invert3(_ m: [Double]) -> [Double] {
        let a00 = m[4] * m[8] - m[5] * m[7], a01 = m[2] * m[7] - m[1] * m[8], a02 = m[1] * m[5] - m[2] * m[4]
        let a10 = m[5] * m[6] - m[3] * m[8], a11 = m[0] * m[8] - m[2] * m[6], a12 = m[2] * m[3] - m[0] * m[5]
        let a20 = m[3] * m[7] - m[4] * m[6], a21 = m[1] * m[6] - m[0] * m[7], a22 = m[0] * m[4] - m[1] * m[3]
        let det = m[0] * a00 + m[1] * a10 + m[2] * a20
        guard abs(det) > 1e-12 else { return [1, 0, 0, 0, 1, 0, 0, 0, 1] }
        return [a00, a01, a02, a10, a11, a12, a20, a21, a22].map { $0 / det }
    }

    /// Rescales to 0...1 (all zeros when constant).
    static func normalise(_ v: inout [Float]) {
        guard let lo = v.min(), let hi = v.max(), hi - lo > 1e-12 else {
            for i in v.indices { v[i] = 0 }
            return
        }
        let scale = 1 / (hi - lo)
        for i in v.indices { v[i] = (v[i] - lo) * scale }
    }

    /// Otsu's threshold of values in 0...1 (64 bins).
    static func otsu(_ v: [Float]) -> Float {
        let bins = 64
        var hist = [Double](repeating: 0, count: bins)
        for x in v { hist[min(bins - 1, max(0, Int(x * Float(bins))))] += 1 }
        let total = Double(v.count)
        var sumAll = 0.0
        for i in 0..<bins { sumAll += Double(i) * hist[i] }
        var best = 0.0, bestT = bins / 2
        var wB = 0.0, sumB = 0.0
        for t in 0..<bins {
            wB += hist[t]
            if wB == 0 { continue }
            let wF = total - wB
            if wF == 0 { break }
            sumB += Double(t) * hist[t]
            let mB = sumB / wB, mF = (sumAll - sumB) / wF
            let between = wB * wF * (mB - mF) * (mB - mF)
            if between > best { best = between; bestT = t }
        }
        return Float(bestT + 1) / Float(bins)
    }
}
