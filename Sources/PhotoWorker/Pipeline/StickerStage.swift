import Compute
import Foundation
import Imaging
import Inference
import JSONRPCTransport

/// Sticker work shared by `image.sticker`, `photo.process` and `pack.export`.
enum StickerStage {
    /// The cut-out, and the segmenter that made it: `StickerExtractor`'s stages on the compute threads.
    ///
    /// The stages that do not depend on each other run at once: the network's two passes (each spreading its
    /// convolutions over idle threads), beside them, once the mirror image's map is undecided, the classical maps
    /// and the face search as a guess kept only where the whole map is not decisive; then the two cuts side by side. A photo over `concurrentUpTo` pixels has its stages
    /// one after another, for memory: the passes' activations, the classical maps' full-size buffers and the
    /// cuts' then never coexist, and the peak stays near the classical cut's (concurrent stages raised a
    /// 24-megapixel sticker's by about 20 MB). The classical cut stands in for the network only when the model
    /// cannot be loaded; an error while it runs is the request's error. `memory` lends the passes their
    /// activations' blocks (the worker's, so one sticker's passes reuse the last one's).
    ///
    /// `cut` says which subject (validated against the photo here: -32602 at its `subjectPath` when a point or the
    /// box is off the photo) and whether the soft edge is decontaminated. A box under half the photo has the network
    /// map its part as well (`SubjectNetwork.map(for:focusedOn:...)`): two more passes, for a better cut of a small
    /// subject. The subject under a point is cut again from its own part of the photo when it covers under 0.8 of it
    /// (`StickerExtractor.subjectCut(from:options:photoMap:ownCutMap:on:)`): one more pass, at the mirror network's size,
    /// for the subject the person means cut as `image.subjects` cuts it, large and alone (bench/README.md).
    /// `mirrored: false` leaves out the network's pass over the mirror image (its steadier map costs about 40% of the
    /// network's time): for frames of a clip, whose masks are steadied across frames instead.
    static func extract(_ image: Image, outline: OutlineSpec?, segmenter: Segmenter, on compute: ComputeJob,
                        memory: ActivationMemory, concurrentUpTo limit: Int = SubjectNetwork.concurrentPassPixels,
                        cut: StickerCutSpec = StickerCutSpec(), mirrored: Bool = true)
        async throws -> (sticker: Sticker, segmenter: Segmenter) {
        var options = (outline ?? OutlineSpec(width: 0)).stickerOptions
        options.decontaminatesEdges = cut.decontaminate
        let (subject, used) = try await subjectCut(image, segmenter: segmenter, on: compute, memory: memory,
                                                   concurrentUpTo: limit, cut: cut, mirrored: mirrored)
        let sticker = try await compute.run { [options] piece in
            try StickerExtractor.makeSticker(image, cut: subject, options: options, on: piece)
        }
        return (sticker, used)
    }

    /// The subject ``extract(_:outline:segmenter:on:memory:concurrentUpTo:cut:mirrored:)`` cuts, by the same stages,
    /// before it is made a sticker: its mask, box and confidence (an animated sticker's key frame keeps only these).
    static func subjectCut(_ image: Image, segmenter: Segmenter, on compute: ComputeJob, memory: ActivationMemory,
                           concurrentUpTo limit: Int = SubjectNetwork.concurrentPassPixels,
                           cut: StickerCutSpec = StickerCutSpec(), mirrored: Bool = true)
        async throws -> (cut: SubjectCut, segmenter: Segmenter) {
        // What the sticker is made of (its outline, its edge's colours) is ``extract``'s: the cut is the mask's.
        var base = StickerOptions()
        base.subject = try cut.subject?.validated(for: image, path: cut.subjectPath)
        let concurrent = image.width * image.height <= limit
        if let networks = segmenter.loadedNetworks {
            // The classical maps are guessed only once the mirror image's map (the first one done) is undecided:
            // a decisive one is nearly always followed by a decisive whole map, and its photo's pass can then have
            // the second thread's help instead.
            let gate = SpeculationGate()
            let stages = PoolStages(compute, concurrent: concurrent, gate: gate)
            let options = networkOptions(base)
            // A box round a small subject: the network maps the box's part as well, seeing the subject large.
            let focus: PixelRect? = if case .box(let box) = base.subject {
                SubjectNetwork.focusRegion(for: box, width: image.width, height: image.height)
            } else {
                nil
            }
            let ready: @Sendable (SubjectMap) -> Void = { if !$0.isDecisive { gate.open() } }
            let subject = if case .points = base.subject {
                // A point: the subject under it cut again from its own part of the photo, as `image.subjects`
                // cuts each subject it lists, that part mapped with one pass at the mirror network's size.
                try await StickerExtractor.subjectCut(from: image, options: options, photoMap: {
                    try await SubjectNetwork.map(for: image, mirrored: mirrored, networks: networks, on: stages,
                                                 memory: memory, mirrorMapReady: ready)
                }, ownCutMap: ownCutMap(networks, on: stages, memory: memory), on: stages)
            } else {
                try await StickerExtractor.subjectCut(from: image, options: options, subjectMap: {
                    if let focus {
                        return try await SubjectNetwork.map(for: image, focusedOn: focus, longSide: options.workingSize,
                                                            mirrored: mirrored, networks: networks, on: stages,
                                                            memory: memory, mirrorMapReady: ready)
                    }
                    return try await SubjectNetwork.map(for: image, mirrored: mirrored, networks: networks, on: stages,
                                                        memory: memory, mirrorMapReady: ready)
                }, on: stages)
            }
            return (subject, .network)
        }
        return (try await StickerExtractor.subjectCut(from: image, options: base,
                                                      on: PoolStages(compute, concurrent: concurrent)), .classical)
    }

