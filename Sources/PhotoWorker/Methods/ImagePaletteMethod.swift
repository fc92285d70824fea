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
        let access = await services.access()
        let start = ContinuousClock.now
        let count = try PaletteStage.validCount(params.count)
        let decoded = try await services.loader.load(params.source, access: access, shrink: .colorSample(longestSide: PaletteExtractor.workingSize))
        let colors = try await PaletteStage.palette(decoded.image, count: count, on: services.compute)
        return Result(colors: colors, ms: start.millisecondsElapsed)
    }
}
