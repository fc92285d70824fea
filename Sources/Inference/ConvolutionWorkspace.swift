/// Scratch memory one forward pass lends to its convolutions in turn (band buffers, transformed
/// tiles). It grows to the largest layer's need and is then reused, so a pass allocates and
/// page-faults it once instead of once per layer; it lives only as long as the pass (per-task
/// scratch state: nothing is shared between jobs).
struct ConvolutionWorkspace: ~Copyable {
    private var storage: [Float] = []

    /// At least `count` floats of scratch (contents unspecified) for the duration of `body`.
    mutating func withBuffer<R>(count: Int, _ body: (UnsafeMutablePointer<Float>) throws -> R) rethrows -> R {
        if storage.count < count { storage = [Float](repeating: 0, count: count) }
        return try storage.withUnsafeMutableBufferPointer { try body($0.baseAddress!) }
    }
}
