import Compute
import Foundation

/// The two saliency hypotheses of a photo, ready to cut: each is cut on its own (`cut(_:)`, the two
/// independent of each other, so they can run at once), and `mask(of:cuts:feather:)` keeps their
/// consensus.
public struct StickerCutPlan: Sendable {
    enum Content: Sendable {
        case decided(mask: Mask, confidence: Double)
        /// `learned`: the hypotheses are led by a learned subject map (`StickerOptions.subjectMap`).
        case cuts(work: LabImage, pixel: SaliencyMap, region: SaliencyMap, learned: Bool)
    }

    /// The saliency a cut is seeded and regularised by.
    public enum Hypothesis: Sendable, CaseIterable {
        /// Minimum-barrier distance per pixel (`SaliencyMap`).
        case pixel
        /// The same blended with the region robust-background map (`RobustBackgroundSaliency`).
        case region
    }

    /// One hypothesis's labelling at the working size (1 = subject); empty when nothing is cut.
    public struct Cut: Sendable {
        let labels: [UInt8]
    }

    let content: Content
    /// The subject the person means (`StickerOptions.subject`); nil for the cut's own guess.
    var subject: SubjectPrompt? = nil

    /// Labels one hypothesis. Classical: a colour-model graph cut (`GrabCutSegmenter`) seeded and
    /// regularised by it. Led by a learned map: its split a little below Otsu's threshold, with no
    /// graph cut (on the tuning half the cut moved the network's edges off the human outlines more
    /// often than onto them, and it was half the sticker's CPU; bench/README.md).
    /// - Throws: `CancellationError`.
    public func cut(_ hypothesis: Hypothesis, on loop: some ParallelLoop) throws -> Cut {
        guard case .cuts(let work, let pixel, let region, let learned) = content else { return Cut(labels: []) }
        let saliency = hypothesis == .pixel ? pixel : region
        // A little below Otsu's split: the colour models recover better from a generous start, and a
        // learned map's split scored best there (0.8x, tuning half).
        let tau = saliency.threshold * (learned ? 0.8 : 0.9)
        let initial = saliency.values.map { $0 > tau ? UInt8(1) : 0 }
        if learned { return Cut(labels: initial) }
        let steepness: Float = 8
        let prior = saliency.values.map { 1 / (1 + expf(-steepness * ($0 - tau))) }
        // Two rounds reach five rounds' quality at less time per cut.
        var segmenter = GrabCutSegmenter()
        segmenter.iterations = 2
        return Cut(labels: try segmenter.segment(work, prior: prior, initial: initial, on: loop))
    }

    /// The subject mask at the photo's size (255 = subject) from the two cuts, and the confidence in it.
    /// - Parameters:
    ///   - image: the photo the plan was made from (its colours guide the upsampling), or the larger photo it is
    ///     `region` of.
    ///   - region: the part of `image` the plan was made from, read in place; nil for the whole of `image`. The mask
    ///     is then the region's size.
    ///   - cuts: `cut(.pixel)` and `cut(.region)`.
    ///   - feather: `StickerOptions.feather`.
    ///   - loop: where the full-resolution passes spread (a stage's loop; off the pool, in turn).
    /// - Throws: `CancellationError`.
    public func mask(of image: Image, region: PixelRect? = nil, cuts: (pixel: Cut, region: Cut),
                     feather: Double, on loop: some ParallelLoop) throws -> (mask: Mask, confidence: Double) {
        let w = region?.width ?? image.width, h = region?.height ?? image.height
        guard case .cuts(let work, let saliency, _, let learned) = content else {
            guard case .decided(let mask, let confidence) = content else { preconditionFailure() }
            return (mask, confidence)
        }
        var labels = try consensus(cuts, on: loop)!
        if let prompt = subject {
            labels = try SubjectSelection.select(prompt, labels: labels, work: work, prior: saliency,
                                                 threshold: saliency.threshold * (learned ? 0.8 : 0.9),
                                                 sourceWidth: w, sourceHeight: h, on: loop)
        } else {
            MaskCleanup.keepMainComponents(&labels, width: work.width, height: work.height, relativeSize: 0.2)
        }
        MaskCleanup.fillHoles(&labels, width: work.width, height: work.height, maxRelativeSize: 0.1)
        let subjectArea = labels.reduce(0) { $0 + Int($1) }
        if subjectArea * 500 < work.count {
            // Nothing found: the whole photo, or (asked for a box) the box.
            guard case .box(let r)? = subject else { return (Mask(width: w, height: h, repeating: 255), 0) }
            var inBox = Mask(width: w, height: h, repeating: 0)
            for y in max(0, r.y)..<min(h, r.y + r.height) { for x in max(0, r.x)..<min(w, r.x + r.width) { inBox.values[y * w + x] = 255 } }
            return (inBox, 0)
        }

        // The colour-model cut sits ~2 px inside human outlines (mixed edge pixels go to the background):
        // take its subject from a quarter of the upsampled soft mask, which moves soft edges out and leaves
        // sharp ones. The split of a learned map has no such bias: half.
        let soft = labels.map(Float.init)
        var values = try MaskUpsampler.upsample(mask: soft, guide: work.rgb, width: work.width, height: work.height,
                                                to: image, region: region, radius: 2, epsilon: 1e-3,
                                                level: learned ? 0.5 : 0.25, on: loop)
        try MaskFeather.feather(&values, width: w, height: h, sigma: min(16, max(0, feather)), on: loop)
        return (Mask(width: w, height: h, values: values), Self.confidence(saliency: saliency, labels: labels))
    }

