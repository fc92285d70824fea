import Imaging
import JSONRPC
import JSONRPCTransport

/// `image.convert {"source", "output", "allowTruncated"}`: decode (orientation applied) and
/// re-encode as PNG, JPEG or WebP; metadata is stripped.
struct ImageConvertMethod: RPCMethod {
    static let name = "image.convert"
    static let cost = MethodCost.compute
    static let summary = "Decode any supported image and write it as PNG, JPEG or WebP."

    struct Params: Decodable, Sendable {
        var source: ImageSource
        var output: OutputSpec
        var allowTruncated: Bool?
    }

    static let allowTruncated = FlagParam("allowTruncated", default: false)

    struct Result: Encodable, Sendable {
        var output: OutputResult
        var sourceFormat: ImageFormat
        var warnings: [String]
    }

    let services: WorkerServices

    func handle(_ params: Params, context: RequestContext) async throws -> Result {
        let compute = services.computeJob(for: context)
        let access = await services.access()
        try OutputCheck.check(params.output, access: access)
        let decoded = try await services.loader.load(params.source, access: access, allowTruncated: Self.allowTruncated.value(params.allowTruncated), on: compute)
        let output = try await OutputWriter.write(decoded.image, to: params.output, access: access, on: compute)
        return Result(output: output, sourceFormat: decoded.metadata.format, warnings: decoded.warnings)
    }
}

extension ImageConvertMethod {
    static let contract: MethodContract = #"""
        {
          "params": [
            {"name": "source", "schema": {"$ref": "#/components/schemas/Source"}, "required": true},
            {"name": "output", "schema": {"$ref": "#/components/schemas/Output"}, "required": true},
            \#(Self.allowTruncated.entry(description: "Accept a truncated image (the missing rows are grey)."))
          ],
          "result": {
            "name": "Converted",
            "schema": {
              "type": "object",
              "properties": {
                "output": {"$ref": "#/components/schemas/OutputResult"},
                "sourceFormat": {"$ref": "#/components/schemas/ImageFormat"},
                "warnings": {"type": "array", "items": {"type": "string"}}
              },
              "required": ["output", "sourceFormat", "warnings"],
              "additionalProperties": false
            }
          },
          "errors": [\#(WorkerError.outputMethodErrors)]
        }
        """#
}

extension ImageConvertMethod: MCPToolMethod {
    static let tool = MCPTool(title: "Convert image", effects: .writesOutputs)
}

extension ImageConvertMethod {
    static let estimatesMemory = true

    func memoryEstimate(for params: inout Params, context: RequestContext) async throws -> Int {
        let facts = try await services.estimateFacts(of: &params.source)
        return MemoryEstimate.convert(facts, output: params.output.format)
    }
}
