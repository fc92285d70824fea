import Foundation
import Imaging
import JSONRPC

/// `image.sticker {"source", "outline", "output", "maskOutput"}`: the photo's main subject cut
/// out as RGBA with a feathered edge and an optional outline.
struct ImageStickerMethod: RPCMethod {
    static let name = "image.sticker"
    static let cost = MethodCost.compute
    static let summary = "Cut the main subject out as an RGBA sticker (optional outline and mask)."

    struct Params: Decodable, Sendable {
        var source: ImageSource
        var outline: OutlineSpec?
        var output: OutputSpec
        /// Also write the full-size subject mask (greyscale PNG, 255 = subject).
        var maskOutput: OutputSpec?
    }

    struct Result: Encodable, Sendable {
        var output: OutputResult
        var mask: OutputResult?
        var boundingBox: Box
        var coverage: Double
        var confidence: Double
        var ms: Double
    }

    let services: WorkerServices

    func handle(_ params: Params, context: RequestContext) async throws -> Result {
        let access = await services.access()
        let start = ContinuousClock.now
        if let m = params.maskOutput, m.format != .png {
            throw RPCError.invalidParams(path: "maskOutput.format", "the mask is written as PNG")
        }
        let decoded = try await services.loader.load(params.source, access: access)
        let sticker = try await StickerStage.extract(decoded.image, outline: params.outline, on: services.compute)
        let output = try await OutputWriter.write(sticker.image, to: params.output, access: access, on: services.compute)
        var mask: OutputResult?
        if let spec = params.maskOutput {
            let stickerMask = sticker.mask
            mask = try await services.compute.run { try StickerStage.writeMask(stickerMask, to: spec, access: access) }
        }
        return Result(
            output: output, mask: mask, boundingBox: Box(sticker.boundingBox),
            coverage: (sticker.coverage * 10_000).rounded() / 10_000,
            confidence: (sticker.confidence * 1000).rounded() / 1000, ms: start.millisecondsElapsed)
    }
}

/// A rectangle on the wire.
public struct Box: Sendable, Codable, Equatable {
    public var x: Int, y: Int, width: Int, height: Int
    init(_ r: PixelRect) {
        x = r.x; y = r.y; width = r.width; height = r.height
    }
}

/// Sticker work shared by `image.sticker`, `photo.process` and `pack.export`.
enum StickerStage {
    static func extract(_ image: Image, outline: OutlineSpec?, on compute: ComputePool) async throws -> Sticker {
        let options = (outline ?? OutlineSpec(width: 0)).stickerOptions
        return try await compute.run { try StickerExtractor.extract(from: image, options: options) }
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
