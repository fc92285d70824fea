import Foundation

/// A mixture of full-covariance Gaussians over CIELAB colours, learnt GrabCut-style: k-means seeds
/// the components, then each GrabCut iteration assigns every pixel to its most likely component and
/// re-estimates the parameters from those assignments (hard EM, as in Rother et al. 2004).
struct GaussianMixtureModel {
    let componentCount: Int
    /// Mixing weight per component.
    private(set) var weights: [Float]
    /// Mean, 3 per component.
    private(set) var means: [Float]
    /// Inverse covariance, 9 per component (row-major, symmetric).
    private var inverses: [Float]
    /// log(weight) − ½·log det Σ − 1.5·log 2π per component, so the log density is this minus ½·Mahalanobis².
    private var logNorms: [Float]

    /// Regularisation added to every covariance diagonal (in Lab units²) so a flat region cannot make
    /// a component singular.
    static let ridge: Float = 4.0

    /// - Precondition: `1...8` components (the likelihood evaluation keeps them on the stack).
    init(componentCount: Int) {
        precondition((1...8).contains(componentCount), "1...8 mixture components")
        self.componentCount = componentCount
        weights = [Float](repeating: 0, count: componentCount)
        means = [Float](repeating: 0, count: componentCount * 3)
        inverses = [Float](repeating: 0, count: componentCount * 9)
        logNorms = [Float](repeating: -.infinity, count: componentCount)
    }

    /// True when no component has any sample.
    var isEmpty: Bool { !weights.contains { $0 > 0 } }

    /// Log density of the best component (used for hard assignment) and the index of that component.
    @inline(__always)
    func bestComponent(_ l: Float, _ a: Float, _ b: Float) -> Int {
        var best = 0
        var bestValue = -Float.infinity
        for k in 0..<componentCount where weights[k] > 0 {
            let v = componentLogDensity(k, l, a, b)
            if v > bestValue { bestValue = v; best = k }
        }
        return best
    }

    @inline(__always)
    private func componentLogDensity(_ k: Int, _ l: Float, _ a: Float, _ b: Float) -> Float {
        let x = l - means[3 * k], y = a - means[3 * k + 1], z = b - means[3 * k + 2]
        let m = 9 * k
        let q = x * (inverses[m] * x + 2 * (inverses[m + 1] * y + inverses[m + 2] * z))
            + y * (inverses[m + 4] * y + 2 * inverses[m + 5] * z)
            + z * inverses[m + 8] * z
        return logNorms[k] - 0.5 * q
    }

    /// −log p(colour) under the whole mixture (log-sum-exp over components).
    @inline(__always)
    func negativeLogLikelihood(_ l: Float, _ a: Float, _ b: Float) -> Float {
        var maxV = -Float.infinity
        var values = (Float(0), Float(0), Float(0), Float(0), Float(0), Float(0), Float(0), Float(0))
        withUnsafeMutableBytes(of: &values) { raw in
            let v = raw.bindMemory(to: Float.self)
            for k in 0..<min(componentCount, 8) {
                v[k] = weights[k] > 0 ? componentLogDensity(k, l, a, b) : -.infinity
                maxV = max(maxV, v[k])
            }
            var sum: Float = 0
            for k in 0..<min(componentCount, 8) where v[k] > -.infinity { sum += expf(v[k] - maxV) }
            maxV += logf(sum)
        }
        return -maxV
    }

    /// Seeds the components by k-means (k-means++ start with a fixed seed, a few Lloyd iterations on
    /// at most `sampleLimit` pixels), then fits every component on its cluster.
    /// - Parameters:
    ///   - lab: interleaved Lab samples.
    ///   - members: indices of the pixels belonging to this model.
    ///   - assignment: per-pixel component index, written for `members`.
    mutating func initialise(lab: UnsafeBufferPointer<Float>, members: [Int32], assignment: UnsafeMutableBufferPointer<UInt8>) {
        guard !members.isEmpty else { self = GaussianMixtureModel(componentCount: componentCount); return }
        let k = min(componentCount, members.count)
        // Deterministic subsample.
        let sampleLimit = 4000
        let step = max(1, members.count / sampleLimit)
        var samples: [Int32] = []
        samples.reserveCapacity(members.count / step + 1)
        var i = 0
        while i < members.count { samples.append(members[i]); i += step }
        // k-means++ seeding with a small LCG so runs are reproducible.
        var rng: UInt64 = 0x9E3779B97F4A7C15
        func next() -> Double {
            rng = rng &* 6364136223846793005 &+ 1442695040888963407
            return Double(rng >> 11) / Double(1 << 53)
        }
        var centres = [Float](repeating: 0, count: k * 3)
        let first = Int(samples[samples.count / 2])
        for c in 0..<3 { centres[c] = lab[3 * first + c] }
        var d2 = [Float](repeating: .greatestFiniteMagnitude, count: samples.count)
        for c in 1..<max(1, k) where c < k {
            var total: Double = 0
            for (si, s) in samples.enumerated() {
                let p = Int(s)
                let x = lab[3 * p] - centres[3 * (c - 1)], y = lab[3 * p + 1] - centres[3 * (c - 1) + 1]
                let z = lab[3 * p + 2] - centres[3 * (c - 1) + 2]
                d2[si] = min(d2[si], x * x + y * y + z * z)
                total += Double(d2[si])
            }
            var target = next() * total
            var chosen = samples.count - 1
            for si in 0..<samples.count {
                target -= Double(d2[si])
                if target <= 0 { chosen = si; break }
            }
            let p = Int(samples[chosen])
            for ch in 0..<3 { centres[3 * c + ch] = lab[3 * p + ch] }
        }
        // Lloyd iterations on the subsample.
        var sums = [Double](repeating: 0, count: k * 3)
        var counts = [Int](repeating: 0, count: k)
        for _ in 0..<6 {
            for j in sums.indices { sums[j] = 0 }
            for j in counts.indices { counts[j] = 0 }
            for s in samples {
                let p = Int(s)
                let c = GaussianMixtureModel.nearest(lab[3 * p], lab[3 * p + 1], lab[3 * p + 2], centres, k)
                counts[c] += 1
                for ch in 0..<3 { sums[3 * c + ch] += Double(lab[3 * p + ch]) }
            }
            for c in 0..<k where counts[c] > 0 {
                for ch in 0..<3 { centres[3 * c + ch] = Float(sums[3 * c + ch] / Double(counts[c])) }
            }
        }
        for m in members {
            let p = Int(m)
            assignment[p] = UInt8(GaussianMixtureModel.nearest(lab[3 * p], lab[3 * p + 1], lab[3 * p + 2], centres, k))
        }
        fit(lab: lab, members: members, assignment: UnsafeBufferPointer(assignment))
    }

