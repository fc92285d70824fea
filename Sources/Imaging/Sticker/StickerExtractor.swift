import Compute
import Foundation

/// Cuts the main subject out of a photo with classical vision; nothing is downloaded, and the one
/// learnt component is OpenCV's frontal face cascade (a resource, `HaarCascade.frontalFace`).
///
/// Pipeline (all at a reduced working copy except the last two steps):
/// 1. Two saliency maps: `SaliencyMap` (minimum-barrier border distance over the Lab,
///    `TextureFeatures` and `FocusFeatures` channels + border-colour contrast + centre bias, per
///    pixel) and `RobustBackgroundSaliency` (boundary connectivity and background-weighted contrast
///    on `Superpixels`, regions compared by colour, texture and sharpness, with the same centre bias).
///    The defocus cue is measured on the full-resolution luma and gated off for photos that are in
///    focus throughout. Where `FaceDetector` finds faces, both maps are raised on the head and upper
///    body below each one (`PersonPrior`), unless `StickerOptions.detectsFaces` is off.
/// 2. `GrabCutSegmenter` on each: Gaussian-mixture colour models in CIELAB and a Boykov–Kolmogorov
///    min cut, seeded by the map's Otsu split and regularised by it as a soft prior. The subject is
///    where both cuts agree (falling back to the first cut when they share nothing), regrown by colour
///    alone into a narrow band round it (`ConsensusGrowth`) to recover the thin parts the cuts shave off.
///    With a learned subject map (`StickerOptions.subjectMap`) leading both maps, each is split at its
///    threshold instead: there the colour-model cut lost more edges than it found.
/// 3. `MaskCleanup`: keep the dominant components, fill small enclosed holes.
/// 4. `MaskUpsampler`: fast guided filter against the full-resolution colours, thresholded at ¼ (at ½
///    after a learned map's split; row by row: the full-size pass adds one byte per pixel, the mask
///    itself).
/// 5. `MaskFeather`: a small Gaussian softening of the edge (`StickerOptions.feather`).
/// 6. `ForegroundEstimator`: where the edge is soft, the subject's estimated own colour instead of the photo's mix
///    with its background (`StickerOptions.decontaminatesEdges`).
///
/// `StickerOptions.subject` (a `SubjectPrompt`: points, a box, or all) chooses among the parts of the cut before the
/// clean-up (`SubjectSelection`); `subjects(in:options:subjectMap:rounds:on:)` lists the separate subjects.
///
/// Degenerate inputs never fail; they get a documented fallback with confidence 0:
/// - images with fewer than 8 pixels on a side, flat or nearly flat images (no barrier anywhere), and
///   segmentations that find (almost) nothing: the whole image is the subject;
/// - an entirely transparent image: the whole image (the sticker is then fully transparent).
/// An image that already has a substantial transparent area is taken to be a cut-out already: its own
/// alpha is the mask, with confidence 1.
///
/// Confidence (0...1) rewards a mask that the saliency prior clearly separates (mean saliency inside
/// minus outside) and that agrees with the prior's own split (IoU), and is 0 for fallbacks.
///
/// Quality is measured with `photobench sticker --split` on sticker-dev (mean IoU against human masks;
/// tuning half / held-out half / all 60), which is how every choice below was made; the measurements
/// behind each choice, the variants not kept and the CPU profile are in bench/README.md ("Sticker
/// tuning history").
public enum StickerExtractor {
    /// Segments `image` and returns the cropped, feathered (and optionally outlined) cut-out.
    ///
    /// The stage graph, declared once for every caller: the classical maps (`StickerPreparation`) beside the
    /// face search, both beside the learned map when there is one (with
    /// ``StickerOptions/learnedMapAloneWhenDecisive``, needed only if the map is not decisive: a guess beside it,
    /// ``StageRunner/speculate(_:then:if:)``); then the plan
    /// joining them; then the plan's two cuts beside each other; then the mask and the cut-out. `stages` decides
    /// where and how at once they run.
    /// - Parameters:
    ///   - subjectMap: makes the learned map (``StickerOptions/subjectMap``), as a stage of its own.
    /// - Throws: `CancellationError` when the current task (or compute job) is cancelled; what `subjectMap` throws.
    public static func extract(from image: Image, options: StickerOptions = .init(),
                               subjectMap: (@Sendable () async throws -> SubjectMap)? = nil,
                               on stages: some StageRunner) async throws -> Sticker {
        let (plan, cuts, options) = try await planAndCut(image, options: options, subjectMap: subjectMap, on: stages)
        return try await stages.stage { loop in try plan.sticker(from: image, cuts: cuts, options: options, on: loop) }
    }

