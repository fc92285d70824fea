import Imaging

/// Benchmark suite (to be filled in by its owner).
enum DecodeBench {
    static func run(_ args: [String]) throws {
        print("DecodeBench: not implemented yet")
    }
}
