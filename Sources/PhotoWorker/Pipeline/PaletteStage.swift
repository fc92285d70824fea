import Compute
import Imaging
import JSONRPC
import JSONRPCTransport

/// Palette work shared by `image.palette`, `photo.process` and `photos.process`.
enum PaletteStage {
    /// The `count` parameter (3 to 10, default 5), or -32602 naming `path`.
    static func validCount(_ count: Int?, path: String = "count") throws -> Int {
        let c = count ?? 5
        let counts = Worker.paletteCounts
        guard counts.contains(c) else {
            throw RPCError.invalidParams(path: path, "must be between \(counts.lowerBound) and \(counts.upperBound)")
        }
        return c
    }

    /// The dominant colours, on the compute threads.
    static func palette(_ image: Image, count: Int, on compute: ComputePool) async throws -> [PaletteEntry] {
        try await compute.run { try PaletteExtractor.palette(of: image, count: count).map(PaletteEntry.init) }
    }
}
