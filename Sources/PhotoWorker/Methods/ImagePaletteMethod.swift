import Imaging
import JSONRPC

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
        let count = try Self.validCount(params.count)
        let decoded = try await services.loader.load(params.source, access: access, shrink: .colorSample(longestSide: PaletteExtractor.workingSize))
        let colors = try await Self.palette(decoded.image, count: count, on: services.compute)
        return Result(colors: colors, ms: start.millisecondsElapsed)
    }

    static func validCount(_ count: Int?, path: String = "count") throws -> Int {
        let c = count ?? 5
        guard (3...10).contains(c) else { throw RPCError.invalidParams(path: path, "must be between 3 and 10") }
        return c
    }

    static func palette(_ image: Image, count: Int, on compute: ComputePool) async throws -> [PaletteEntry] {
        try await compute.run { try PaletteExtractor.palette(of: image, count: count).map(PaletteEntry.init) }
    }
}

/// One palette colour on the wire: `{"hex":"#RRGGBB","rgb":[r,g,b],"fraction":0.31}`.
public struct PaletteEntry: Sendable, Codable, Equatable {
    public var hex: String
    public var rgb: [Int]
    public var fraction: Double

    init(_ c: PaletteColor) {
        hex = c.hex
        rgb = [Int(c.rgb.r), Int(c.rgb.g), Int(c.rgb.b)]
        fraction = (c.fraction * 10_000).rounded() / 10_000
    }

    var color: RGBA { RGBA(r: UInt8(rgb[0]), g: UInt8(rgb[1]), b: UInt8(rgb[2])) }
}
