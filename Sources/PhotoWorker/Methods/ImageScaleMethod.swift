import Compute
import Imaging
import JSONRPC
import JSONRPCTransport

/// `image.scale {"source", "factor", "output"}`: any factor up or down, Lanczos-3.
struct ImageScaleMethod: RPCMethod {
    static let name = "image.scale"
    static let cost = MethodCost.compute
    static let summary = "Scale by any factor (up or down) with Lanczos-3."

    struct Params: Decodable, Sendable {
        var source: ImageSource
        var factor: Double
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
        try Self.checkFactor(params.factor)
        try OutputCheck.check(params.output, access: access)
        let info = try await services.loader.info(params.source, access: access).0
        let w = max(1, Int((Double(info.width) * params.factor).rounded()))
        let h = max(1, Int((Double(info.height) * params.factor).rounded()))
        guard w <= Resampler.maximumDimension, h <= Resampler.maximumDimension, w * h <= services.options.maxPixels else {
            throw RPCError.invalidParams(path: "factor", "the result (\(w)x\(h)) would exceed the size limits")
        }
        let decoded = try await services.loader.load(params.source, access: access, shrink: params.factor < 1 ? .atLeast(width: w, height: h) : nil, on: compute)
        let scaled = try await Self.scale(decoded.image, width: w, height: h, on: compute)
        return Result(output: try await OutputWriter.write(scaled, to: params.output, access: access, on: compute), ms: start.millisecondsElapsed)
    }

    static func scale(_ image: Image, width: Int, height: Int, on compute: ComputeJob) async throws -> Image {
        if width == image.width && height == image.height { return image }
        return try await compute.run { loop in try Resampler.resize(image, width: width, height: height, on: loop) }
    }
}

extension ImageScaleMethod {
    static let contract: MethodContract = #"""
        {
          "params": [
            {"name": "source", "schema": {"$ref": "#/components/schemas/Source"}, "required": true},
            \#(Self.factor.entry(required: true)),
            {"name": "output", "schema": {"$ref": "#/components/schemas/Output"}, "required": true}
          ],
          "result": {
            "name": "Scaled",
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

extension ImageScaleMethod: MCPToolMethod {
    static let tool = MCPTool(title: "Scale image", effects: .writesOutputs)
}

extension ImageScaleMethod {
    static let estimatesMemory = true

    static let factor = NumberParam<Double>("factor", lower: .exclusive(0), upper: .inclusive(64),
                                            message: "must be a number greater than 0 and at most 64")

    static func checkFactor(_ factor: Double) throws {
        try Self.factor.checked(factor)
    }

    func memoryEstimate(for params: inout Params, context: RequestContext) async throws -> Int {
        try Self.checkFactor(params.factor)
        let facts = try await services.estimateFacts(of: &params.source)
        return MemoryEstimate.scale(facts, factor: params.factor, output: params.output.format)
    }
}
