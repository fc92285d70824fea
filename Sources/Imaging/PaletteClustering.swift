import Compute
import Foundation

/// Weighted clustering of CIELAB histogram bins into palette centres (internal to
/// ``PaletteExtractor``). Per-call state only.
struct PaletteClustering {
    /// Bin colours as (L, a, b, 0).
    private let points: [SIMD4<Double>]
    /// The same colours in ``UniformLab`` coordinates (where k-means and Weiszfeld run).
    private let warped: [SIMD4<Double>]
    /// Cluster in ``UniformLab`` (measured: mean CIEDE2000 5.025 vs 5.034 in plain CIELAB).
    let useWarp = true
    private let weights: [Double]
    private let totalWeight: Double

    /// k-means++ starts; the best (lowest weighted mean distance) is refined.
    let restarts = 6
    let lloydIterations = 24
    let weiszfeldIterations = 12
    let ciede2000Iterations = 3

    init(points: ColorHistogram) {
        var p = [SIMD4<Double>]()
        p.reserveCapacity(points.count)
        for i in 0..<points.count { p.append(SIMD4(points.L[i], points.A[i], points.B[i], 0)) }
        self.points = p
        self.warped = p.map(UniformLab.forward)
        self.weights = points.weight
        self.totalWeight = points.weight.reduce(0, +)
    }

    /// Centres (CIELAB) for at most `k` clusters.
    func solve(k: Int, on loop: some ParallelLoop) throws -> [SIMD4<Double>] {
        if points.count <= k { return points }
        var rng = SplitMix64(seed: 0x5EED_C0105)
        var best: [SIMD4<Double>] = []
        var bestCost = Double.infinity
        for _ in 0..<restarts {
            if loop.isCancelled { throw CancellationError() }
            var centers = seedPlusPlus(k: k, rng: &rng)
            lloyd(&centers)
            let cost = euclideanCost(centers)
            if cost < bestCost { bestCost = cost; best = centers }
        }
        if loop.isCancelled { throw CancellationError() }
        // The geometric-median steps polish the winning start only: run on every start they cost
        // a tenth of a request and left the corpus's mean CIEDE2000 as it was (bench/README.md).
        weiszfeld(&best)
        if useWarp { best = best.map(UniformLab.inverse) }
        refineWithCIEDE2000(&best)
        return best
    }

    /// Converts centres to sRGB, assigns every bin to its nearest (CIEDE2000) palette colour and
    /// returns the non-empty colours sorted by share.
    func finalPalette(centers: [SIMD4<Double>]) -> [PaletteColor] {
        var colors: [RGBA] = []
        var labs: [SIMD4<Double>] = []
        for c in centers {
            let s = ColorScience.srgb(fromLab: c.x, c.y, c.z)
            let rgba = RGBA(r: s.r, g: s.g, b: s.b)
            if colors.contains(rgba) { continue } // two centres collapsed onto one 8-bit colour
            colors.append(rgba)
            let lab = ColorScience.lab(fromSRGB: s.r, s.g, s.b)
            labs.append(SIMD4(lab.L, lab.a, lab.b, 0))
        }
        let candidates = Candidates(labs, warp: useWarp)
        var share = [Double](repeating: 0, count: colors.count)
        for i in points.indices {
            share[nearestByCIEDE2000(i, candidates).index] += weights[i]
        }
        var result: [PaletteColor] = []
        for j in colors.indices where share[j] > 0 {
            result.append(PaletteColor(rgb: colors[j], fraction: share[j] / totalWeight))
        }
        result.sort { $0.fraction != $1.fraction ? $0.fraction > $1.fraction : $0.hex < $1.hex }
        return result
    }

    /// Coordinates the Euclidean steps run in.
    private var space: [SIMD4<Double>] { useWarp ? warped : points }

    // MARK: - Seeding and Lloyd

    /// k-means++: first centre drawn by weight, each next one with probability proportional to
    /// weight x squared distance to the nearest centre so far.
    private func seedPlusPlus(k: Int, rng: inout SplitMix64) -> [SIMD4<Double>] {
        let pts = space
        var centers: [SIMD4<Double>] = []
        centers.append(pts[pick(weights, total: totalWeight, rng: &rng)])
        var d2 = [Double](repeating: 0, count: pts.count)
        var score = [Double](repeating: 0, count: pts.count)
        for i in pts.indices {
            d2[i] = distanceSquared(pts[i], centers[0])
        }
        while centers.count < k {
            var total = 0.0
            for i in pts.indices { score[i] = d2[i] * weights[i]; total += score[i] }
            if total <= 0 { break } // fewer distinct colours than k
            let c = pts[pick(score, total: total, rng: &rng)]
            centers.append(c)
            for i in pts.indices { d2[i] = min(d2[i], distanceSquared(pts[i], c)) }
        }
        return centers
    }

    private func pick(_ scores: [Double], total: Double, rng: inout SplitMix64) -> Int {
        var target = rng.nextUnit() * total
        for i in scores.indices {
            target -= scores[i]
            if target < 0 { return i }
        }
        return scores.count - 1
    }