    /// The subject, cut by the same stages, before it is made a sticker (``makeSticker(_:cut:options:)``).
    /// - Throws: `CancellationError` when the current task (or compute job) is cancelled; what `subjectMap` throws.
    public static func subjectCut(from image: Image, options: StickerOptions = .init(),
                                  subjectMap: (@Sendable () async throws -> SubjectMap)? = nil,
                                  on stages: some StageRunner) async throws -> SubjectCut {
        let (plan, cuts, options) = try await planAndCut(image, options: options, subjectMap: subjectMap, on: stages)
        return try await stages.stage { loop in try plan.subjectCut(of: image, cuts: cuts, options: options, on: loop) }
    }

    /// The full-resolution subject mask alone (255 = subject), by the same stages.
    /// - Throws: `CancellationError` when the current task is cancelled.
    public static func segment(_ image: Image, options: StickerOptions = .init(),
                               on stages: some StageRunner) async throws -> Mask {
        let (plan, cuts, options) = try await planAndCut(image, options: options, subjectMap: nil, on: stages)
        return try await stages.stage { loop in try plan.mask(of: image, cuts: cuts, feather: options.feather, on: loop).mask }
    }

    /// The stages before the cut-out's mask; returns the options with the learned map in them. The face search
    /// runs whenever `options.detectsFaces`, even on a photo that turns out to need no cut (its result is then
    /// unused): so it can run beside the classical maps rather than after them.
    static func planAndCut<Stages: StageRunner>(_ image: Image, options: StickerOptions,
                                                subjectMap: (@Sendable () async throws -> SubjectMap)?, on stages: Stages)
        async throws -> (plan: StickerCutPlan, cuts: (pixel: StickerCutPlan.Cut, region: StickerCutPlan.Cut),
                         options: StickerOptions) {
        // The working copy made beside the learned map, for the classical maps if it is ready when they start (it
        // is, when they are a guess made once the map is undecided).
        let madeWork = ReadyValue<LabImage>()
        let classical = { @Sendable (stages: Stages) async throws -> (StickerPreparation, [PixelRect]) in
            try await stages.pair({ try await stages.stage { loop in
                try StickerPreparation(image, options: options, on: loop, work: madeWork.value)
            } },
                                  { options.detectsFaces
                                      ? try await stages.stage { loop in try StickerPreparation.faces(in: image, on: loop) } : [] })
        }
        var options = options
        let preparation: StickerPreparation, faces: [PixelRect]
        if let subjectMap, options.learnedMapAloneWhenDecisive {
            // The working copy beside the map (cheap, and on the critical path otherwise), the classical maps as
            // a guess beside both (with that copy when it is ready, else their own).
            let settled = options
            let ((map, work), prepared) = try await stages.speculate({ stages in
                try await stages.pair(subjectMap, { try await stages.stage { loop in
                    let work = try StickerPreparation.workingCopy(of: image, options: settled, on: loop)
                    madeWork.set(work)
                    return work
                } })
            }, then: classical, if: { result in !result.0.isDecisive })
            options.subjectMap = map
            (preparation, faces) = prepared ?? (StickerPreparation(learnedOnly: image, work: work), [])
        } else if let subjectMap {
            // The map first: run one after another (a large photo), its passes' memory is gone before the maps'.
            let (map, prepared) = try await stages.pair(subjectMap, { try await classical(stages) })
            options.subjectMap = map
            (preparation, faces) = prepared
        } else {
            (preparation, faces) = try await classical(stages)
        }
        let plan = preparation.plan(faces: faces, options: options)
        let cuts = try await stages.pair({ try await stages.stage { loop in try plan.cut(.pixel, on: loop) } },
                                         { try await stages.stage { loop in try plan.cut(.region, on: loop) } })
        return (plan, (pixel: cuts.0, region: cuts.1), options)
    }