    /// The separate subjects of a photo (`StickerExtractor.subjects`), by the same segmenter and stages as
    /// ``extract(_:outline:segmenter:on:memory:concurrentUpTo:cut:)``: each round's map is the network's, or the
    /// classical cut alone when the model cannot be loaded or `classical` is asked for.
    static func subjects(_ image: Image, outline: OutlineSpec?, segmenter: Segmenter, decontaminate: Bool,
                         on compute: ComputeJob, memory: ActivationMemory,
                         concurrentUpTo limit: Int = SubjectNetwork.concurrentPassPixels)
        async throws -> (subjects: PhotoSubjects, segmenter: Segmenter) {
        var base = (outline ?? OutlineSpec(width: 0)).stickerOptions
        base.decontaminatesEdges = decontaminate
        let stages = PoolStages(compute, concurrent: image.width * image.height <= limit)
        if let networks = segmenter.loadedNetworks {
            // Every round's map decides with the classical maps' help where it is unsure (`networkOptions`), without a
            // guess: no speculation gate here.
            let found = try await StickerExtractor.subjects(in: image, options: networkOptions(base), subjectMap: { photo in
                try await SubjectNetwork.map(for: photo, mirrored: true, networks: networks, on: stages, memory: memory)
            }, ownCutMap: ownCutMap(networks, on: stages, memory: memory), on: stages)
            return (found, .network)
        }
        return (try await StickerExtractor.subjects(in: image, options: base, on: stages), .classical)
    }

    /// The map of a subject's own part (a point's, or each subject `image.subjects` lists, cut again on its own): one
    /// pass at the mirror network's size, unmirrored (bench/README.md, issue #47).
    static func ownCutMap(_ networks: SubjectNetwork.Networks, on stages: PoolStages, memory: ActivationMemory)
        -> @Sendable (Image) async throws -> SubjectMap {
        { photo in try await SubjectNetwork.map(for: photo, mirrored: false, networks: networks.small, on: stages, memory: memory) }
    }

    /// The settings of the network's cut-out, chosen on the tuning half of sticker-dev
    /// (bench/README.md): the map (of the photo and of its mirror image) square-rooted, weighted 0.8
    /// against the classical saliency, cut at 480 px; the classical maps only where the map is not decisive.
    /// `subjectMap` is left to the caller.
    static func networkOptions(_ base: StickerOptions) -> StickerOptions {
        var options = base
        options.subjectMapWeight = 0.8
        options.subjectMapExponent = 0.5
        options.workingSize = 480
        options.learnedMapAloneWhenDecisive = true
        return options
    }

    /// The mask as an 8-bit grey PNG, or a lossless WebP (grey in R, G and B, opaque): masks keep exact values.
    static func writeMask(_ mask: Mask, to spec: OutputSpec, access: FileAccess, on loop: some ParallelLoop) throws -> OutputResult {
        let encoded: [UInt8]
        do {
            if spec.format == .webp {
                encoded = try ImageCodec.encodeWebP(mask.greyImage, lossless: true)
            } else {
                encoded = try ImageCodec.encodeGrayPNG(width: mask.width, height: mask.height, gray: mask.values, on: loop)
            }
        } catch let error as ImagingError {
            throw WorkerError.encodingFailed(detail: error.message)
        }
        var r = OutputResult(path: nil, data: nil, format: spec.format == .webp ? .webp : .png, width: mask.width,
                             height: mask.height, bytes: encoded.count)
        if spec.inline {
            r.data = Data(encoded).base64EncodedString()
        } else {
            try access.writeAtomically(encoded, to: spec.path!, overwrite: spec.overwrite, on: loop)
            r.path = spec.path
        }
        return r
    }

    /// The gradient sticker: the sticker over a linear gradient of the palette colours, with a
    /// margin so the gradient frames the cut-out (as the app's GradientSticker shows it).
    static func gradientSticker(_ sticker: Image, colors: [RGBA], on compute: ComputeJob) async throws -> Image {
        try await compute.run { loop in try gradientSticker(sticker, colors: colors, on: loop) }
    }

    static func gradientSticker(_ sticker: Image, colors: [RGBA], on loop: some ParallelLoop) throws -> Image {
        let margin = max(8, min(sticker.width, sticker.height) / 10)
        let w = sticker.width + 2 * margin, h = sticker.height + 2 * margin
        let stops = colors.isEmpty ? [RGBA(r: 255, g: 255, b: 255)] : colors
        var canvas = Compositing.linearGradient(width: w, height: h, colors: stops, angleDegrees: 135)
        try loop.checkCancellation()
        Compositing.over(sticker, onto: &canvas, at: margin, y: margin)
        return canvas
    }
}

extension Sticker {
    /// Coverage as results report it (four decimals).
    var reportedCoverage: Double { (coverage * 10_000).rounded() / 10_000 }
    /// Confidence as results report it (three decimals).
    var reportedConfidence: Double { (confidence * 1000).rounded() / 1000 }
}
