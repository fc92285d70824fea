import Compute
import Imaging
import JSONRPC
import JSONRPCTransport

/// `image.effect {"source", "effects": [{"blur": r}, {"opacity": x}, {"grayscale": true}], "output"}`.
struct ImageEffectMethod: RPCMethod {
    static let name = "image.effect"
    static let cost = MethodCost.compute
    static let summary = "Blur, fade (opacity) and grayscale, composable in order."

    struct EffectSpec: Decodable, Sendable {
        var blur: Double?
        var opacity: Double?
        var grayscale: Bool?
    }

    struct Params: Decodable, Sendable {
        var source: ImageSource
        var effects: [EffectSpec]
        var output: OutputSpec
    }

    struct Result: Encodable, Sendable {
        var output: OutputResult
        var ms: Double
    }

    let services: WorkerServices

    func handle(_ params: Params, context: RequestContext) async throws -> Result {
        let compute = services.computeJob(for: context)
        let access = await services.access()
        let start = ContinuousClock.now
        let effects = try Self.effects(params.effects)
        try OutputCheck.check(params.output, access: access)
        let decoded = try await services.loader.load(params.source, access: access, on: compute)
        let result = try await Self.apply(effects, to: decoded.image, on: compute)
        return Result(output: try await OutputWriter.write(result, to: params.output, access: access, on: compute), ms: start.millisecondsElapsed)
    }

    static let blur = NumberParam<Double>("blur", 0...250)
    static let opacity = NumberParam<Double>("opacity", 0...1)

    /// Validates every effect before any pixel work: exactly one key each, values in range.
    static func effects(_ specs: [EffectSpec]) throws -> [ImageEffect] {
        guard specs.count <= Self.maxEffects else { throw RPCError.invalidParams(path: "effects", "at most \(Self.maxEffects) effects") }
        return try specs.enumerated().map { i, s in
            let given = [s.blur != nil, s.opacity != nil, s.grayscale != nil].filter { $0 }.count
            guard given == 1 else {
                throw RPCError.invalidParams(path: "effects[\(i)]", "each effect has exactly one of blur, opacity, grayscale")
            }
            if let r = try Self.blur.checked(s.blur, path: "effects[\(i)].blur") { return .blur(radius: r) }
            if let o = try Self.opacity.checked(s.opacity, path: "effects[\(i)].opacity") { return .opacity(o) }
            guard s.grayscale == true else {
                throw RPCError.invalidParams(path: "effects[\(i)].grayscale", "must be true")
            }
            return .grayscale
        }
    }

    static func apply(_ effects: [ImageEffect], to image: Image, on compute: ComputeJob) async throws -> Image {
        try await compute.run { loop in try image.applying(effects, on: loop) }
    }
}

extension ImageEffectMethod {
    /// Effects in one request, at most: stated once for the check and the schema.
    static let maxEffects = 32

    static let contract: MethodContract = #"""
        {
          "params": [
            {"name": "source", "schema": {"$ref": "#/components/schemas/Source"}, "required": true},
            {
              "name": "effects",
              "schema": {
                "type": "array",
                "maxItems": \#(Self.maxEffects),
                "items": {
                  "oneOf": [
                    {
                      "type": "object",
                      "properties": {"blur": \#(Self.blur.schema())},
                      "required": ["blur"],
                      "additionalProperties": false
                    },
                    {
                      "type": "object",
                      "properties": {"opacity": \#(Self.opacity.schema())},
                      "required": ["opacity"],
                      "additionalProperties": false
                    },
                    {
                      "type": "object",
                      "properties": {"grayscale": {"const": true}},
                      "required": ["grayscale"],
                      "additionalProperties": false
                    }
                  ]
                }
              },
              "required": true
            },
            {"name": "output", "schema": {"$ref": "#/components/schemas/Output"}, "required": true}
          ],
          "result": {
            "name": "Effected",
            "schema": {
              "type": "object",
              "properties": {
                "output": {"$ref": "#/components/schemas/OutputResult"},
                "ms": {"type": "number", "minimum": 0, "description": "Wall time of the job in milliseconds."}
              },
              "required": ["output", "ms"],
              "additionalProperties": false
            }
          },
          "errors": [\#(WorkerError.outputMethodErrors)]
        }
        """#
}

extension ImageEffectMethod: MCPToolMethod {
    static let tool = MCPTool(title: "Image effects", effects: .writesOutputs)
}

extension ImageEffectMethod {
    static let estimatesMemory = true

    func memoryEstimate(for params: inout Params, context: RequestContext) async throws -> Int {
        _ = try Self.effects(params.effects)
        let facts = try await services.estimateFacts(of: &params.source)
        return MemoryEstimate.effect(facts, output: params.output.format)
    }
}
