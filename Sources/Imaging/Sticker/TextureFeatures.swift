import Compute
import Foundation

/// Cheap per-pixel texture descriptors of the working image, three channels interleaved like
/// `LabImage.lab`, used by both saliency cues (extra barrier channels, region distances):
/// 0. local standard deviation of L* (box window of radius `radius`),
/// 1. box-smoothed gradient magnitude of L* (central differences),
/// 2. local chroma spread, √(var a* + var b*), in the same window.
/// Each is multiplied by `scale`. At scale 1 all three are in L*/chroma units: a flat region is 0,
/// foliage, gravel or fur at the 200-px working size reach 5–20, about what separates two visibly
/// different colours, so the consumers can weigh them like Lab distances.
struct TextureFeatures {
    let width: Int
    let height: Int
    /// Three values per pixel, interleaved.
    var values: [Float]

    /// - Throws: `CancellationError` between channels.
    init(_ image: LabImage, radius: Int = 2, scale: Float = 1, on loop: some ParallelLoop) throws {
        let w = image.width, h = image.height, n = w * h
        width = w; height = h
        var l = [Float](repeating: 0, count: n), a = l, b = l
        image.lab.withUnsafeBufferPointer { lab in
            for i in 0..<n { l[i] = lab[3 * i]; a[i] = lab[3 * i + 1]; b[i] = lab[3 * i + 2] }
        }
        var grad = [Float](repeating: 0, count: n)
        l.withUnsafeBufferPointer { lp in
            grad.withUnsafeMutableBufferPointer { g in
                for y in 0..<h {
                    let ym = max(0, y - 1), yp = min(h - 1, y + 1)
                    for x in 0..<w {
                        let xm = max(0, x - 1), xp = min(w - 1, x + 1)
                        let gx = lp[y * w + xp] - lp[y * w + xm], gy = lp[yp * w + x] - lp[ym * w + x]
                        g[y * w + x] = 0.5 * (gx * gx + gy * gy).squareRoot()
                    }
                }
            }
        }
        if loop.isCancelled { throw CancellationError() }
        let stdL = TextureFeatures.localDeviation([l], w, h, radius)
        if loop.isCancelled { throw CancellationError() }
        let stdC = TextureFeatures.localDeviation([a, b], w, h, radius)
        let meanGrad = MaskUpsampler.boxMean(grad, w, h, radius)
        var out = [Float](repeating: 0, count: 3 * n)
        for i in 0..<n {
            out[3 * i] = scale * stdL[i]
            out[3 * i + 1] = scale * meanGrad[i]
            out[3 * i + 2] = scale * stdC[i]
        }
        values = out
    }

    /// √(Σ over `channels` of the local variance) in a box of radius `r`.
    private static func localDeviation(_ channels: [[Float]], _ w: Int, _ h: Int, _ r: Int) -> [Float] {
        var total = [Float](repeating: 0, count: w * h)
        for c in channels {
            let mean = MaskUpsampler.boxMean(c, w, h, r)
            let meanSq = MaskUpsampler.boxMean(c.map { $0 * $0 }, w, h, r)
            for i in total.indices { total[i] += max(0, meanSq[i] - mean[i] * mean[i]) }
        }
        return total.map { $0.squareRoot() }
    }
}
