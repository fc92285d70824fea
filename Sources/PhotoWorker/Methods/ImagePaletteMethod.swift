import Imaging
import JSONRPC
import JSONRPCTransport

/// `image.palette {"source", "count"}`: the dominant colours ("colour scheme"), by share.
struct ImagePaletteMethod: RPCMethod {
    static let name = "image.palette"
    static let cost = MethodCost.compute
    static let summary = "Dominant colours (3 to 10), sorted by share, deterministic."

    struct Params: Decodable, Sendable {
        var source: ImageSource
        var count: Int?
    }

    struct Result: Encodable, Sendable {
        var colors: [PaletteEntry]
        var ms: Double
    }

    let services: WorkerServices

    func handle(_ params: Params, context: RequestContext) async throws -> Result {
        let compute = services.computeJob(for: context)
        let access = await services.access()
        let start = ContinuousClock.now
        let count = try PaletteStage.validCount(params.count)
        let decoded = try await services.loader.load(params.source, access: access, shrink: .colorSample(longestSide: PaletteExtractor.workingSize), on: compute)
        let colors = try await PaletteStage.palette(decoded.image, count: count, on: compute)
        return Result(colors: colors, ms: start.millisecondsElapsed)
    }
}

extension ImagePaletteMethod {
    static let contract: MethodContract = #"""
        {
          "params": [
            {"name": "source", "schema": {"$ref": "#/components/schemas/Source"}, "required": true},
            \#(PaletteStage.count.entry())
          ],
          "result": {
            "name": "Palette",
            "schema": {
              "type": "object",
              "properties": {
                "colors": {"type": "array", "items": {"$ref": "#/components/schemas/PaletteColor"}, "maxItems": \#(Worker.paletteCounts.upperBound)},
                "ms": {"type": "number", "minimum": 0, "description": "Wall time of the job in milliseconds."}
              },
              "required": ["colors", "ms"],
              "additionalProperties": false,
              "description": "Fewer colours than asked when the image has fewer; empty for an all-transparent image."
            }
          },
          "errors": [\#(WorkerError.sourceMethodErrors)]
        }
        """#
}

extension ImagePaletteMethod {
    /// The shared schema `PaletteColor` of the OpenRPC document's components.
    static let contractSchemas: [ContractSchema] = [
        ContractSchema("PaletteColor", #"""
            {
              "type": "object",
              "properties": {
                "hex": {"type": "string", "pattern": "^#[0-9A-F]{6}$"},
                "rgb": {
                  "type": "array",
                  "items": {"type": "integer", "minimum": 0, "maximum": 255},
                  "minItems": 3,
                  "maxItems": 3
                },
                "fraction": {"type": "number", "minimum": 0, "maximum": 1, "description": "Share of the opaque pixels."}
              },
              "required": ["hex", "rgb", "fraction"],
              "additionalProperties": false
            }
            """#),
    ]
}

extension ImagePaletteMethod: MCPToolMethod {
    static let tool = MCPTool(title: "Colour palette", effects: .readsSources)
}

extension ImagePaletteMethod {
    static let estimatesMemory = true

    func memoryEstimate(for params: inout Params, context: RequestContext) async throws -> Int {
        _ = try PaletteStage.validCount(params.count)
        let facts = try await services.estimateFacts(of: &params.source)
        return MemoryEstimate.palette(facts)
    }
}
