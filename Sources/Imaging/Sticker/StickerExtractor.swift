import Foundation

/// Cuts the main subject out of a photo with classical vision; nothing is downloaded, and the one
/// learnt component is OpenCV's frontal face cascade, compiled in (`FaceCascadeData`).
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
/// 3. `MaskCleanup`: keep the dominant components, fill small enclosed holes.
/// 4. `MaskUpsampler`: fast guided filter against the full-resolution colours, thresholded at ¼ (row by
///    row: the full-size pass adds one byte per pixel, the mask itself).
/// 5. `MaskFeather`: a small Gaussian softening of the edge (`StickerOptions.feather`).
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
/// tuning half / held-out half / all 60), which is how every choice below was made; bench/README.md
/// lists the variants that were measured and not kept. CPU per image at 200 px (perf, sticker-dev,
/// before the face prior): the two cuts ~52% and the growth cut ~6% (max-flow ~32% of the whole, with
/// warm starts: each GrabCut round after the first and the second cut resume from the previous flow),
/// region saliency ~10%, defocus ~7%, MBD map ~7%, upsampling and feathering ~8%. The face search
/// adds 15-21 ms per photo (86-103 ms instead of 71-81 ms on the 2-core machine).
public enum StickerExtractor {
    /// Segments `image` and returns the cropped, feathered (and optionally outlined) cut-out.
    /// - Throws: `CancellationError` when the current task is cancelled.
    public static func extract(from image: Image, options: StickerOptions = .init()) throws -> Sticker {
        let (mask, confidence) = try analyse(image, options: options)
        return try makeSticker(image, mask: mask, confidence: confidence, options: options)
    }

    /// The full-resolution subject mask alone (255 = subject).
    /// - Throws: `CancellationError` when the current task is cancelled.
    public static func segment(_ image: Image, options: StickerOptions = .init()) throws -> Mask {
        try analyse(image, options: options).mask
    }

