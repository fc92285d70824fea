import Compute
import Foundation

/// Iterated colour-model graph cut (GrabCut, Rother et al. 2004) on the working image, seeded and
/// regularised by a per-pixel subject prior instead of a user rectangle.
///
/// Energy per pixel: −log p(colour | GMM of its side) + `priorWeight` · −log prior(side), plus the
/// contrast-sensitive Potts term γ·exp(−β‖Δlab‖²)/distance on 8-connected neighbours. Each iteration
/// re-assigns GMM components, refits both mixtures and re-solves the min cut, until the labelling
/// stops changing or `iterations` is reached.
struct GrabCutSegmenter {
    var iterations = 5
    var componentCount = 5
    /// Smoothness weight (Rother et al. use 50).
    var gamma: Float = 50
    /// Weight of the saliency prior relative to the colour likelihood.
    var priorWeight: Float = 2

    /// - Parameters:
    ///   - prior: probability that each pixel belongs to the subject, in (0, 1).
    ///   - initial: starting labelling (1 = subject).
    ///   - fixed: optional hard constraints per pixel: 0 free, 1 subject, 2 background. With them the
    ///     first colour models are fitted on the constrained pixels alone (the confident parts), and
    ///     only the free pixels can change label.
    /// - Returns: the final labelling, 1 = subject.
    /// - Throws: `CancellationError`, checked in every iteration and inside the max-flow solver.
    func segment(_ image: LabImage, prior: [Float], initial: [UInt8],
                 fixed: [UInt8]? = nil, on loop: some ParallelLoop) throws -> [UInt8] {
        let w = image.width, h = image.height, n = w * h
        precondition(prior.count == n && initial.count == n && (fixed?.count ?? n) == n,
                     "prior, initial and fixed must have one entry per working pixel")
        var labels = initial
        var assignment = [UInt8](repeating: 0, count: n)
        var fg = GaussianMixtureModel(componentCount: componentCount)
        var bg = GaussianMixtureModel(componentCount: componentCount)

        // Hard background where the source is transparent.
        let opaque = image.alpha.map { $0 >= 0.5 }

        // The neighbour capacities and the prior's unary costs do not change between iterations: set
        // the edges once and take the two logarithms per pixel once. Each iteration after the first
        // re-solves the same graph from the previous flow (`GridGraphCut`'s warm start), so only the
        // change the refitted colour models make has to be pushed.
        var graph = GridGraphCut(width: w, height: h)
        // Pairwise weights depend only on the image. β = 1 / (2·mean ‖Δlab‖²).
        let edges = pairwiseWeights(image)
        for y in 0..<h {
            for x in 0..<w {
                let i = y * w + x
                // Forward directions only (right, down, down-right, down-left); 0 where the
                // neighbour lies outside the image.
                for d in stride(from: 0, to: 8, by: 2) {
                    let c = edges[4 * i + d / 2]
                    if c > 0 { graph.setEdge(x: x, y: y, direction: d, capacity: c) }
                }
            }
        }
        var priorFg = [Float](repeating: 0, count: n), priorBg = [Float](repeating: 0, count: n)
        for i in 0..<n {
            let p = min(max(prior[i], 1e-3), 1 - 1e-3)
            priorFg[i] = -priorWeight * logf(p)
            priorBg[i] = -priorWeight * logf(1 - p)
        }

        // The first models come from the constrained pixels only when both sides have some (a box fixes only its
        // outside, a point only its subject): otherwise from the initial labelling.
        var fittedOnFixed = false
        if let fixed {
            var sides: (fg: Bool, bg: Bool) = (false, false)
            for i in 0..<n where opaque[i] {
                if fixed[i] == 1 { sides.fg = true } else if fixed[i] == 2 { sides.bg = true }
                if sides.fg && sides.bg { break }
            }
            fittedOnFixed = sides.fg && sides.bg
        }
        for iteration in 0..<iterations {
            if loop.isCancelled { throw CancellationError() }
            var fgMembers: [Int32] = [], bgMembers: [Int32] = []
            fgMembers.reserveCapacity(n); bgMembers.reserveCapacity(n)
            for i in 0..<n where opaque[i] {
                if let fixed, iteration == 0, fittedOnFixed {
                    if fixed[i] == 1 { fgMembers.append(Int32(i)) } else if fixed[i] == 2 { bgMembers.append(Int32(i)) }
                    continue
                }
                if labels[i] != 0 { fgMembers.append(Int32(i)) } else { bgMembers.append(Int32(i)) }
            }
            if fgMembers.isEmpty || bgMembers.isEmpty { break }
            image.lab.withUnsafeBufferPointer { lab in
                assignment.withUnsafeMutableBufferPointer { asg in
                    if iteration == 0 {
                        fg.initialise(lab: lab, members: fgMembers, assignment: asg)
                        bg.initialise(lab: lab, members: bgMembers, assignment: asg)
                    } else {
                        fg.assign(lab: lab, members: fgMembers, assignment: asg)
                        bg.assign(lab: lab, members: bgMembers, assignment: asg)
                        fg.fit(lab: lab, members: fgMembers, assignment: UnsafeBufferPointer(asg))
                        bg.fit(lab: lab, members: bgMembers, assignment: UnsafeBufferPointer(asg))
                    }
                }
            }
            let hard: Float = 1e6
            image.lab.withUnsafeBufferPointer { lab in
                for y in 0..<h {
                    for x in 0..<w {
                        let i = y * w + x
                        guard opaque[i] else { graph.setTerminals(x: x, y: y, source: 0, sink: hard); continue }
                        if let fixed, fixed[i] != 0 {
                            let subject = fixed[i] == 1
                            graph.setTerminals(x: x, y: y, source: subject ? hard : 0, sink: subject ? 0 : hard)
                            continue
                        }
                        let l = lab[3 * i], a = lab[3 * i + 1], b = lab[3 * i + 2]
                        let costFg = fg.negativeLogLikelihood(l, a, b) + priorFg[i]
                        let costBg = bg.negativeLogLikelihood(l, a, b) + priorBg[i]
                        let base = min(costFg, costBg)
                        // Source = subject: cutting the source link (cost of background) pays costBg.
                        graph.setTerminals(x: x, y: y, source: min(costBg - base, hard), sink: min(costFg - base, hard))
                    }
                }
            }
            try graph.maxFlow(on: loop)
            var changed = 0
            for y in 0..<h {
                for x in 0..<w {
                    let i = y * w + x
                    let v: UInt8 = graph.isSource(x: x, y: y) ? 1 : 0
                    if v != labels[i] { changed += 1; labels[i] = v }
                }
            }
            if changed * 1000 < n && iteration > 0 { break }
        }
        return labels
    }

