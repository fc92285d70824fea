import Compute
import Foundation

/// A `SubjectPrompt` applied to the cut's working-size labelling (1 = subject), with the saliency prior the
/// labelling came from.
///
/// - Points: the parts of the labelling under the points are the subject. Where a point falls on no part (the map
///   missed that subject) or a part holds a point to exclude as well, a GrabCut decides, with a disc round each
///   point fixed to its side and the prior raised round the points to include; the parts under the points are
///   kept from its labelling.
/// - Box: nothing outside it is subject. Inside, the labelling's parts when their extent fits the box, otherwise
///   whichever fits it better of those and a GrabCut on the box alone (its outside fixed as background), seeded and
///   regularised by the prior.
/// - All: every part of the labelling down to a hundredth of the largest (the unprompted cut keeps a fifth).
enum SubjectSelection {
    /// - Parameters:
    ///   - labels: the cut's labelling at the working size of `work`.
    ///   - prior: the saliency (0...1) the labelling was split from.
    ///   - threshold: where the labelling split it.
    ///   - sourceWidth, sourceHeight: the photo's size, which the prompt's coordinates are in.
    /// - Throws: `CancellationError`.
    static func select(_ prompt: SubjectPrompt, labels: [UInt8], work: LabImage, prior: SaliencyMap,
                       threshold tau: Float, sourceWidth: Int, sourceHeight: Int,
                       on loop: some ParallelLoop) throws -> [UInt8] {
        let w = work.width, h = work.height
        func working(_ p: PixelPoint) -> Int {
            let x = min(w - 1, max(0, Int((Double(p.x) + 0.5) * Double(w) / Double(sourceWidth))))
            let y = min(h - 1, max(0, Int((Double(p.y) + 0.5) * Double(h) / Double(sourceHeight))))
            return y * w + x
        }
        switch prompt {
        case .all:
            var all = labels
            MaskCleanup.keepMainComponents(&all, width: w, height: h, relativeSize: 0.01)
            return all
        case .points(let include, let exclude):
            return try points(include.map(working), exclude: exclude.map(working), labels: labels, work: work, prior: prior, threshold: tau, on: loop)
        case .box(let rect):
            let x0 = max(0, Int(Double(rect.x) * Double(w) / Double(sourceWidth)))
            let y0 = max(0, Int(Double(rect.y) * Double(h) / Double(sourceHeight)))
            let x1 = min(w, Int((Double(rect.x + rect.width) * Double(w) / Double(sourceWidth)).rounded(.up)))
            let y1 = min(h, Int((Double(rect.y + rect.height) * Double(h) / Double(sourceHeight)).rounded(.up)))
            return try box(x: max(0, min(x0, w - 1))..<max(x0 + 1, x1), y: max(0, min(y0, h - 1))..<max(y0 + 1, y1),
                           labels: labels, work: work, prior: prior, threshold: tau, on: loop)
        }
    }

    /// The component of `ids` at `p` or, failing that, the nearest within `radius` pixels (a point a pixel off a
    /// thin part still selects it); -1 for none.
    static func component(at p: Int, ids: [Int32], width w: Int, height h: Int, radius: Int) -> Int32 {
        if ids[p] >= 0 { return ids[p] }
        let px = p % w, py = p / w
        var best: Int32 = -1, bestD = Int.max
        for y in max(0, py - radius)...min(h - 1, py + radius) {
            for x in max(0, px - radius)...min(w - 1, px + radius) where ids[y * w + x] >= 0 {
                let d = (x - px) * (x - px) + (y - py) * (y - py)
                if d < bestD { bestD = d; best = ids[y * w + x] }
            }
        }
        return best
    }

