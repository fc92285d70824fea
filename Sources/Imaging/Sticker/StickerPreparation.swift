import Compute
import Foundation

/// What the photo alone gives the cut-out, before its faces and its subject map are known: either
/// the answer itself, or the working copy and the two classical saliency hypotheses.
///
/// The first stage of `StickerExtractor`'s stage graph, separate so it can run beside the stages it
/// does not depend on (the face search, the network's passes); `plan(faces:options:)` then joins them.
public struct StickerPreparation: Sendable {
    enum Content: Sendable {
        /// Nothing to cut: transparent, already a cut-out, too small or without visible structure.
        case decided(mask: Mask, confidence: Double)
        case maps(work: LabImage, saliency: SaliencyMap, regional: SaliencyMap)
        /// The working copy alone: the learned map will be the whole prior.
        case learnedOnly(work: LabImage)
    }

    let content: Content
    /// The photo's width, for placing the person prior below its faces.
    let sourceWidth: Int

    /// The classical maps of `image` at `options.workingSize`, the same whatever `loop` decides: two pairs of
    /// independent maps, the second map of the second pair needed only when the first shows visible structure
    /// (``ParallelLoop/both(_:_:)``, ``ParallelLoop/both(_:then:if:)``). The piece of a concurrent runner's stage makes
    /// each pair at once where its pool has an idle thread (a lone sticker's classical maps often run after its
    /// passes, on one core otherwise); that of one that runs stages in turn (a large photo, for memory) makes them
    /// one after another.
    /// - Throws: `CancellationError`.
    public init(_ image: Image, options: StickerOptions, on loop: some ParallelLoop) throws {
        try self.init(image, options: options, on: loop, work: nil)
    }

    /// As above, with the photo's ``workingCopy(of:options:)`` when it has been made already (`work`).
    init(_ image: Image, options: StickerOptions, on loop: some ParallelLoop, work: LabImage?) throws {
        sourceWidth = image.width
        if loop.isCancelled { throw CancellationError() }
        if let decided = Self.decidedWithoutMaps(image) { content = decided; return }

        let work = try work ?? Self.workingCopy(of: image, options: options, on: loop)
        // Texture as three more barrier channels (weight 2.5): a subject fenced off by texture rather than colour
        // stands out. Defocus as a barrier channel and a region distance, scaled by how much of the photo is out
        // of focus.
        let textureMap = { @Sendable () throws -> [Float] in try TextureFeatures(work, on: loop).values }
        let focusMap = { @Sendable () throws -> FocusFeatures in
            try FocusFeatures(image, width: work.width, height: work.height, on: loop)
        }
        let (texture, focus) = try loop.both(textureMap, focusMap)
        // Two independent saliency hypotheses (pixel MBD, region robust-background), each cut on its own; their
        // errors are largely independent, so the consensus of the two cuts is kept.
        let pixelMap = { @Sendable () throws -> SaliencyMap in
            try SaliencyMap(work, texture: texture, textureWeight: 2.5, focus: focus.values,
                            focusWeight: 70 * focus.strength, on: loop)
        }
        let regionMap = { @Sendable () throws -> RobustBackgroundSaliency in
            try RobustBackgroundSaliency(work, texture: texture, textureWeight: 0.5, focus: focus.values,
                                         focusWeight: 100 * focus.strength, on: loop)
        }
        // Below ~2 Lab units of barrier summed over three channels the image has no visible structure: the region
        // map is then not needed.
        let (saliency, region) = try loop.both(pixelMap, then: regionMap, if: { $0.rawStrength >= 2 })
        guard saliency.rawStrength >= 2, let region else {
            content = .decided(mask: Mask(width: image.width, height: image.height, repeating: 255), confidence: 0)
            return
        }
        content = .maps(work: work, saliency: saliency, regional: saliency.blended(withRegion: region.values, weight: 1))
    }

    /// The checks of `init(_:options:)` that need no map (transparent, already a cut-out, too small) and the
    /// working copy (``workingCopy(of:options:)``), without the classical maps: for a cut-out whose learned map
    /// decides it alone.
    init(learnedOnly image: Image, work: LabImage) {
        sourceWidth = image.width
        content = Self.decidedWithoutMaps(image) ?? .learnedOnly(work: work)
    }