    /// Contrast-sensitive smoothness weights for the four "forward" directions (right, down,
    /// down-right, down-left), 0 where the neighbour is outside the image.
    private func pairwiseWeights(_ image: LabImage) -> [Float] {
        let w = image.width, h = image.height, n = w * h
        var d2 = [Float](repeating: -1, count: n * 4)
        var sum: Double = 0
        var count = 0
        image.lab.withUnsafeBufferPointer { lab in
            for y in 0..<h {
                for x in 0..<w {
                    let i = y * w + x
                    for (slot, d) in [0, 2, 4, 6].enumerated() {
                        let qx = x + GridGraphCut.dx[d], qy = y + GridGraphCut.dy[d]
                        guard qx >= 0, qx < w, qy >= 0, qy < h else { continue }
                        let j = qy * w + qx
                        let a = lab[3 * i] - lab[3 * j], b = lab[3 * i + 1] - lab[3 * j + 1], c = lab[3 * i + 2] - lab[3 * j + 2]
                        let v = a * a + b * b + c * c
                        d2[4 * i + slot] = v
                        sum += Double(v); count += 1
                    }
                }
            }
        }
        let mean = count > 0 ? sum / Double(count) : 0
        let beta: Float = mean > 1e-9 ? Float(1 / (2 * mean)) : 0
        let diagonal = gamma / Float(2).squareRoot()
        var out = [Float](repeating: 0, count: n * 4)
        for i in 0..<n {
            for slot in 0..<4 where d2[4 * i + slot] >= 0 {
                out[4 * i + slot] = (slot < 2 ? gamma : diagonal) * expf(-beta * d2[4 * i + slot])
            }
        }
        return out
    }
}