    /// Mask plus confidence; the shared core of `extract` and `segment`.
    static func analyse(_ image: Image, options: StickerOptions) throws -> (mask: Mask, confidence: Double) {
        if Cancellation.isRequested { throw CancellationError() }
        let w = image.width, h = image.height, n = w * h
        let whole = Mask(width: w, height: h, repeating: 255)

        var transparent = 0
        image.pixels.withUnsafeBufferPointer { px in
            var i = 3
            while i < px.count { if px[i] < 128 { transparent += 1 }; i += 4 }
        }
        if transparent == n { return (whole, 0) }
        if transparent * 100 > n {
            var alpha = [UInt8](repeating: 0, count: n)
            image.pixels.withUnsafeBufferPointer { px in for i in 0..<n { alpha[i] = px[4 * i + 3] } }
            return (Mask(width: w, height: h, values: alpha), 1)
        }
        if min(w, h) < 8 { return (whole, 0) }

        let work = LabImage(image, maxSide: min(1024, max(32, options.workingSize)))
        // Texture as three more barrier channels of the MBD map (weight 2.5) lets a subject fenced off
        // by a change of texture rather than colour stand out (camouflage): 0.580 / 0.466 / 0.523 ->
        // 0.603 / 0.473 / 0.538, and it holds at working sizes 180 and 220. The tuning half is noisy
        // in the weight (1 -> 0.603, 3 -> 0.615, 4 -> 0.591); 2.5 is best averaged with its neighbours.
        let texture = try TextureFeatures(work).values
        // Defocus as a fourth barrier channel (weight 70 × `FocusFeatures.strength`, so photos in focus
        // throughout are left alone) and in the region distances (weight 100 on the squared region-mean
        // difference of the 0...1 sharpness): a sharp subject over a blurred background is fenced off
        // even where the colours match. 0.603 / 0.473 / 0.538 -> 0.633 / 0.476 / 0.554; at working size
        // 180: 0.627 / 0.463 -> 0.625 / 0.478, at 220: 0.622 / 0.459 -> 0.641 / 0.471. Channel weight
        // (tuning half) 30: 0.616, 40: 0.626, 50: 0.630, 60: 0.629, 70: 0.633, 80: 0.642 (held-out
        // 0.470), 100: 0.634; 70 is at least 40's score at 180, 200 and 220 px. At 40: channel alone 0.623 /
        // 0.468, region term alone 0.606 / 0.477 (region weight 50 / 200 with the channel: within
        // 0.002). A direct prior factor on both maps traded photos (0.628 / 0.465, while tuning).
        let focus = try FocusFeatures(image, width: work.width, height: work.height)
        var saliency = try SaliencyMap(work, texture: texture, textureWeight: 2.5,
                                       focus: focus.values, focusWeight: 70 * focus.strength)
        // Below ~2 Lab units of barrier summed over three channels the image has no visible structure.
        if saliency.rawStrength < 2 { return (whole, 0) }

        // Two independent saliency hypotheses, each refined by its own colour-model graph cut: the
        // pixel-level MBD map and the region-level robust-background map (superpixel boundary
        // connectivity). Their errors are largely independent and the dominant error of either is
        // taking in background next to the subject, so the consensus (intersection) is kept.
        // Before texture: MBD alone 0.550 / 0.455 / 0.503, region alone 0.523 / 0.494 / 0.509,
        // consensus 0.571 / 0.466 / 0.518; one map averaging both scores lower (0.505 / 0.478 / 0.491):
        // the gain comes from independence. Texture in the region distances (weight ½ on the squared
        // region-mean texture difference): 0.571 / 0.466 / 0.518 -> 0.580 / 0.466 / 0.523, flat over
        // weights 0.5...3. Texture in the cut's own colour models traded photos (held-out 0.435-0.461).
        let region = try RobustBackgroundSaliency(work, texture: texture, textureWeight: 0.5,
                                                  focus: focus.values, focusWeight: 100 * focus.strength)
        var regional = saliency.blended(withRegion: region.values, weight: 1)
        // Faces: the one object-level cue. A person's head and upper body below a detected face are
        // raised in both maps, so a portrait cut by the frame keeps its body (the bottom-up cues give
        // whatever touches the frame to the background). 0.648 / 0.495 / 0.572 -> 0.658 / 0.538 /
        // 0.598 (tuning / held-out / all); 7 of the 60 photos have a face found, all of them real.
        // Searched on a 320-px copy for faces of at least a tenth of the shorter side, in pyramid steps
        // of 1.2 with 4 neighbours: OpenCV's own 1.1 and 5 find the same faces (0.599) at 1.6x the time.
        if options.detectsFaces {
            let faces = try FaceDetector.detect(in: image, maxSide: 320, scaleFactor: 1.2, minNeighbors: 4,
                                                  minRelativeSize: 0.1)
            if !faces.isEmpty {
                let person = PersonPrior.map(faces: faces, sourceWidth: w, width: work.width, height: work.height)
                saliency = saliency.raised(by: person)
                regional = regional.raised(by: person)
            }
        }
        // The second cut starts from the first one's flow (same image, same neighbour capacities).
        var graph: GridGraphCut?
        let pixelLabels = try cut(work, saliency: saliency, graph: &graph)
        let regionLabels = try cut(work, saliency: regional, graph: &graph)
        var labels = zip(pixelLabels, regionLabels).map { $0 & $1 }
        // No consensus at all (the two picked different objects): trust the MBD hypothesis, which
        // scores higher on the tuning half.
        if labels.allSatisfy({ $0 == 0 }) { labels = pixelLabels }
        // The consensus loses whatever either cut shaved off (legs, tails, a second figure's edge):
        // regrow it by colour alone within 4% of the working size of its edge (`ConsensusGrowth`).
        // 0.641 / 0.482 -> 0.648 / 0.495 (tuning / held-out); the variants tried are in bench/README.md.
        labels = try ConsensusGrowth.grow(work, consensus: labels,
                                          bandWidth: 0.04 * Float(max(work.width, work.height)))
        MaskCleanup.keepMainComponents(&labels, width: work.width, height: work.height, relativeSize: 0.2)
        MaskCleanup.fillHoles(&labels, width: work.width, height: work.height, maxRelativeSize: 0.1)
        let subject = labels.reduce(0) { $0 + Int($1) }
        if subject * 500 < work.count { return (whole, 0) }

        // The cut's subject sits about 2 px (at 481 px) inside the human outline all round, on the good
        // photos too (overlays of sticker-dev): the outline takes in the edge's mixed pixels, which the
        // contrast-sensitive cut gives to the background. Taking the subject from a quarter of the
        // upsampled soft mask rather than half moves a soft edge out by a fraction of a working pixel
        // and leaves a sharp colour edge where it is (the colour guide steps there):
        // 0.633 / 0.476 / 0.555 -> 0.641 / 0.482 / 0.562; at working size 180: 0.626 / 0.478 -> 0.635 /
        // 0.485, at 220: 0.641 / 0.471 -> 0.649 / 0.477 (with the luma guide, levels 0.4 / 0.3 / 0.2:
        // 0.558 / 0.561 / 0.563; dilating the final mask by 2 px: 0.565, but that also grows the
        // sharp edges of graphics). The colour guide alone scores as the luma one did (0.555); it is
        // what keeps the lower level off edges between colours of equal brightness. A full-resolution
        // GrabCut in a band of ±3-6 px round the edge instead moved 0.7% of the pixels for +0.001 at
        // 1.4x the CPU time.
        let soft = labels.map(Float.init)
        var values = try MaskUpsampler.upsample(mask: soft, guide: work.rgb, width: work.width, height: work.height,
                                                to: image, radius: 2, epsilon: 1e-3, level: 0.25)
        try MaskFeather.feather(&values, width: w, height: h, sigma: min(16, max(0, options.feather)))
        let mask = Mask(width: w, height: h, values: values)
        return (mask, confidence(saliency: saliency, labels: labels))
    }

