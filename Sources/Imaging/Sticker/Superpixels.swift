import Compute
import Foundation

/// SLIC superpixels (Achanta et al., "SLIC Superpixels Compared to State-of-the-Art Superpixel
/// Methods", TPAMI 2012) on the working Lab image, plus the region statistics that region-level
/// saliency needs: mean colour, mean position, size, border contact and the adjacency graph.
///
/// Connectivity is not enforced: a label may own a few stray fragments, which only blurs its mean
/// a little — harmless for saliency, where regions are compared by mean colour.
struct Superpixels {
    let width: Int
    let height: Int
    /// Region index per pixel.
    var labels: [Int32]
    /// Number of regions (some may be empty: `size == 0`).
    var count: Int
    /// Mean L*, a*, b* per region, interleaved.
    var meanLab: [Float]
    /// Mean x, y per region, normalised by the longest side (0...1), interleaved.
    var meanXY: [Float]
    var size: [Int]
    /// Number of the region's pixels on the image border.
    var borderPixels: [Int]
    /// Row-major `count × count` adjacency (4-connected pixel contact).
    var adjacent: [Bool]

    /// - Parameters:
    ///   - regions: desired number of superpixels.
    ///   - compactness: weight of spatial distance against Lab distance (SLIC's m).
    /// - Throws: `CancellationError` between iterations.
    init(_ image: LabImage, regions: Int, compactness: Float = 10, iterations: Int = 5,
         on loop: some ParallelLoop) throws {
        let w = image.width, h = image.height, n = w * h
        width = w; height = h
        let step = max(2, Int((Double(n) / Double(max(1, regions))).squareRoot().rounded()))
        let gx = max(1, w / step), gy = max(1, h / step)
        let k = gx * gy
        // Centre = (L, a, b, x, y).
        var centres = [Float](repeating: 0, count: 5 * k)
        image.lab.withUnsafeBufferPointer { lab in
            for j in 0..<gy {
                for i in 0..<gx {
                    let x = min(w - 1, (2 * i + 1) * w / (2 * gx)), y = min(h - 1, (2 * j + 1) * h / (2 * gy))
                    let c = j * gx + i, p = y * w + x
                    centres[5 * c] = lab[3 * p]; centres[5 * c + 1] = lab[3 * p + 1]; centres[5 * c + 2] = lab[3 * p + 2]
                    centres[5 * c + 3] = Float(x); centres[5 * c + 4] = Float(y)
                }
            }
        }
        var labels = [Int32](repeating: 0, count: n)
        var best = [Float](repeating: .greatestFiniteMagnitude, count: n)
        let spatial = (compactness / Float(step)) * (compactness / Float(step))
        var sums = [Double](repeating: 0, count: 6 * k)
        for _ in 0..<iterations {
            if loop.isCancelled { throw CancellationError() }
            for i in 0..<n { best[i] = .greatestFiniteMagnitude }
            image.lab.withUnsafeBufferPointer { lab in
                labels.withUnsafeMutableBufferPointer { lbl in
                    best.withUnsafeMutableBufferPointer { bd in
                        for c in 0..<k {
                            let cl = centres[5 * c], ca = centres[5 * c + 1], cb = centres[5 * c + 2]
                            let cx = centres[5 * c + 3], cy = centres[5 * c + 4]
                            let x0 = max(0, Int(cx) - step), x1 = min(w - 1, Int(cx) + step)
                            let y0 = max(0, Int(cy) - step), y1 = min(h - 1, Int(cy) + step)
                            guard x0 <= x1, y0 <= y1 else { continue }
                            for y in y0...y1 {
                                let dy = Float(y) - cy
                                for x in x0...x1 {
                                    let p = y * w + x
                                    let dl = lab[3 * p] - cl, da = lab[3 * p + 1] - ca, db = lab[3 * p + 2] - cb
                                    let dx = Float(x) - cx
                                    let d = dl * dl + da * da + db * db + spatial * (dx * dx + dy * dy)
                                    if d < bd[p] { bd[p] = d; lbl[p] = Int32(c) }
                                }
                            }
                        }
                    }
                }
            }
            for i in 0..<(6 * k) { sums[i] = 0 }
            image.lab.withUnsafeBufferPointer { lab in
                for y in 0..<h {
                    for x in 0..<w {
                        let p = y * w + x, c = Int(labels[p])
                        sums[6 * c] += Double(lab[3 * p]); sums[6 * c + 1] += Double(lab[3 * p + 1])
                        sums[6 * c + 2] += Double(lab[3 * p + 2])
                        sums[6 * c + 3] += Double(x); sums[6 * c + 4] += Double(y); sums[6 * c + 5] += 1
                    }
                }
            }
            for c in 0..<k where sums[6 * c + 5] > 0 {
                for f in 0..<5 { centres[5 * c + f] = Float(sums[6 * c + f] / sums[6 * c + 5]) }
            }
        }
        self.labels = labels
        count = k
        var meanLab = [Float](repeating: 0, count: 3 * k), meanXY = [Float](repeating: 0, count: 2 * k)
        var size = [Int](repeating: 0, count: k), border = [Int](repeating: 0, count: k)
        var sumsF = [Double](repeating: 0, count: 5 * k)
        var adjacent = [Bool](repeating: false, count: k * k)
        let scale = 1 / Double(max(w, h))
        image.lab.withUnsafeBufferPointer { lab in
            for y in 0..<h {
                for x in 0..<w {
                    let p = y * w + x, c = Int(labels[p])
                    size[c] += 1
                    sumsF[5 * c] += Double(lab[3 * p]); sumsF[5 * c + 1] += Double(lab[3 * p + 1])
                    sumsF[5 * c + 2] += Double(lab[3 * p + 2])
                    sumsF[5 * c + 3] += Double(x) * scale; sumsF[5 * c + 4] += Double(y) * scale
                    if x == 0 || y == 0 || x == w - 1 || y == h - 1 { border[c] += 1 }
                    if x + 1 < w {
                        let d = Int(labels[p + 1])
                        if d != c { adjacent[c * k + d] = true; adjacent[d * k + c] = true }
                    }
                    if y + 1 < h {
                        let d = Int(labels[p + w])
                        if d != c { adjacent[c * k + d] = true; adjacent[d * k + c] = true }
                    }
                }
            }
        }
        for c in 0..<k where size[c] > 0 {
            let s = Double(size[c])
            for f in 0..<3 { meanLab[3 * c + f] = Float(sumsF[5 * c + f] / s) }
            meanXY[2 * c] = Float(sumsF[5 * c + 3] / s); meanXY[2 * c + 1] = Float(sumsF[5 * c + 4] / s)
        }
        self.meanLab = meanLab
        self.meanXY = meanXY
        self.size = size
        self.borderPixels = border
        self.adjacent = adjacent
    }

    /// Euclidean Lab distance between the mean colours of regions `i` and `j`.
    @inline(__always)
    func colourDistance(_ i: Int, _ j: Int) -> Float {
        let dl = meanLab[3 * i] - meanLab[3 * j], da = meanLab[3 * i + 1] - meanLab[3 * j + 1]
        let db = meanLab[3 * i + 2] - meanLab[3 * j + 2]
        return (dl * dl + da * da + db * db).squareRoot()
    }
}
