import Foundation
import Imaging
import Inference

/// Sticker work shared by `image.sticker`, `photo.process` and `pack.export`.
enum StickerStage {
    /// The cut-out, and the segmenter that made it.
    static func extract(_ image: Image, outline: OutlineSpec?, segmenter: Segmenter,
                        on compute: ComputePool) async throws -> (sticker: Sticker, segmenter: Segmenter) {
        var options = (outline ?? OutlineSpec(width: 0)).stickerOptions
        var used = segmenter
        if segmenter == .network {
            do {
                // Settings chosen on the tuning half of sticker-dev (bench/README.md): the map of the
                // photo and of its mirror image, square-rooted, weighted 0.8 against the classical
                // saliency, cut at 480 px.
                options.subjectMap = try await SubjectNetwork.mirroredMap(for: image, on: compute)
                options.subjectMapWeight = 0.8
                options.subjectMapExponent = 0.5
                options.workingSize = 480
            } catch is InferenceError {
                used = .classical
            }
        }
        let settled = options
        return (try await compute.run { try StickerExtractor.extract(from: image, options: settled) }, used)
    }

    static func writeMask(_ mask: Mask, to spec: OutputSpec, access: FileAccess) throws -> OutputResult {
        let png: [UInt8]
        do {
            png = try ImageCodec.encodeGrayPNG(width: mask.width, height: mask.height, gray: mask.values)
        } catch {
            throw WorkerError.encodingFailed(detail: error.message)
        }
        var r = OutputResult(path: nil, data: nil, format: .png, width: mask.width, height: mask.height, bytes: png.count)
        if spec.inline {
            r.data = Data(png).base64EncodedString()
        } else {
            try access.writeAtomically(png, to: spec.path!, overwrite: spec.overwrite)
            r.path = spec.path
        }
        return r
    }

    /// The gradient sticker: the sticker over a linear gradient of the palette colours, with a
    /// margin so the gradient frames the cut-out (as the app's GradientSticker shows it).
    static func gradientSticker(_ sticker: Image, colors: [RGBA], on compute: ComputePool) async throws -> Image {
        try await compute.run { try gradientSticker(sticker, colors: colors) }
    }

    static func gradientSticker(_ sticker: Image, colors: [RGBA]) throws -> Image {
        let margin = max(8, min(sticker.width, sticker.height) / 10)
        let w = sticker.width + 2 * margin, h = sticker.height + 2 * margin
        let stops = colors.isEmpty ? [RGBA(r: 255, g: 255, b: 255)] : colors
        let background = Compositing.linearGradient(width: w, height: h, colors: stops, angleDegrees: 135)
        try Cancellation.check()
        return Compositing.over(sticker, on: background, at: margin, y: margin)
    }
}

extension Sticker {
    /// Coverage as results report it (four decimals).
    var reportedCoverage: Double { (coverage * 10_000).rounded() / 10_000 }
    /// Confidence as results report it (three decimals).
    var reportedConfidence: Double { (confidence * 1000).rounded() / 1000 }
}
