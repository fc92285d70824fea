/// A single-channel 8-bit coverage map the size of an image: 255 = subject, 0 = background,
/// values in between are a soft (feathered) edge.
///
/// - Important: `values.count == width * height` always holds.
public struct Mask: Sendable, Equatable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Row-major coverage, one byte per pixel.
    public var values: [UInt8]

    /// Wraps an existing buffer.
    /// - Precondition: `values.count == width * height` and both dimensions are positive.
    public init(width: Int, height: Int, values: [UInt8]) {
        precondition(width > 0 && height > 0, "mask dimensions must be positive")
        precondition(values.count == width * height, "mask buffer does not match dimensions")
        self.width = width
        self.height = height
        self.values = values
    }

    /// A mask with every pixel set to `value`.
    public init(width: Int, height: Int, repeating value: UInt8) {
        self.init(width: width, height: height, values: [UInt8](repeating: value, count: width * height))
    }

    /// The mask as an opaque grey image (the coverage in R, G and B): how encoders without a grey format (WebP,
    /// the animation encoders) write a mask with its exact values.
    public var greyImage: Image {
        var rgba = [UInt8](repeating: 255, count: values.count * 4)
        rgba.withUnsafeMutableBufferPointer { p in
            values.withUnsafeBufferPointer { m in
                for i in 0..<m.count { p[i * 4] = m[i]; p[i * 4 + 1] = m[i]; p[i * 4 + 2] = m[i] }
            }
        }
        return Image(width: width, height: height, pixels: rgba)
    }

    /// Number of pixels whose coverage is at least `threshold` (128 = "inside" by convention).
    public func count(atLeast threshold: UInt8 = 128) -> Int {
        values.withUnsafeBufferPointer { v in
            var n = 0
            for x in v where x >= threshold { n += 1 }
            return n
        }
    }

    /// Intersection over union of the two masks thresholded at `threshold`.
    ///
    /// Two empty masks are identical, so their IoU is 1.
    /// - Precondition: both masks have the same size.
    public func intersectionOverUnion(_ other: Mask, threshold: UInt8 = 128) -> Double {
        precondition(width == other.width && height == other.height, "masks differ in size")
        return values.withUnsafeBufferPointer { a in
            other.values.withUnsafeBufferPointer { b in
                var inter = 0, union = 0
                for i in 0..<a.count {
                    let x = a[i] >= threshold, y = b[i] >= threshold
                    if x && y { inter += 1 }
                    if x || y { union += 1 }
                }
                return union == 0 ? 1 : Double(inter) / Double(union)
            }
        }
    }
}
