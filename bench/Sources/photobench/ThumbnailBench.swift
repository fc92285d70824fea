import Imaging

/// Benchmark suite (to be filled in by its owner).
enum ThumbnailBench {
    static func run(_ args: [String]) throws {
        print("ThumbnailBench: not implemented yet")
    }
}
