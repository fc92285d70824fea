import Compute
import Imaging
import JSONRPC
import JSONRPCTransport

/// Palette work shared by `image.palette`, `photo.process` and `photos.process`.
enum PaletteStage {
    /// The `count` parameter of the three methods: the palette sizes the worker makes, default 5.
    static let count = NumberParam<Int>("count", Worker.paletteCounts, default: 5)

    /// The `count` parameter, or -32602 naming `path`.
    static func validCount(_ count: Int?, path: String = "count") throws -> Int {
        try Self.count.value(count, path: path)
    }

    /// The dominant colours, on the compute threads.
    static func palette(_ image: Image, count: Int, on compute: ComputeJob) async throws -> [PaletteEntry] {
        try await compute.run { loop in try PaletteExtractor.palette(of: image, count: count, on: loop).map(PaletteEntry.init) }
    }
}