    /// Colour-model graph cut seeded and regularised by one saliency map.
    /// `graph` is the previous cut's solved graph of the same image, if any (a warm start), and
    /// receives this cut's.
    static func cut(_ work: LabImage, saliency: SaliencyMap, graph: inout GridGraphCut?) throws -> [UInt8] {
        // Seeds and prior are centred a little below Otsu's split: the split tends to keep only the
        // most distinct part of a subject, and the colour models recover from a generous start
        // better than from a stingy one. Measured on sticker-dev (mean IoU): ×0.7 0.482, ×0.8 0.499,
        // ×0.9 0.503, ×1.0 0.479.
        let tau = saliency.threshold * 0.9
        let steepness: Float = 8
        let prior = saliency.values.map { 1 / (1 + expf(-steepness * ($0 - tau))) }
        let initial = saliency.values.map { $0 > tau ? UInt8(1) : 0 }
        // Two rounds (fit, cut, refit, cut) reach the same mean IoU as five on sticker-dev (tuning half
        // 0.571 vs 0.570; one round 0.567) at ~20 ms less per cut, which pays for running two cuts.
        var segmenter = GrabCutSegmenter()
        segmenter.iterations = 2
        return try segmenter.segment(work, prior: prior, initial: initial, graph: &graph)
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

    /// Crops the cut-out to the mask's bounding box plus a margin for the outline, applies the mask as
    /// alpha and draws the outline.
    static func makeSticker(_ image: Image, mask: Mask, confidence: Double, options: StickerOptions) throws -> Sticker {
        let w = image.width, h = image.height
        var minX = w, minY = h, maxX = -1, maxY = -1
        var covered = 0
        mask.values.withUnsafeBufferPointer { m in
            for y in 0..<h {
                for x in 0..<w {
                    let v = m[y * w + x]
                    if v >= 128 { covered += 1 }
                    if v > 0 {
                        minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
                    }
                }
            }
        }
        if maxX < 0 { minX = 0; minY = 0; maxX = w - 1; maxY = h - 1 }
        let box = PixelRect(x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1)
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
        var cut = Image(width: cw, height: ch, pixels: canvas)
        if outline > 0 { try StickerOutline.apply(to: &cut, width: outline, color: options.outlineColor) }
        return Sticker(image: cut, boundingBox: box, origin: (ox, oy),
                       coverage: Double(covered) / Double(w * h), confidence: confidence, mask: mask)
    }
}
