import Imaging
import JSONRPC
import JSONRPCTransport

/// `photo.process {"source", "count", "outline", "output": {"dir"}}`: sticker, palette and
/// gradient sticker of one photo.
struct PhotoProcessMethod: RPCMethod {
    static let name = "photo.process"
    static let cost = MethodCost.compute
    static let summary = "One photo: sticker and palette in parallel, then the gradient sticker; files `<name>-sticker.png`, `<name>-gradient.png`."

    struct Params: Decodable, Sendable {
        var source: ImageSource
        var count: Int?
        var outline: OutlineSpec?
        /// `network` (default) or `classical` (see ``Segmenter``).
        var segmenter: Segmenter?
        var output: OutputDirectorySpec
        /// File-name stem; default: the source file's name.
        var name: String?
        /// Which subject (``SubjectSpec``); absent: the main subject the cut finds.
        var subject: SubjectSpec?
        /// The soft edge in the subject's own estimated colour (default true); false keeps the photo's colours.
        var decontaminate: Bool?
    }

    let services: WorkerServices

    func handle(_ params: Params, context: RequestContext) async throws -> PhotoProcessor.Result {
        let count = try PaletteStage.validCount(params.count)
        let access = await services.access()
        try OutputCheck.prepare(params.output, access: access)
        let name = try Self.checkedName(params.name ?? PhotoProcessor.stem(for: params.source))
        return try await PhotoProcessor(services: services, access: access, compute: services.computeJob(for: context)).process(
            params.source, name: name, count: count, outline: .orStandard(params.outline), directory: params.output.dir,
            segmenter: params.segmenter ?? .network,
            overwrite: params.output.overwritesFiles,
            cut: .init(subject: params.subject, decontaminate: StickerCutSpec.decontaminateParam.value(params.decontaminate)))
    }
}

extension PhotoProcessMethod {
    static let contract: MethodContract = #"""
        {
          "params": [
            {"name": "source", "schema": {"$ref": "#/components/schemas/Source"}, "required": true},
            \#(PaletteStage.count.entry()),
            {"name": "outline", "schema": {"$ref": "#/components/schemas/Outline"}, "required": false},
            {"name": "output", "schema": {"$ref": "#/components/schemas/OutputDirectory"}, "required": true},
            {
              "name": "name",
              "schema": {"type": "string", "minLength": 1, "pattern": "^[^/]+$"},
              "required": false,
              "description": "File-name stem; default: the source's."
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
          "result": {"name": "PhotoResult", "schema": {"$ref": "#/components/schemas/PhotoResult"}},
          "errors": [\#(WorkerError.outputMethodErrors)]
        }
        """#
}

extension PhotoProcessMethod {
    /// The shared schemas `FileRef`, `PhotoResult` of the OpenRPC document's components.
    static let contractSchemas: [ContractSchema] = [
        ContractSchema("FileRef", #"""
            {
              "type": "object",
              "properties": {
                "path": {"type": "string"},
                "width": {"type": "integer", "minimum": 0},
                "height": {"type": "integer", "minimum": 0},
                "bytes": {"type": "integer", "minimum": 0}
              },
              "required": ["path", "width", "height", "bytes"],
              "additionalProperties": false
            }
            """#),
        ContractSchema("PhotoResult", #"""
            {
              "type": "object",
              "properties": {
                "source": {"type": "string"},
                "palette": {"type": "array", "items": {"$ref": "#/components/schemas/PaletteColor"}},
                "sticker": {"$ref": "#/components/schemas/FileRef"},
                "gradientSticker": {"$ref": "#/components/schemas/FileRef"},
                "boundingBox": {"$ref": "#/components/schemas/Box"},
                "coverage": {"type": "number", "minimum": 0, "maximum": 1},
                "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                "timings": {
                  "type": "object",
                  "properties": {
                    "decodeMs": {"type": "number"},
                    "stickerMs": {"type": "number"},
                    "paletteMs": {"type": "number"},
                    "gradientMs": {"type": "number"},
                    "writeMs": {"type": "number"},
                    "totalMs": {"type": "number"}
                  },
                  "required": ["decodeMs", "stickerMs", "paletteMs", "gradientMs", "writeMs", "totalMs"],
                  "additionalProperties": false
                },
                "segmenter": {"$ref": "#/components/schemas/Segmenter"},
                "segmenterReason": \#(Segmenter.reasonSchema)
              },
              "required": [
                "source",
                "palette",
                "sticker",
                "gradientSticker",
                "boundingBox",
                "coverage",
                "confidence",
                "timings",
                "segmenter"
              ],
              "additionalProperties": false
            }
            """#),
    ]
}

extension PhotoProcessMethod: MCPToolMethod {
    static let tool = MCPTool(title: "Process a photo", effects: .writesOutputs)
}

extension PhotoProcessMethod {
    /// A file-name stem: not empty, no folder.
    static func checkedName(_ name: String) throws -> String {
        guard !name.isEmpty, !name.contains("/") else { throw RPCError.invalidParams(path: "name", "must be a plain file name") }
        return name
    }
}

extension PhotoProcessMethod {
    static let estimatesMemory = true

    func memoryEstimate(for params: inout Params, context: RequestContext) async throws -> Int {
        _ = try PaletteStage.validCount(params.count)
        if let name = params.name { _ = try Self.checkedName(name) }
        let facts = try await services.estimateFacts(of: &params.source)
        return MemoryEstimate.photo(facts, segmenter: params.segmenter ?? .network)
    }
}
