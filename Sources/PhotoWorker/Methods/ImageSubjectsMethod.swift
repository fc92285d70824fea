import Compute
import Foundation
import Imaging
import JSONRPC
import JSONRPCTransport

/// `image.subjects {"source", "segmenter", "max", "stickers", "outline", "decontaminate"}`: the separate subjects of
/// a photo, largest first, each with its box, area, score and a point that selects it (as `subject: {"point": ...}`
/// on the sticker methods), so a UI can ask "which one?"; with `stickers`, each also as its own sticker file.
struct ImageSubjectsMethod: RPCMethod {
    static let name = "image.subjects"
    static let cost = MethodCost.compute
    static let summary = "The separate subjects of a photo (box, area, score, a point that selects each), largest first; optionally each as a sticker file."

    struct Params: Decodable, Sendable {
        var source: ImageSource
        /// `network` (default) or `classical`.
        var segmenter: Segmenter?
        /// At most this many subjects (1...32, default 8).
        var max: Int?
        /// Write each subject's sticker into this folder as `<stem>-subject-<n>.png` (n from 1, in result order).
        var stickers: OutputDirectorySpec?
        var outline: OutlineSpec?
        var decontaminate: Bool?
    }

    struct Subject: Encodable, Sendable {
        var box: Box
        var area: Double
        var score: Double
        /// [x, y]: pass as `"subject": {"point": [x, y]}` to cut this subject out.
        var point: [Int]
        var sticker: PhotoProcessor.FileRef?
    }

    struct Result: Encodable, Sendable {
        var subjects: [Subject]
        var segmenter: Segmenter
        /// Why it is that one, or what it ran without; absent when nothing is missing.
        var segmenterReason: String?
        var ms: Double
    }

    let services: WorkerServices

    func handle(_ params: Params, context: RequestContext) async throws -> Result {
        let compute = services.computeJob(for: context)
        let start = ContinuousClock.now
        let limit = try Self.checkedMax(params)
        let access = await services.access()
        if let dir = params.stickers { try OutputCheck.prepare(dir, access: access) }
        let image = try await services.loader.load(params.source, access: access, on: compute).image
        let (found, segmenter) = try await StickerStage.subjects(image, outline: .orStandard(params.outline),
                                                                 segmenter: params.segmenter ?? .network,
                                                                 decontaminate: StickerCutSpec.decontaminateParam.value(params.decontaminate),
                                                                 on: compute, memory: services.activations)
        var subjects: [Subject] = []
        let stem = PhotoProcessor.stem(for: params.source)
        for (i, s) in found.subjects.prefix(limit).enumerated() {
            var file: PhotoProcessor.FileRef?
            if let dir = params.stickers {
                let sticker = try await compute.run { loop in try found.sticker(of: i, from: image, on: loop).image }
                let path = "\(dir.dir)/\(stem)-subject-\(i + 1).png"
                let written = try await OutputWriter.write(sticker, to: OutputSpec(path: path, overwrite: dir.overwritesFiles),
                                                           access: access, on: compute)
                file = PhotoProcessor.FileRef(path: path, width: written.width, height: written.height, bytes: written.bytes)
            }
            subjects.append(Subject(box: Box(s.box), area: (s.area * 10_000).rounded() / 10_000,
                                    score: (s.score * 1000).rounded() / 1000, point: [s.point.x, s.point.y], sticker: file))
        }
        return Result(subjects: subjects, segmenter: segmenter,
                      segmenterReason: segmenter.reason(asked: params.segmenter ?? .network), ms: start.millisecondsElapsed)
    }
}

extension ImageSubjectsMethod {
    static let contract: MethodContract = #"""
        {
          "description": "Each subject's `point` passed as `\"subject\": {\"point\": [x, y]}` to `image.sticker` (or another sticker method) cuts that subject out. The subjects are found in rounds: each round after the first cuts the largest strip of the photo beside the subjects found so far, so a second subject the first map suppresses is found too; then each of the four largest subjects (under 0.8 of the photo) is cut again from its own part of the photo, where the map sees it large and alone: its box, point and sticker file are that cut's (one more network pass each, at a smaller size; one more again for a subject that reaches its part's edge, cut from a part widened there).",
          "params": [
            {"name": "source", "schema": {"$ref": "#/components/schemas/Source"}, "required": true},
            {
              "name": "segmenter",
              "schema": {"$ref": "#/components/schemas/Segmenter"},
              "description": "`network` (default) or `classical`."
            },
            \#(Self.subjectLimit.entry(description: "At most this many subjects.")),
            {
              "name": "stickers",
              "schema": {"$ref": "#/components/schemas/OutputDirectory"},
              "required": false,
              "description": "Also write each subject's sticker into this folder as `<stem>-subject-<n>.png` (n from 1, in result order)."
            },
            {
              "name": "outline",
              "schema": {"$ref": "#/components/schemas/Outline"},
              "required": false,
              "description": "The stickers' outline (\#(OutlineSpec.standard.width) px of white by default, as every sticker's; {\"width\": 0} for none)."
            },
            \#(StickerCutSpec.decontaminateParam.entry())
          ],
          "result": {
            "name": "Subjects",
            "schema": {
              "type": "object",
              "properties": {
                "subjects": {
                  "type": "array",
                  "items": {
                    "type": "object",
                    "properties": {
                      "box": {"$ref": "#/components/schemas/Box"},
                      "area": {
                        "type": "number",
                        "minimum": 0,
                        "maximum": 1,
                        "description": "Share of the photo the subject covers."
                      },
                      "score": {
                        "type": "number",
                        "minimum": 0,
                        "maximum": 1,
                        "description": "How salient the subject is: the mean of the cut's subject prior over it."
                      },
                      "point": {"$ref": "#/components/schemas/Point"},
                      "sticker": {"$ref": "#/components/schemas/FileRef"}
                    },
                    "required": ["box", "area", "score", "point"],
                    "additionalProperties": false
                  }
                },
                "segmenter": {"$ref": "#/components/schemas/Segmenter"},
                "segmenterReason": \#(Segmenter.reasonSchema),
                "ms": {"type": "number", "minimum": 0, "description": "Wall time of the job in milliseconds."}
              },
              "required": ["subjects", "segmenter", "ms"],
              "additionalProperties": false
            }
          },
          "errors": [\#(WorkerError.outputMethodErrors)]
        }
        """#
}

extension ImageSubjectsMethod: MCPToolMethod {
    static let tool = MCPTool(title: "Find subjects", effects: .writesOutputs)
}

extension ImageSubjectsMethod {
    static let estimatesMemory = true

    /// How many subjects at most.
    static let subjectLimit = NumberParam<Int>("max", 1...32, default: 8)

    static func checkedMax(_ params: Params) throws -> Int {
        try Self.subjectLimit.value(params.max)
    }

    func memoryEstimate(for params: inout Params, context: RequestContext) async throws -> Int {
        _ = try Self.checkedMax(params)
        let facts = try await services.estimateFacts(of: &params.source)
        return MemoryEstimate.subjects(facts)
    }
}
