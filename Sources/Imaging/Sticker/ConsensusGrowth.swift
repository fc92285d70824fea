import Compute
import Foundation

/// Grows the two cuts' consensus back into the subject parts both cuts shaved off near its edge.
///
/// Each saliency-regularised cut loses parts of the subject whose saliency is low (legs, tails,
/// wings, a second figure's edge): the maps are box-smoothed and centre-biased, and the prior then
/// outweighs the colours. The intersection of the two cuts loses the union of both losses. Here the
/// consensus is taken as certain subject, everything farther than `bandWidth` from it as certain
/// background, and a short GrabCut without any saliency prior decides the band in between from colour
/// models fitted on the two certain parts alone. Its smoothness weight is low (a tenth of the main
/// cuts') so thin parts are not cut off for their long outline.
enum ConsensusGrowth {
    /// - Parameters:
    ///   - consensus: binary labelling (1 = subject) at the working size of `work`. An empty one has
    ///     nothing to grow from and is returned as it is.
    ///   - bandWidth: how far (working pixels) the subject may grow.
    /// - Returns: a superset of `consensus`.
    /// - Throws: `CancellationError`.
    static func grow(_ work: LabImage, consensus: [UInt8], bandWidth: Float, on loop: some ParallelLoop) throws -> [UInt8] {
        let n = work.count
        precondition(consensus.count == n)
        if loop.isCancelled { throw CancellationError() }
        let distance = chamferDistance(to: consensus, width: work.width, height: work.height)
        var fixed = [UInt8](repeating: 0, count: n)
        var free = 0
        for p in 0..<n {
            if consensus[p] != 0 { fixed[p] = 1 } else if distance[p] > bandWidth { fixed[p] = 2 } else { free += 1 }
        }
        guard free > 0 else { return consensus }
        var segmenter = GrabCutSegmenter()
        segmenter.iterations = 1
        segmenter.gamma = 5
        segmenter.priorWeight = 0
        let prior = [Float](repeating: 0.5, count: n)
        return try segmenter.segment(work, prior: prior, initial: consensus, fixed: fixed, on: loop)
    }

    /// Chamfer (3-4) approximation of the Euclidean distance, in pixels, from every pixel to the
    /// nearest non-zero pixel of `mask` (two raster passes; ~8% above the true distance at worst).
    static func chamferDistance(to mask: [UInt8], width w: Int, height h: Int) -> [Float] {
        let far = Int32(1 << 28)
        var d = mask.map { $0 != 0 ? Int32(0) : far }
        d.withUnsafeMutableBufferPointer { d in
            for y in 0..<h {
                for x in 0..<w {
                    let p = y * w + x
                    var v = d[p]
                    if x > 0 { v = min(v, d[p - 1] + 3) }
                    if y > 0 {
                        v = min(v, d[p - w] + 3)
                        if x > 0 { v = min(v, d[p - w - 1] + 4) }
                        if x < w - 1 { v = min(v, d[p - w + 1] + 4) }
                    }
                    d[p] = v
                }
            }
            for y in stride(from: h - 1, through: 0, by: -1) {
                for x in stride(from: w - 1, through: 0, by: -1) {
                    let p = y * w + x
                    var v = d[p]
                    if x < w - 1 { v = min(v, d[p + 1] + 3) }
                    if y < h - 1 {
                        v = min(v, d[p + w] + 3)
                        if x < w - 1 { v = min(v, d[p + w + 1] + 4) }
                        if x > 0 { v = min(v, d[p + w - 1] + 4) }
                    }
                    d[p] = v
                }
            }
        }
        return d.map { Float($0) / 3 }
    }
}
