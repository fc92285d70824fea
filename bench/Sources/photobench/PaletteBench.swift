import Imaging

/// Benchmark suite (to be filled in by its owner).
enum PaletteBench {
    static func run(_ args: [String]) throws {
        print("PaletteBench: not implemented yet")
    }
}
