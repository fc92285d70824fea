import Compute
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
        /// Why it is that one, or what it ran without (``Segmenter/reason(asked:)``); absent when nothing is missing.
        var segmenterReason: String?
        var ms: Double
    }

    let services: WorkerServices

    func handle(_ params: Params, context: RequestContext) async throws -> Result {
        let compute = services.computeJob(for: context)
        let access = await services.access()
        let start = ContinuousClock.now
        try Self.checkMaskOutput(params)
        try OutputCheck.check(params.output, access: access)
        if let mask = params.maskOutput { try OutputCheck.check(mask, access: access) }
        let decoded = try await services.loader.load(params.source, access: access, on: compute)
        let (sticker, segmenter) = try await StickerStage.extract(decoded.image, outline: .orStandard(params.outline),
                                                                  segmenter: params.segmenter ?? .network, on: compute,
                                                                  memory: services.activations,
                                                                  cut: .init(subject: params.subject,
                                                                             decontaminate: StickerCutSpec.decontaminateParam.value(params.decontaminate)))
        let output = try await OutputWriter.write(sticker.image, to: params.output, access: access, on: compute)
        var mask: OutputResult?
        if let spec = params.maskOutput {
            let stickerMask = sticker.mask
            mask = try await compute.run { loop in try StickerStage.writeMask(stickerMask, to: spec, access: access, on: loop) }
        }
        return Result(
            output: output, mask: mask, boundingBox: Box(sticker.boundingBox),
            coverage: sticker.reportedCoverage, confidence: sticker.reportedConfidence, segmenter: segmenter,
            segmenterReason: segmenter.reason(asked: params.segmenter ?? .network), ms: start.millisecondsElapsed)
    }
}

extension ImageStickerMethod {
    static let contract: MethodContract = #"""
        {
          "params": [
            {"name": "source", "schema": {"$ref": "#/components/schemas/Source"}, "required": true},
            {"name": "outline", "schema": {"$ref": "#/components/schemas/Outline"}, "required": false},
            {"name": "output", "schema": {"$ref": "#/components/schemas/Output"}, "required": true},
            {
              "name": "maskOutput",
              "schema": {"$ref": "#/components/schemas/Output"},
              "required": false,
              "description": "Also write the subject mask (PNG only)."
            },
            {
              "name": "segmenter",
              "schema": {"$ref": "#/components/schemas/Segmenter"},
              "description": "`network` (default) or `classical`."
            },
            {
              "name": "subject",
              "schema": {"$ref": "#/components/schemas/Subject"},
              "required": false,
              "description": "Which subject to cut out; absent, the main subject the worker finds (unchanged behaviour)."
            },
            \#(StickerCutSpec.decontaminateParam.entry())
          ],
          "result": {
            "name": "Sticker",
            "schema": {
              "type": "object",
              "properties": {
                "output": {"$ref": "#/components/schemas/OutputResult"},
                "mask": {"$ref": "#/components/schemas/OutputResult"},
                "boundingBox": {"$ref": "#/components/schemas/Box"},
                "coverage": {
                  "type": "number",
                  "minimum": 0,
                  "maximum": 1,
                  "description": "Share of the image that is subject."
                },
                "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                "ms": {"type": "number", "minimum": 0, "description": "Wall time of the job in milliseconds."},
                "segmenter": {"$ref": "#/components/schemas/Segmenter"},
                "segmenterReason": \#(Segmenter.reasonSchema)
              },
              "required": ["output", "boundingBox", "coverage", "confidence", "ms", "segmenter"],
              "additionalProperties": false
            }
          },
          "errors": [\#(WorkerError.outputMethodErrors)]
        }
        """#
}

extension ImageStickerMethod {
    /// The shared schemas `Box`, `Segmenter` of the OpenRPC document's components.
    static let contractSchemas: [ContractSchema] = [
        ContractSchema("Box", #"""
            {
              "type": "object",
              "properties": {
                "x": {"type": "integer", "minimum": 0},
                "y": {"type": "integer", "minimum": 0},
                "width": {"type": "integer", "minimum": 0},
                "height": {"type": "integer", "minimum": 0}
              },
              "required": ["x", "y", "width", "height"],
              "additionalProperties": false
            }
            """#),
        ContractSchema("Segmenter", #"""
            {
              "enum": ["network", "classical"],
              "description": "Which cut-out makes the sticker: `network` (default) fuses U²-Netp's subject map (the photo and its mirror image) with the classical saliency maps, edges placed at full resolution by a colour-guided upsampling; `classical` is the classical cut alone (saliency, colour-model graph cut, face prior), no network. Results name the one that ran (`network` falls back to `classical` if the model cannot be loaded)."
            }
            """#),
    ]
}

extension ImageStickerMethod: MCPToolMethod {
    static let tool = MCPTool(title: "Sticker cut-out", effects: .writesOutputs)
}

extension ImageStickerMethod {
    static let estimatesMemory = true

    static func checkMaskOutput(_ params: Params) throws {
        if let m = params.maskOutput, m.format == .jpeg {
            throw RPCError.invalidParams(path: "maskOutput.format", "the mask is written as PNG or lossless WebP")
        }
    }

    func memoryEstimate(for params: inout Params, context: RequestContext) async throws -> Int {
        try Self.checkMaskOutput(params)
        let facts = try await services.estimateFacts(of: &params.source)
        return MemoryEstimate.sticker(facts, segmenter: params.segmenter ?? .network)
    }
}