    static func points(_ include: [Int], exclude: [Int], labels: [UInt8], work: LabImage, prior: SaliencyMap,
                       threshold tau: Float, on loop: some ParallelLoop) throws -> [UInt8] {
        let w = work.width, h = work.height, n = w * h
        let reach = max(1, max(w, h) / 100)
        let (ids, _, _) = MaskCleanup.components(labels, width: w, height: h, value: 1)
        let chosen = include.map { component(at: $0, ids: ids, width: w, height: h, radius: reach) }
        let excluded = Set(exclude.map { ids[$0] }.filter { $0 >= 0 })
        if !chosen.contains(-1) && excluded.isDisjoint(with: chosen) {
            let keep = Set(chosen)
            return (0..<n).map { ids[$0] >= 0 && keep.contains(ids[$0]) ? 1 : 0 }
        }
        // A GrabCut with the points as seeds: discs round them fixed, the prior raised round the points the
        // labelling missed (a bump a tenth of the long side wide), its parts under points to exclude dropped.
        let seed = max(2, max(w, h) / 60)
        var fixed = [UInt8](repeating: 0, count: n)
        func disc(_ p: Int, _ value: UInt8) {
            let px = p % w, py = p / w
            for y in max(0, py - seed)...min(h - 1, py + seed) {
                for x in max(0, px - seed)...min(w - 1, px + seed) where (x - px) * (x - px) + (y - py) * (y - py) <= seed * seed {
                    fixed[y * w + x] = value
                }
            }
        }
        for p in exclude { disc(p, 2) }
        for p in include { disc(p, 1) }
        var values = prior.values
        let sigma = 0.1 * Float(max(w, h))
        for (k, p) in include.enumerated() where chosen[k] < 0 {
            let px = p % w, py = p / w
            for y in 0..<h {
                for x in 0..<w {
                    let d2 = Float((x - px) * (x - px) + (y - py) * (y - py))
                    values[y * w + x] = max(values[y * w + x], 0.9 * expf(-d2 / (2 * sigma * sigma)))
                }
            }
        }
        var initial = [UInt8](repeating: 0, count: n)
        for i in 0..<n {
            if fixed[i] == 1 || (labels[i] == 1 && !excluded.contains(ids[i])) || (values[i] > tau && prior.values[i] <= tau) {
                initial[i] = 1
            }
            if fixed[i] == 2 { initial[i] = 0 }
        }
        let steepness: Float = 8
        let soft = values.map { 1 / (1 + expf(-steepness * ($0 - tau))) }
        var segmenter = GrabCutSegmenter()
        segmenter.iterations = 2
        let cut = try segmenter.segment(work, prior: soft, initial: initial, fixed: fixed, on: loop)
        let (cutIds, _, _) = MaskCleanup.components(cut, width: w, height: h, value: 1)
        let keep = Set(include.map { component(at: $0, ids: cutIds, width: w, height: h, radius: reach) }.filter { $0 >= 0 })
        return (0..<n).map { cutIds[$0] >= 0 && keep.contains(cutIds[$0]) ? 1 : 0 }
    }

    /// The labelling's parts inside the box; when their extent fits the box poorly (a box drawn round a subject
    /// touches it on every side), also a GrabCut of the box alone seeded and regularised by the prior, and of the two
    /// the one that fits better.
    static func box(x xs: Range<Int>, y ys: Range<Int>, labels: [UInt8], work: LabImage, prior: SaliencyMap,
                    threshold tau: Float, on loop: some ParallelLoop) throws -> [UInt8] {
        let w = work.width, h = work.height
        func inBox(_ keep: (Int) -> Bool) -> [UInt8] {
            var out = [UInt8](repeating: 0, count: w * h)
            for y in ys { for x in xs where keep(y * w + x) { out[y * w + x] = 1 } }
            MaskCleanup.keepMainComponents(&out, width: w, height: h, relativeSize: 0.2)
            return out
        }
        var candidates = [inBox { labels[$0] == 1 }]
        var fits = candidates.map { fit($0, x: xs, y: ys, width: w) }
        if fits.max()! < boxFitEnough {
            let cut = try grabCut(x: xs, y: ys, start: candidates[0], work: work, prior: prior, threshold: tau, on: loop)
            candidates.append(cut); fits.append(fit(cut, x: xs, y: ys, width: w))
        }
        return candidates[fits.indices.max { fits[$0] < fits[$1] || (fits[$0] == fits[$1] && $0 > $1) }!]
    }

