import Compute
import CKernels
import Foundation

/// A defocus cue on the working grid: how sharp the image is around each working pixel, measured on
/// the full-resolution luma (the 200-px working copy has lost most of the blur).
///
/// After Zhuo & Sim, "Defocus map estimation from a single image" (Pattern Recognition 2011): re-blur
/// the luma with a Gaussian of σ₀ and compare gradient energy before and after. An edge blurred by σ
/// keeps the ratio R = |∇I| / |∇(I ∗ G_σ₀)| ≈ √(σ² + σ₀²) / σ, large for a sharp edge and close to 1
/// for a defocused one, whatever the edge's contrast. Gradient energies are summed over each working
/// pixel's footprint and a small window first, so the ratio is a contrast-weighted mean over the
/// edges there (flat areas, which carry no evidence, weigh nothing), then spread into flat areas by
/// normalised convolution with the same weights.
///
/// `values` is log R rescaled per image to 0...1 between robust low and high percentiles of the
/// evidence-weighted values; `spread` is that percentile range in log R and `strength` a 0...1 gate
/// on it, so consumers can scale the cue by `strength` and leave alone photos that are equally sharp
/// (or equally soft) throughout, whose rescaled map is only noise.
struct FocusFeatures {
    let width: Int
    let height: Int
    /// Sharpness per working pixel, 0 (most defocused in this image) ... 1 (sharpest).
    var values: [Float]
    /// Unnormalised log R per working pixel (for diagnostics and tests).
    var logRatio: [Float]
    /// Range of log R between the 10th and 90th evidence-weighted percentiles.
    var spread: Float
    /// How much to trust `values`: 0 up to a spread of 0.3, rising linearly to 1 at 0.4. On
    /// sticker-dev (481×321 photos) spreads run from 0.24 and 0.35 (trees against a night sky, a
    /// close portrait: in focus throughout) to 0.79 (an otter before a blurred bank). With the
    /// extractor's channel at weight 40, gates starting at 0.25 / 0.3 / 0.35 / 0.4 scored 0.626 /
    /// 0.627 / 0.629 / 0.626 on the tuning half, 0.474 / 0.474 / 0.472 / 0.470 held out; no gate
    /// (scaling by spread / 0.3, with energy-weighted percentiles) cost 0.009 held out, on the photos
    /// in focus throughout.
    var strength: Float { min(1, max(0, (spread - 0.3) / 0.1)) }

