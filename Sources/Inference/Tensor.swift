/// A feature map of one image: `channels` planes of `height` x `width` floats, channel-major (CHW).
/// A value type: layers read their inputs and write fresh outputs.
public struct Tensor: Sendable, Equatable {
    public let channels: Int
    public let height: Int
    public let width: Int
    public var data: [Float]

    public init(channels: Int, height: Int, width: Int, data: [Float]) {
        precondition(data.count == channels * height * width, "tensor data does not match its shape")
        self.channels = channels
        self.height = height
        self.width = width
        self.data = data
    }

    /// A tensor of zeros.
    public init(channels: Int, height: Int, width: Int) {
        self.init(channels: channels, height: height, width: width,
                  data: [Float](repeating: 0, count: channels * height * width))
    }

    /// Pixels per channel.
    public var planeSize: Int { height * width }

    /// A tensor whose every element `body` writes (the storage starts uninitialised).
    ///
    /// Not offered for transparent huge pages: with the kernel's usual `defrag=madvise`, a fault in
    /// an advised region compacts memory synchronously, and those stalls (up to 50 ms while another
    /// pass ran) outlasted the per-band cancellation checks; they saved ~8% of a pass.
    init(channels: Int, height: Int, width: Int,
         initializingWith body: (UnsafeMutablePointer<Float>) throws -> Void) rethrows {
        let count = channels * height * width
        let data = try [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
            try body(buffer.baseAddress!)
            initialized = count
        }
        self.init(channels: channels, height: height, width: width, data: data)
    }
}

extension Tensor {
    /// A network input from RGBA pixels: sampled to `size` x `size` at pixel centres (nearest; the
    /// identity when the pixels already have that size), divided by the brightest channel value, then
    /// normalised per channel with `mean` and `std` (ImageNet's, for U²-Netp, as rembg feeds it).
    public static func normalizedRGB(rgba: [UInt8], width w: Int, height h: Int, size: Int,
                                     mean: [Float], std: [Float]) -> Tensor {
        var peak: UInt8 = 1
        for i in 0..<(w * h) { peak = max(peak, rgba[4 * i], rgba[4 * i + 1], rgba[4 * i + 2]) }
        let scale = 1 / Float(peak), plane = size * size
        var data = [Float](repeating: 0, count: 3 * plane)
        for y in 0..<size {
            let sy = Int((Double(y) + 0.5) * Double(h) / Double(size))
            for x in 0..<size {
                let sx = Int((Double(x) + 0.5) * Double(w) / Double(size))
                for c in 0..<3 {
                    data[c * plane + y * size + x] = (Float(rgba[4 * (sy * w + sx) + c]) * scale - mean[c]) / std[c]
                }
            }
        }
        return Tensor(channels: 3, height: size, width: size, data: data)
    }
}

extension Tensor {
    /// The shape of the channel concatenation of `parts`: their channels summed, their common size.
    /// - Throws: ``InferenceError/modelDamaged(_:)`` naming `reader` when there are no parts or
    ///   their sizes differ.
    static func concatenatedShape(of parts: [Tensor], for reader: String) throws -> (channels: Int, height: Int, width: Int) {
        guard let first = parts.first, parts.allSatisfy({ $0.height == first.height && $0.width == first.width }) else {
            throw InferenceError.modelDamaged("\(reader) of tensors of different sizes")
        }
        return (parts.reduce(0) { $0 + $1.channels }, first.height, first.width)
    }
}