    /// The two cuts' consensus at the working size (1 = subject), before a prompt and the clean-up; nil for a plan
    /// decided without cuts.
    /// - Throws: `CancellationError`.
    func consensus(_ cuts: (pixel: Cut, region: Cut), on loop: some ParallelLoop) throws -> [UInt8]? {
        guard case .cuts(let work, _, _, let learned) = content else { return nil }
        let pixelLabels = cuts.pixel.labels, regionLabels = cuts.region.labels
        precondition(pixelLabels.count == work.count && regionLabels.count == work.count, "cuts of another plan")
        var labels = zip(pixelLabels, regionLabels).map { $0 & $1 }
        // No consensus at all (the two picked different objects): trust the MBD hypothesis, which
        // scores higher on the tuning half.
        if labels.allSatisfy({ $0 == 0 }) { labels = pixelLabels }
        // The consensus loses what either cut shaved off: regrow it by colour within a band round its edge.
        // With a learned map the network already keeps thin parts; regrowing them gains nothing.
        if !learned {
            labels = try ConsensusGrowth.grow(work, consensus: labels,
                                              bandWidth: 0.04 * Float(max(work.width, work.height)), on: loop)
        }
        return labels
    }

    /// The cut-out from the two cuts: `mask(of:cuts:feather:)` applied to `image` (cropped,
    /// feathered and outlined as `options` say).
    /// - Throws: `CancellationError`.
    public func sticker(from image: Image, cuts: (pixel: Cut, region: Cut), options: StickerOptions,
                        on loop: some ParallelLoop) throws -> Sticker {
        try StickerExtractor.makeSticker(image, cut: subjectCut(of: image, cuts: cuts, options: options, on: loop),
                                         options: options, on: loop)
    }

    /// The cut-out of the plan made from `region` of `image`, as a sticker of the whole of `image`
    /// (``subjectCut(of:region:cuts:options:)`` made a sticker).
    /// - Throws: `CancellationError`.
    public func sticker(from image: Image, region: PixelRect, cuts: (pixel: Cut, region: Cut),
                        options: StickerOptions, on loop: some ParallelLoop) throws -> Sticker {
        try StickerExtractor.makeSticker(image, cut: subjectCut(of: image, region: region, cuts: cuts, options: options,
                                                                on: loop),
                                         options: options, on: loop)
    }

    /// The subject of the two cuts (`mask(of:cuts:feather:)`, feathered as `options` say) before it is made a sticker.
    /// - Throws: `CancellationError`.
    public func subjectCut(of image: Image, cuts: (pixel: Cut, region: Cut), options: StickerOptions,
                           on loop: some ParallelLoop) throws -> SubjectCut {
        let (mask, confidence) = try self.mask(of: image, cuts: cuts, feather: options.feather, on: loop)
        return subjectCut(mask, confidence: confidence)
    }

    /// The subject of the plan made from `region` of `image`, as a cut of the whole of `image` (its mask, box and
    /// coverage in the photo's pixels). The region is read in place, not copied: on a large photo the copy would be
    /// the largest buffer of the sticker after the photo itself.
    /// - Throws: `CancellationError`.
    public func subjectCut(of image: Image, region: PixelRect, cuts: (pixel: Cut, region: Cut),
                           options: StickerOptions, on loop: some ParallelLoop) throws -> SubjectCut {
        let (part, confidence) = try self.mask(of: image, region: region, cuts: cuts, feather: options.feather, on: loop)
        // (The plan keeps no source size: a decided plan's mask is the one size it can be checked by.)
        precondition(part.width == region.width && part.height == region.height && region.x >= 0 && region.y >= 0
                     && region.x + region.width <= image.width && region.y + region.height <= image.height,
                     "a decided plan of another part, or a part off the photo")
        var mask = Mask(width: image.width, height: image.height, repeating: 0)
        mask.values.withUnsafeMutableBufferPointer { full in
            part.values.withUnsafeBufferPointer { own in
                for y in 0..<region.height {
                    let from = y * region.width, to = (y + region.y) * image.width + region.x
                    _ = UnsafeMutableBufferPointer(rebasing: full[to..<(to + region.width)])
                        .update(fromContentsOf: own[from..<(from + region.width)])
                }
            }
        }
        return subjectCut(mask, confidence: confidence, emptyBox: region)
    }

    private func subjectCut(_ mask: Mask, confidence: Double, emptyBox: PixelRect? = nil) -> SubjectCut {
        var cut = SubjectCut(mask: mask, confidence: confidence, emptyBox: emptyBox)
        // A photo that is a cut-out already keeps its own colours: its soft edge is no mix with a background.
        if case .decided(_, let given) = content, given == 1 { cut.isOwnCutOut = true }
        return cut
    }

    /// Saliency contrast between the two sides, scaled by agreement with the saliency's own split.
    static func confidence(saliency: SaliencyMap, labels: [UInt8]) -> Double {
        var inSum = 0.0, inCount = 0.0, outSum = 0.0, outCount = 0.0
        var inter = 0.0, union = 0.0
        for i in labels.indices {
            let s = Double(saliency.values[i])
            let a = labels[i] != 0, b = saliency.values[i] > saliency.threshold
            if a { inSum += s; inCount += 1 } else { outSum += s; outCount += 1 }
            if a && b { inter += 1 }
            if a || b { union += 1 }
        }
        guard inCount > 0, outCount > 0, union > 0 else { return 0 }
        let contrast = max(0, inSum / inCount - outSum / outCount)
        let agreement = inter / union
        return min(1, max(0, 1.5 * contrast * (0.5 + 0.5 * agreement)))
    }
}
