import Compute
import Foundation
import Imaging
import JSONRPC
import JSONRPCTransport

/// `image.thumbnail {"source", "size" | "width"/"height", "fit", "output"}`: JPEG shrink-on-load,
/// then a Lanczos-3 resample with premultiplied alpha.
struct ImageThumbnailMethod: RPCMethod {
    static let name = "image.thumbnail"
    static let cost = MethodCost.compute
    static let summary = "Thumbnail into a box (contain or cover), with JPEG shrink-on-load."

    struct Params: Decodable, Sendable {
        var source: ImageSource
        /// A square box of this side.
        var size: Int?
        var width: Int?
        var height: Int?
        var fit: FitMode?
        var output: OutputSpec
    }

    static let fit = EnumParam<FitMode>("fit", default: .contain, statesType: false)

    struct Result: Encodable, Sendable {
        var output: OutputResult
        var sourceWidth: Int
        var sourceHeight: Int
        /// The JPEG DCT scale used while decoding (1, 2, 4 or 8).
        var shrinkOnLoad: Int
        var ms: Double
    }

    let services: WorkerServices

    func handle(_ params: Params, context: RequestContext) async throws -> Result {
        let compute = services.computeJob(for: context)
        let access = await services.access()
        let start = ContinuousClock.now
        let (bw, bh) = try Self.box(params)
        try OutputCheck.check(params.output, access: access)
        let fit = Self.fit.value(params.fit)
        // The decode needs twice the thumbnail's own size (libvips' rule), not twice the box: a
        // 6000x4000 photo for a 256 px box decodes at 1/8 (750x500 >= 2 x 256x171).
        let decoded = try await services.loader.load(params.source, access: access, shrink: .thumbnail(width: bw, height: bh, fit: fit), on: compute)
        let thumb = try await Self.thumbnail(decoded.image, width: bw, height: bh, fit: fit, on: compute)
        let output = try await OutputWriter.write(thumb, to: params.output, access: access, on: compute)
        return Result(
            output: output, sourceWidth: decoded.metadata.originalWidth, sourceHeight: decoded.metadata.originalHeight,
            shrinkOnLoad: decoded.metadata.scaleDenominator, ms: start.millisecondsElapsed)
    }

    /// `size`, `width` and `height`: at most the resampler's largest side.
    static func side(_ name: String) -> NumberParam<Int> { NumberParam(name, 1...Resampler.maximumDimension) }

    static func box(_ p: Params) throws -> (Int, Int) {
        let limit = Resampler.maximumDimension
        // Each value on its own first, then how they combine.
        try Self.side("size").checked(p.size)
        try Self.side("width").checked(p.width)
        try Self.side("height").checked(p.height)
        if let size = p.size {
            guard p.width == nil, p.height == nil else {
                throw RPCError.invalidParams(path: "size", "give either size or width/height, not both")
            }
            return (size, size)
        }
        guard p.width != nil || p.height != nil else {
            throw RPCError.invalidParams(path: "size", "required parameter is missing (or width/height)")
        }
        // One side given: the other is unconstrained.
        return (p.width ?? limit, p.height ?? limit)
    }

    static func thumbnail(_ image: Image, width: Int, height: Int, fit: FitMode, on compute: ComputeJob) async throws -> Image {
        let t = ThumbnailGeometry.target(sourceWidth: image.width, sourceHeight: image.height, width: width, height: height, fit: fit)
        if t.crop == nil && t.width == image.width && t.height == image.height { return image }
        return try await compute.run { loop in try Resampler.thumbnail(image, width: width, height: height, fit: fit, on: loop) }
    }
}

extension ImageThumbnailMethod {
    static let contract: MethodContract = #"""
        {
          "params": [
            {"name": "source", "schema": {"$ref": "#/components/schemas/Source"}, "required": true},
            \#(Self.side("size").entry(description: "A square box; or give width and/or height.")),
            \#(Self.side("width").entry()),
            \#(Self.side("height").entry()),
            \#(Self.fit.entry()),
            {"name": "output", "schema": {"$ref": "#/components/schemas/Output"}, "required": true}
          ],
          "result": {
            "name": "Thumbnail",
            "schema": {
              "type": "object",
              "properties": {
                "output": {"$ref": "#/components/schemas/OutputResult"},
                "sourceWidth": {"type": "integer", "minimum": 0},
                "sourceHeight": {"type": "integer", "minimum": 0},
                "shrinkOnLoad": {
                  "type": "integer",
                  "enum": [1, 2, 4, 8],
                  "description": "JPEG DCT scaling denominator used while decoding."
                },
                "ms": {"type": "number", "minimum": 0, "description": "Wall time of the job in milliseconds."}
              },
              "required": ["output", "sourceWidth", "sourceHeight", "shrinkOnLoad", "ms"],
              "additionalProperties": false
            }
          },
          "errors": [\#(WorkerError.outputMethodErrors)]
        }
        """#
}

extension ImageThumbnailMethod: MCPToolMethod {
    static let tool = MCPTool(title: "Thumbnail", effects: .writesOutputs)
}

extension ImageThumbnailMethod {
    static let estimatesMemory = true

    func memoryEstimate(for params: inout Params, context: RequestContext) async throws -> Int {
        let (bw, bh) = try Self.box(params)
        let facts = try await services.estimateFacts(of: &params.source)
        // A one-sided box (only width, or only height) leaves the other side to the photo's shape.
        let out = ThumbnailGeometry.target(sourceWidth: facts.width, sourceHeight: facts.height, width: bw, height: bh,
                                           fit: Self.fit.value(params.fit))
        return MemoryEstimate.thumbnail(facts, width: out.width, height: out.height)
    }
}