    /// - Parameters:
    ///   - image: the source photo.
    ///   - width, height: the working grid (`LabImage` size).
    ///   - maxScale: the luma is analysed at full resolution when that is at most this many times the
    ///     working size, otherwise area-reduced to it (blur survives a 2–3× reduction; larger photos
    ///     would cost time for nothing).
    ///   - sigma: σ₀ of the re-blur, in analysed pixels.
    ///   - radius: working-pixel window of the local estimate.
    ///   - spreadRadius: working-pixel window over which the estimate spreads into areas without edges.
    ///   The defaults scored best on the sticker-dev tuning half (MBD channel only: 0.621; σ₀ 1.5 / 2,
    ///   radius 1 / 4, spreadRadius 4 / 14 gave 0.611–0.620).
    /// - Throws: `CancellationError` per band of rows.
    init(_ image: Image, width: Int, height: Int, maxScale: Double = 3, sigma: Float = 1, radius: Int = 2,
         spreadRadius: Int = 8, on loop: some ParallelLoop) throws {
        self.width = width; self.height = height
        let n = width * height
        let iw = image.width, ih = image.height
        let scale = min(1, maxScale * Double(max(width, height)) / Double(max(iw, ih)))
        let fw = min(iw, max(width, Int((Double(iw) * scale).rounded())))
        let fh = min(ih, max(height, Int((Double(ih) * scale).rounded())))
        // Luma in 0...255 at the analysis size.
        let luma: [Float]
        if fw == iw && fh == ih {
            luma = image.pixels.withUnsafeBufferPointer { px in
                (0..<(fw * fh)).map { i in ColorScience.luma601(Float(px[4 * i]), Float(px[4 * i + 1]), Float(px[4 * i + 2])) }
            }
        } else {
            luma = try image.pixels.withUnsafeBufferPointer {
                try PlaneResampler.reducedLuma($0, width: iw, height: ih, targetWidth: fw, targetHeight: fh, on: loop)
            }
        }
        if loop.isCancelled { throw CancellationError() }
        let blurred = try FocusFeatures.gaussian(luma, fw, fh, sigma: sigma, on: loop)
        // Gradient energy of both, summed over each working pixel's footprint.
        var sharpSum = [Float](repeating: 0, count: n), softSum = sharpSum
        let band = 32
        try luma.withUnsafeBufferPointer { l in
            try blurred.withUnsafeBufferPointer { b in
                try sharpSum.withUnsafeMutableBufferPointer { s0 in
                    try softSum.withUnsafeMutableBufferPointer { s1 in
                        var xmap = [Int](repeating: 0, count: fw)
                        for x in 0..<fw { xmap[x] = min(width - 1, x * width / fw) }
                        for y in 0..<fh {
                            if y % band == 0, loop.isCancelled { throw CancellationError() }
                            let ym = max(0, y - 1), yp = min(fh - 1, y + 1)
                            let row = min(height - 1, y * height / fh) * width
                            for x in 0..<fw {
                                let xm = max(0, x - 1), xp = min(fw - 1, x + 1)
                                let gx = l[y * fw + xp] - l[y * fw + xm], gy = l[yp * fw + x] - l[ym * fw + x]
                                let bx = b[y * fw + xp] - b[y * fw + xm], by = b[yp * fw + x] - b[ym * fw + x]
                                let o = row + xmap[x]
                                s0[o] += gx * gx + gy * gy
                                s1[o] += bx * bx + by * by
                            }
                        }
                    }
                }
            }
        }
        if loop.isCancelled { throw CancellationError() }
        // Noise floor: a few grey levels of gradient per analysed pixel. Sensor and JPEG noise in flat
        // areas is "sharp" by the ratio but carries no evidence: the weights are the re-blurred energy
        // (which the re-blur has mostly removed from noise) and vanish below the floor.
        let footprint = Float(fw * fh) / Float(n)
        let floor: Float = 4 * 4 * footprint
        let s0 = MaskUpsampler.boxMean(sharpSum, width, height, radius)
        let s1 = MaskUpsampler.boxMean(softSum, width, height, radius)
        var local = [Float](repeating: 0, count: n), weight = local
        for i in 0..<n {
            local[i] = 0.5 * logf((s0[i] + 0.1 * floor) / (s1[i] + 0.1 * floor))
            weight[i] = s1[i] * s1[i] / (s1[i] + floor)
        }
        if loop.isCancelled { throw CancellationError() }
        // Normalised convolution: where there are edges, the local estimate; elsewhere, the
        // evidence-weighted mean of the neighbourhood. The handover at 4× the noise floor scored
        // best on the sticker-dev tuning half (1×, 16×, 64× lower).
        let wl = MaskUpsampler.boxMean(zip(local, weight).map { $0 * $1 }, width, height, spreadRadius)
        let ww = MaskUpsampler.boxMean(weight, width, height, spreadRadius)
        var ratio = [Float](repeating: 0, count: n), evidence = ratio
        for i in 0..<n {
            let alpha = s1[i] / (s1[i] + 4 * floor)
            let around = ww[i] > 1e-6 ? wl[i] / ww[i] : 0
            ratio[i] = alpha * local[i] + (1 - alpha) * around
            evidence[i] = weight[i].squareRoot()
        }
        logRatio = ratio
        // Percentiles weighted by the square root of the evidence (the re-blurred gradient magnitude
        // rather than its energy), so a high-contrast sharp subject does not hide a softer background
        // of lower contrast: with energy weights a half-sharp, half-blurred texture measured a spread
        // of 0.22 and was gated off. On sticker-dev (channel weight 40): energy 0.625 / 0.479 / 0.552,
        // magnitude 0.626 / 0.474 / 0.550, each pixel once (s1 / (s1 + 4 floor)) 0.628 / 0.472 / 0.550
        // with a gate that no longer separates anything.
        let (lo, hi) = FocusFeatures.percentiles(ratio, weights: evidence, low: 0.1, high: 0.9)
        spread = max(0, hi - lo)
        let inv = spread > 1e-6 ? 1 / spread : 0
        values = ratio.map { min(1, max(0, ($0 - lo) * inv)) }
    }