    /// The reduced copy the cut-out is made at (`options.workingSize` on the long side, in CIELAB).
    /// - Throws: `CancellationError`.
    static func workingCopy(of image: Image, options: StickerOptions, on loop: some ParallelLoop) throws -> LabImage {
        try LabImage(image, maxSide: min(1024, max(32, options.workingSize)), on: loop)
    }

    /// The answer for a photo that needs no cut at all: entirely transparent or too small (the whole image),
    /// or already a cut-out (its own alpha); nil for a photo to cut.
    static func decidedWithoutMaps(_ image: Image) -> Content? {
        let w = image.width, h = image.height, n = w * h
        var whole: Mask { Mask(width: w, height: h, repeating: 255) }  // made only when it is the answer
        var transparent = 0
        image.pixels.withUnsafeBufferPointer { px in
            var i = 3
            while i < px.count { if px[i] < 128 { transparent += 1 }; i += 4 }
        }
        if transparent == n { return .decided(mask: whole, confidence: 0) }
        if transparent * 100 > n {
            var alpha = [UInt8](repeating: 0, count: n)
            image.pixels.withUnsafeBufferPointer { px in for i in 0..<n { alpha[i] = px[4 * i + 3] } }
            return .decided(mask: Mask(width: w, height: h, values: alpha), confidence: 1)
        }
        if min(w, h) < 8 { return .decided(mask: whole, confidence: 0) }
        return nil
    }

    /// The faces the person prior is built from, as the cut-out looks for them.
    /// - Throws: `CancellationError`.
    public static func faces(in image: Image, on loop: some ParallelLoop) throws -> [PixelRect] {
        try FaceDetector.detect(in: image, maxSide: 320, scaleFactor: 1.2, minNeighbors: 4, minRelativeSize: 0.1, on: loop)
    }

    /// The two hypotheses to cut: the classical maps raised on the head and upper body below each
    /// face, then led by `options.subjectMap` where there is one.
    public func plan(faces: [PixelRect], options: StickerOptions) -> StickerCutPlan {
        let work: LabImage
        var saliency: SaliencyMap, regional: SaliencyMap
        switch content {
        case .decided(let mask, let confidence):
            return StickerCutPlan(content: .decided(mask: mask, confidence: confidence), subject: options.subject)
        case .learnedOnly(let only):
            guard let learned = options.subjectMap else { preconditionFailure("a learned-only preparation without a map") }
            // The map alone is both hypotheses: what the blend below gives at weight 1.
            let prior = SaliencyMap(values: Self.prior(learned, on: only, options: options), width: only.width, height: only.height)
            return StickerCutPlan(content: .cuts(work: only, pixel: prior, region: prior, learned: true),
                                  subject: options.subject)
        case .maps(let w, let s, let r):
            (work, saliency, regional) = (w, s, r)
        }
        // Faces: the one object-level cue; head and upper body are raised so a portrait cut by the
        // frame keeps its body.
        if options.detectsFaces && !faces.isEmpty {
            let person = PersonPrior.map(faces: faces, sourceWidth: sourceWidth, width: work.width, height: work.height)
            saliency = saliency.raised(by: person)
            regional = regional.raised(by: person)
        }
        if let learned = options.subjectMap {
            // The learned map leads both priors; the classical maps only move it where it is unsure.
            let net = Self.prior(learned, on: work, options: options)
            let a = min(1, max(0, options.subjectMapWeight))
            saliency = SaliencyMap(values: zip(net, saliency.values).map { a * $0 + (1 - a) * $1 },
                                   width: work.width, height: work.height)
            regional = SaliencyMap(values: zip(net, regional.values).map { a * $0 + (1 - a) * $1 },
                                   width: work.width, height: work.height)
        }
        return StickerCutPlan(content: .cuts(work: work, pixel: saliency, region: regional,
                                             learned: options.subjectMap != nil), subject: options.subject)
    }

    /// The learned map as the priors take it: at the working copy's size, raised to `subjectMapExponent`.
    static func prior(_ learned: SubjectMap, on work: LabImage, options: StickerOptions) -> [Float] {
        var net = learned.resampled(width: work.width, height: work.height)
        if options.subjectMapExponent != 1 {
            let e = max(0.01, options.subjectMapExponent)
            net = net.map { powf(max(0, $0), e) }
        }
        return net
    }
}
