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
/// tuning half / held-out half / all 60), which is how every choice below was made; the measurements
/// behind each choice, the variants not kept and the CPU profile are in bench/README.md ("Sticker
/// tuning history").
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
        // Texture as three more barrier channels (weight 2.5): a subject fenced off by texture rather
        // than colour stands out.
        let texture = try TextureFeatures(work).values
        // Defocus as a barrier channel and a region distance, scaled by how much of the photo is out of focus.
        let focus = try FocusFeatures(image, width: work.width, height: work.height)
        var saliency = try SaliencyMap(work, texture: texture, textureWeight: 2.5,
                                       focus: focus.values, focusWeight: 70 * focus.strength)
        // Below ~2 Lab units of barrier summed over three channels the image has no visible structure.
        if saliency.rawStrength < 2 { return (whole, 0) }

        // Two independent saliency hypotheses (pixel MBD, region robust-background), each cut on its own;
        // their errors are largely independent, so the consensus of the two cuts is kept.
        let region = try RobustBackgroundSaliency(work, texture: texture, textureWeight: 0.5,
                                                  focus: focus.values, focusWeight: 100 * focus.strength)
        var regional = saliency.blended(withRegion: region.values, weight: 1)
        // Faces: the one object-level cue; head and upper body are raised so a portrait cut by the
        // frame keeps its body.
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
        if let learned = options.subjectMap {
            // The learned map leads both priors; the classical maps only move it where it is unsure.
            var net = learned.resampled(width: work.width, height: work.height)
            if options.subjectMapExponent != 1 {
                let e = max(0.01, options.subjectMapExponent)
                net = net.map { powf(max(0, $0), e) }
            }
            let a = min(1, max(0, options.subjectMapWeight))
            saliency = SaliencyMap(values: zip(net, saliency.values).map { a * $0 + (1 - a) * $1 },
                                   width: work.width, height: work.height)
            regional = SaliencyMap(values: zip(net, regional.values).map { a * $0 + (1 - a) * $1 },
                                   width: work.width, height: work.height)
        }
        var graph: GridGraphCut?
        let pixelLabels = try cut(work, saliency: saliency, graph: &graph)
        let regionLabels = try cut(work, saliency: regional, graph: &graph)
        var labels = zip(pixelLabels, regionLabels).map { $0 & $1 }
        // No consensus at all (the two picked different objects): trust the MBD hypothesis, which
        // scores higher on the tuning half.
        if labels.allSatisfy({ $0 == 0 }) { labels = pixelLabels }
        // The consensus loses what either cut shaved off: regrow it by colour within a band round its edge.
        // With a learned map the network already keeps thin parts; regrowing them gains nothing.
        if options.subjectMap == nil {
            labels = try ConsensusGrowth.grow(work, consensus: labels,
                                              bandWidth: 0.04 * Float(max(work.width, work.height)))
        }
        MaskCleanup.keepMainComponents(&labels, width: work.width, height: work.height, relativeSize: 0.2)
        MaskCleanup.fillHoles(&labels, width: work.width, height: work.height, maxRelativeSize: 0.1)
        let subject = labels.reduce(0) { $0 + Int($1) }
        if subject * 500 < work.count { return (whole, 0) }

        // The cut sits ~2 px inside human outlines (mixed edge pixels go to the background): take the subject
        // from a quarter of the upsampled soft mask, which moves soft edges out and leaves sharp ones.
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
        // Seeds and prior a little below Otsu's split: the colour models recover better from a generous start.
        let tau = saliency.threshold * 0.9
        let steepness: Float = 8
        let prior = saliency.values.map { 1 / (1 + expf(-steepness * ($0 - tau))) }
        let initial = saliency.values.map { $0 > tau ? UInt8(1) : 0 }
        // Two rounds reach five rounds' quality at less time per cut.
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
