/// A tensor's shape over memory a forward pass owns (its ``ActivationMemory`` block): how layers read and write
/// activations without an allocation per layer. Channel-major (CHW), like ``Tensor``.
///
/// Not `Sendable`: a view is valid only while its pass runs, and only the pass's own threads use it.
struct TensorView {
    let channels: Int
    let height: Int
    let width: Int
    let base: UnsafeMutablePointer<Float>

    init(shape: TensorShape, base: UnsafeMutablePointer<Float>) {
        channels = shape.channels
        height = shape.height
        width = shape.width
        self.base = base
    }

    /// Pixels per channel.
    var planeSize: Int { height * width }
    /// Elements in all.
    var count: Int { channels * height * width }

    /// The first pixel of channel `c`.
    func plane(_ c: Int) -> UnsafeMutablePointer<Float> { base + c * planeSize }
}