    @inline(__always)
    private static func nearest(_ l: Float, _ a: Float, _ b: Float, _ centres: [Float], _ k: Int) -> Int {
        var best = 0
        var bestD = Float.greatestFiniteMagnitude
        for c in 0..<k {
            let x = l - centres[3 * c], y = a - centres[3 * c + 1], z = b - centres[3 * c + 2]
            let d = x * x + y * y + z * z
            if d < bestD { bestD = d; best = c }
        }
        return best
    }

    /// Re-assigns `members` to their most likely component (the GrabCut "assign" step).
    func assign(lab: UnsafeBufferPointer<Float>, members: [Int32], assignment: UnsafeMutableBufferPointer<UInt8>) {
        for m in members {
            let p = Int(m)
            assignment[p] = UInt8(bestComponent(lab[3 * p], lab[3 * p + 1], lab[3 * p + 2]))
        }
    }

    /// Maximum-likelihood parameters of each component from the pixels assigned to it.
    mutating func fit(lab: UnsafeBufferPointer<Float>, members: [Int32], assignment: UnsafeBufferPointer<UInt8>) {
        let k = componentCount
        var n = [Double](repeating: 0, count: k)
        var s = [Double](repeating: 0, count: k * 3)
        var ss = [Double](repeating: 0, count: k * 9)
        for m in members {
            let p = Int(m)
            let c = Int(assignment[p])
            let x = Double(lab[3 * p]), y = Double(lab[3 * p + 1]), z = Double(lab[3 * p + 2])
            n[c] += 1
            s[3 * c] += x; s[3 * c + 1] += y; s[3 * c + 2] += z
            ss[9 * c] += x * x; ss[9 * c + 1] += x * y; ss[9 * c + 2] += x * z
            ss[9 * c + 4] += y * y; ss[9 * c + 5] += y * z; ss[9 * c + 8] += z * z
        }
        let total = Double(members.count)
        for c in 0..<k {
            guard n[c] > 0 else { weights[c] = 0; logNorms[c] = -.infinity; continue }
            let mx = s[3 * c] / n[c], my = s[3 * c + 1] / n[c], mz = s[3 * c + 2] / n[c]
            let r = Double(GaussianMixtureModel.ridge)
            let cxx = ss[9 * c] / n[c] - mx * mx + r, cxy = ss[9 * c + 1] / n[c] - mx * my
            let cxz = ss[9 * c + 2] / n[c] - mx * mz, cyy = ss[9 * c + 4] / n[c] - my * my + r
            let cyz = ss[9 * c + 5] / n[c] - my * mz, czz = ss[9 * c + 8] / n[c] - mz * mz + r
            // Inverse of the symmetric 3×3 by cofactors.
            let a00 = cyy * czz - cyz * cyz, a01 = cxz * cyz - cxy * czz, a02 = cxy * cyz - cxz * cyy
            let det = cxx * a00 + cxy * a01 + cxz * a02
            guard det > 1e-9 else { weights[c] = 0; logNorms[c] = -.infinity; continue }
            let a11 = cxx * czz - cxz * cxz, a12 = cxy * cxz - cxx * cyz, a22 = cxx * cyy - cxy * cxy
            let inv = [a00, a01, a02, a01, a11, a12, a02, a12, a22].map { Float($0 / det) }
            for j in 0..<9 { inverses[9 * c + j] = inv[j] }
            means[3 * c] = Float(mx); means[3 * c + 1] = Float(my); means[3 * c + 2] = Float(mz)
            weights[c] = Float(n[c] / total)
            logNorms[c] = Float(log(n[c] / total) - 0.5 * log(det) - 1.5 * log(2 * Double.pi))
        }
    }
}
