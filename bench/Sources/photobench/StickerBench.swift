import Imaging

/// Benchmark suite (to be filled in by its owner).
enum StickerBench {
    static func run(_ args: [String]) throws {
        print("StickerBench: not implemented yet")
    }
}