    /// How well a labelling's extent fits the box: IoU of its bounding box with the box (0 when empty).
    static func fit(_ labels: [UInt8], x xs: Range<Int>, y ys: Range<Int>, width w: Int) -> Double {
        var x0 = Int.max, y0 = Int.max, x1 = -1, y1 = -1
        for y in ys { for x in xs where labels[y * w + x] == 1 { x0 = min(x0, x); x1 = max(x1, x); y0 = min(y0, y); y1 = max(y1, y) } }
        guard x1 >= 0 else { return 0 }
        let extent: Int = (x1 - x0 + 1) * (y1 - y0 + 1)
        return Double(extent) / Double(xs.count * ys.count)
    }

    /// A candidate whose extent fits the box at least this well is taken without a cut.
    static let boxFitEnough = 0.7

    /// GrabCut of the box alone, a one-pixel ring of fixed background round it (where the photo goes on), started
    /// from `start` (or, empty, from the box less its border, as GrabCut's rectangle).
    static func grabCut(x xs: Range<Int>, y ys: Range<Int>, start: [UInt8], work: LabImage, prior: SaliencyMap,
                        threshold tau: Float, on loop: some ParallelLoop) throws -> [UInt8] {
        let w = work.width, h = work.height
        let cx0 = max(0, xs.lowerBound - 1), cy0 = max(0, ys.lowerBound - 1)
        let cx1 = min(w, xs.upperBound + 1), cy1 = min(h, ys.upperBound + 1)
        let cw = cx1 - cx0, ch = cy1 - cy0
        guard cw >= 4, ch >= 4 else { return start }
        let crop = work.cropped(x: cx0, y: cy0, width: cw, height: ch)
        let empty = !start.contains(1)
        var fixed = [UInt8](repeating: 0, count: cw * ch), initial = fixed
        var soft = [Float](repeating: 0, count: cw * ch)
        let steepness: Float = 8
        for y in 0..<ch {
            for x in 0..<cw {
                let sx = x + cx0, sy = y + cy0, i = y * cw + x
                if !xs.contains(sx) || !ys.contains(sy) { fixed[i] = 2; continue }
                soft[i] = 1 / (1 + expf(-steepness * (prior.values[sy * w + sx] - tau)))
                initial[i] = empty ? (x <= 1 || y <= 1 || x >= cw - 2 || y >= ch - 2 ? 0 : 1) : start[sy * w + sx]
            }
        }
        var segmenter = GrabCutSegmenter()
        segmenter.iterations = boxIter
        segmenter.priorWeight = boxPrior
        let cut = try segmenter.segment(crop, prior: soft, initial: initial, fixed: fixed, on: loop)
        var out = [UInt8](repeating: 0, count: w * h)
        for y in 0..<ch { for x in 0..<cw where cut[y * cw + x] == 1 { out[(y + cy0) * w + x + cx0] = 1 } }
        MaskCleanup.keepMainComponents(&out, width: w, height: h, relativeSize: 0.2)
        return out
    }

    /// The box's GrabCut: the prior's weight against the colour models, and its rounds.
    static let boxPrior: Float = 2
    static let boxIter = 3
}

extension LabImage {
    /// The pixels of `x..<x+width`, `y..<y+height`.
    func cropped(x: Int, y: Int, width cw: Int, height ch: Int) -> LabImage {
        var lab = [Float](repeating: 0, count: cw * ch * 3), rgb = lab
        var alpha = [Float](repeating: 0, count: cw * ch)
        for r in 0..<ch {
            let s = (y + r) * width + x
            for c in 0..<cw {
                alpha[r * cw + c] = self.alpha[s + c]
                for k in 0..<3 { lab[3 * (r * cw + c) + k] = self.lab[3 * (s + c) + k]; rgb[3 * (r * cw + c) + k] = self.rgb[3 * (s + c) + k] }
            }
        }
        return LabImage(width: cw, height: ch, lab: lab, alpha: alpha, rgb: rgb)
    }
}
