import Foundation
import Imaging
import JSONRPC
import JSONRPCTransport

/// `image.sticker {"source", "outline", "output", "maskOutput", "segmenter", "subject", "decontaminate"}`: the
/// photo's main subject (or the one `subject` points at) cut out as RGBA with a feathered edge in the subject's own
/// colour and an optional outline.
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
        /// `network` (default) or `classical`.
        var segmenter: Segmenter?
        /// Which subject (``SubjectSpec``); absent: the main subject the cut finds.
        var subject: SubjectSpec?
        /// The soft edge in the subject's own estimated colour (default true); false keeps the photo's colours.
        var decontaminate: Bool?
    }

    struct Result: Encodable, Sendable {
        var output: OutputResult
        var mask: OutputResult?
        var boundingBox: Box
        var coverage: Double
        var confidence: Double
        /// The segmenter that ran.
        var segmenter: Segmenter
        var ms: Double
    }

    let services: WorkerServices

    func handle(_ params: Params, context: RequestContext) async throws -> Result {
        let access = await services.access()
        let start = ContinuousClock.now
        if let m = params.maskOutput, m.format == .jpeg {
            throw RPCError.invalidParams(path: "maskOutput.format", "the mask is written as PNG or lossless WebP")
        }
        let decoded = try await services.loader.load(params.source, access: access)
        let (sticker, segmenter) = try await StickerStage.extract(decoded.image, outline: params.outline,
                                                                  segmenter: params.segmenter ?? .network, on: services.compute,
                                                                  memory: services.activations,
                                                                  cut: .init(subject: params.subject,
                                                                             decontaminate: params.decontaminate ?? true))
        let output = try await OutputWriter.write(sticker.image, to: params.output, access: access, on: services.compute)
        var mask: OutputResult?
        if let spec = params.maskOutput {
            let stickerMask = sticker.mask
            mask = try await services.compute.run { try StickerStage.writeMask(stickerMask, to: spec, access: access) }
        }
        return Result(
            output: output, mask: mask, boundingBox: Box(sticker.boundingBox),
            coverage: sticker.reportedCoverage, confidence: sticker.reportedConfidence, segmenter: segmenter,
            ms: start.millisecondsElapsed)
    }
}