    /// Separable Gaussian (radius 3σ, clamped edges).
    static func gaussian(_ v: [Float], _ w: Int, _ h: Int, sigma: Float, on loop: some ParallelLoop) throws -> [Float] {
        let r = max(1, Int((3 * sigma).rounded(.up)))
        var k = (-r...r).map { expf(-Float($0 * $0) / (2 * sigma * sigma)) }
        let total = k.reduce(0, +)
        k = k.map { $0 / total }
        var tmp = [Float](repeating: 0, count: w * h), out = tmp
        // Bands of 32 rows between cancellation checks; each row summed as the definition reads (CKernels).
        let band = 32
        try v.withUnsafeBufferPointer { src in
            try tmp.withUnsafeMutableBufferPointer { t in
                for y in stride(from: 0, to: h, by: band) {
                    if loop.isCancelled { throw CancellationError() }
                    ck_blur_rows(src.baseAddress, w, y, min(h, y + band), k, r, t.baseAddress)
                }
            }
        }
        try tmp.withUnsafeBufferPointer { t in
            try out.withUnsafeMutableBufferPointer { o in
                for y in stride(from: 0, to: h, by: band) {
                    if loop.isCancelled { throw CancellationError() }
                    ck_blur_columns(t.baseAddress, w, h, y, min(h, y + band), k, r, o.baseAddress)
                }
            }
        }
        return out
    }

    /// Weighted low and high percentiles of `v` (exact: a sort of the working grid's values, about a
    /// millisecond; a 1024-bin histogram moved the sticker-dev tuning half by 0.008, the cue's noise level).
    static func percentiles(_ v: [Float], weights: [Float], low: Float, high: Float) -> (Float, Float) {
        let order = ascendingOrder(v)
        let total = order.reduce(Float(0)) { $0 + weights[$1] }
        guard total > 0, let first = order.first, let last = order.last else { return (0, 0) }
        var acc: Float = 0
        var lo: Float? = nil
        for i in order {
            acc += weights[i]
            if lo == nil && acc >= low * total { lo = v[i] }
            if acc >= high * total { return (lo ?? v[i], v[i]) }
        }
        return (lo ?? v[first], v[last])
    }

    /// The indices of `v` in ascending order of value, equal values (-0 and +0 among them) in the order of their
    /// indices: the order a stable sort by `<` gives, by a radix sort of the values' bits (two passes of 16 bits;
    /// the comparison sort of (value, weight) pairs took ~8 ms of an undecided 1800x1200 photo). Values with a NaN
    /// fall back to that sort.
    static func ascendingOrder(_ v: [Float]) -> [Int] {
        guard !v.contains(where: \.isNaN) else { return v.indices.sorted { v[$0] < v[$1] } }
        // Bits that order as the floats do: negatives inverted, positives above them; -0 as +0.
        let keys = v.map { x -> UInt32 in
            let bits = x == 0 ? 0 : x.bitPattern
            return bits & 0x8000_0000 != 0 ? ~bits : bits | 0x8000_0000
        }
        var order = [Int](v.indices), next = order
        var counts = [Int](repeating: 0, count: 1 << 16)
        for shift: UInt32 in [0, 16] {
            for i in counts.indices { counts[i] = 0 }
            for key in keys { counts[Int((key >> shift) & 0xFFFF)] += 1 }
            var start = 0
            for digit in counts.indices { (counts[digit], start) = (start, start + counts[digit]) }
            for i in order {
                let digit = Int((keys[i] >> shift) & 0xFFFF)
                next[counts[digit]] = i
                counts[digit] += 1
            }
            swap(&order, &next)
        }
        return order
    }
}