    /// Weighted Lloyd iterations (minimise weighted squared Euclidean distance in CIELAB).
    private func lloyd(_ centers: inout [SIMD4<Double>]) {
        let pts = space
        let k = centers.count
        var assignment = [Int](repeating: -1, count: pts.count)
        var sums = [SIMD4<Double>](repeating: .zero, count: k)
        var mass = [Double](repeating: 0, count: k)
        for _ in 0..<lloydIterations {
            var changed = false
            for j in 0..<k { sums[j] = .zero; mass[j] = 0 }
            for i in pts.indices {
                let j = nearest(pts[i], centers)
                if j != assignment[i] { assignment[i] = j; changed = true }
                sums[j] += pts[i] * weights[i]
                mass[j] += weights[i]
            }
            for j in 0..<k where mass[j] > 0 { centers[j] = sums[j] / mass[j] }
            if !changed { break }
        }
    }

    /// Weiszfeld steps: move each centre towards the weighted geometric median of its cluster,
    /// which minimises the mean (not squared) distance the palette is judged by.
    private func weiszfeld(_ centers: inout [SIMD4<Double>]) {
        let pts = space
        let k = centers.count
        var sums = [SIMD4<Double>](repeating: .zero, count: k)
        var mass = [Double](repeating: 0, count: k)
        for _ in 0..<weiszfeldIterations {
            for j in 0..<k { sums[j] = .zero; mass[j] = 0 }
            for i in pts.indices {
                let j = nearest(pts[i], centers)
                let d = max(distanceSquared(pts[i], centers[j]).squareRoot(), 0.5)
                let w = weights[i] / d
                sums[j] += pts[i] * w
                mass[j] += w
            }
            for j in 0..<k where mass[j] > 0 { centers[j] = sums[j] / mass[j] }
        }
    }

    /// Iteratively re-weighted updates with CIEDE2000 distances, accepted while the weighted
    /// mean CIEDE2000 decreases.
    private func refineWithCIEDE2000(_ centers: inout [SIMD4<Double>]) {
        let k = centers.count
        var sums = [SIMD4<Double>](repeating: .zero, count: k)
        var mass = [Double](repeating: 0, count: k)
        var cost = Double.infinity
        var previous = centers
        // One more evaluation than updates, so the last update is checked too.
        for iteration in 0...ciede2000Iterations {
            for j in 0..<k { sums[j] = .zero; mass[j] = 0 }
            var total = 0.0
            let candidates = Candidates(centers, warp: useWarp)
            for i in points.indices {
                let (bestJ, bestD) = nearestByCIEDE2000(i, candidates)
                total += bestD * weights[i]
                let w = weights[i] / max(bestD, 0.5)
                sums[bestJ] += points[i] * w
                mass[bestJ] += w
            }
            if total >= cost {
                centers = previous // the last update made things worse: undo it
                break
            }
            cost = total
            if iteration == ciede2000Iterations { break }
            previous = centers
            for j in 0..<k where mass[j] > 0 { centers[j] = sums[j] / mass[j] }
        }
    }

    // MARK: - Distances

    /// Palette colours (CIELAB) and, when clustering in ``UniformLab``, their warped coordinates.
    private struct Candidates {
        let labs: [SIMD4<Double>]
        let warped: [SIMD4<Double>]?
        init(_ labs: [SIMD4<Double>], warp: Bool) {
            self.labs = labs
            warped = warp ? labs.map(UniformLab.forward) : nil
        }
    }

    /// The palette colour nearest to bin `i` by CIEDE2000 and that distance. With the warp, only the
    /// two colours nearest in ``UniformLab`` (whose Euclidean distance follows CIEDE2000) are
    /// compared with CIEDE2000 itself: the formula's trigonometry made the exhaustive comparison
    /// the palette's largest cost, and the nearest colour is practically always among those two.
    private func nearestByCIEDE2000(_ i: Int, _ c: Candidates) -> (index: Int, distance: Double) {
        let p = (points[i].x, points[i].y, points[i].z)
        func d(_ j: Int) -> Double { ColorScience.ciede2000(p, (c.labs[j].x, c.labs[j].y, c.labs[j].z)) }
        guard let warpedCentres = c.warped, c.labs.count > 2 else {
            var best = 0, bestD = Double.infinity
            for j in c.labs.indices {
                let dj = d(j)
                if dj < bestD { bestD = dj; best = j }
            }
            return (best, bestD)
        }
        var first = 0, second = 1
        var d1 = distanceSquared(warped[i], warpedCentres[0]), d2 = distanceSquared(warped[i], warpedCentres[1])
        if d2 < d1 { swap(&first, &second); swap(&d1, &d2) }
        for j in 2..<warpedCentres.count {
            let dj = distanceSquared(warped[i], warpedCentres[j])
            if dj < d1 { second = first; d2 = d1; first = j; d1 = dj } else if dj < d2 { second = j; d2 = dj }
        }
        let a = d(first), b = d(second)
        // Ties go to the lower index, as the exhaustive loop does.
        return b < a || (b == a && second < first) ? (second, b) : (first, a)
    }

    private func euclideanCost(_ centers: [SIMD4<Double>]) -> Double {
        let pts = space
        var total = 0.0
        for i in pts.indices {
            let j = nearest(pts[i], centers)
            total += distanceSquared(pts[i], centers[j]).squareRoot() * weights[i]
        }
        return total
    }

    @inline(__always)
    private func nearest(_ p: SIMD4<Double>, _ centers: [SIMD4<Double>]) -> Int {
        var best = 0, bestD = Double.infinity
        for j in centers.indices {
            let d = distanceSquared(p, centers[j])
            if d < bestD { bestD = d; best = j }
        }
        return best
    }

    @inline(__always)
    private func distanceSquared(_ a: SIMD4<Double>, _ b: SIMD4<Double>) -> Double {
        let d = a - b
        return (d * d).sum()
    }
}