    /// Crops the cut-out to the mask's bounding box plus a margin for the outline, applies the mask as
    /// alpha and draws the outline. An empty mask's box is `emptyBox` (the part of the photo cut), the whole photo
    /// without one.
    static func makeSticker(_ image: Image, mask: Mask, confidence: Double, options: StickerOptions,
                            emptyBox: PixelRect? = nil, on loop: some ParallelLoop) throws -> Sticker {
        try makeSticker(image, cut: SubjectCut(mask: mask, confidence: confidence, emptyBox: emptyBox), options: options,
                        on: loop)
    }

    /// The sticker of `cut`, a cut of `image`: the photo cropped to the cut's box plus a margin for the outline, the
    /// mask applied as alpha (the soft edge's colours estimated when `options` say so and the photo was not a cut-out
    /// already) and the outline drawn.
    /// - Throws: `CancellationError`.
    public static func makeSticker(_ image: Image, cut subject: SubjectCut, options: StickerOptions,
                                   on loop: some ParallelLoop) throws -> Sticker {
        precondition(subject.mask.width == image.width && subject.mask.height == image.height, "a cut of another photo")
        let w = image.width, h = image.height
        let mask = subject.mask, box = subject.boundingBox
        let outline = max(0, options.outlineWidth)
        let pad = outline > 0 ? outline + 2 : 0
        let ox = box.x - pad, oy = box.y - pad
        let cw = box.width + 2 * pad, ch = box.height + 2 * pad
        var canvas = [UInt8](repeating: 0, count: cw * ch * 4)
        canvas.withUnsafeMutableBufferPointer { out in
            image.pixels.withUnsafeBufferPointer { px in
                mask.values.withUnsafeBufferPointer { m in
                    for cy in 0..<ch {
                        let sy = oy + cy
                        guard sy >= 0, sy < h else { continue }
                        for cx in 0..<cw {
                            let sx = ox + cx
                            guard sx >= 0, sx < w else { continue }
                            let s = sy * w + sx, d = cy * cw + cx
                            let a = (Int(px[4 * s + 3]) * Int(m[s]) + 127) / 255
                            guard a > 0 else { continue }
                            out[4 * d] = px[4 * s]; out[4 * d + 1] = px[4 * s + 1]; out[4 * d + 2] = px[4 * s + 2]
                            out[4 * d + 3] = UInt8(a)
                        }
                    }
                }
            }
        }
        if options.decontaminatesEdges && !subject.isOwnCutOut {
            // The soft edge's colours replaced in the canvas itself (its pixels off the photo stay transparent).
            let x0 = max(0, ox), y0 = max(0, oy)
            let inside = PixelRect(x: x0, y: y0, width: min(w, ox + cw) - x0, height: min(h, oy + ch) - y0)
            try canvas.withUnsafeMutableBufferPointer { out in
                try ForegroundEstimator.estimate(image, alpha: mask, in: inside, into: out.baseAddress!, origin: (ox, oy),
                                                 width: cw, on: loop)
            }
        }
        var cut = Image(width: cw, height: ch, pixels: canvas)
        if outline > 0 { try StickerOutline.apply(to: &cut, width: outline, color: options.outlineColor, on: loop) }
        return Sticker(image: cut, boundingBox: box, origin: (ox, oy), coverage: subject.coverage,
                       confidence: subject.confidence, mask: mask)
    }
}
