/// A frame's luma, one byte a pixel (Rec. 601 weights, rounded): what ``OpticalFlow`` compares between frames.
public struct LumaPlane: Sendable, Equatable {
    public let width: Int, height: Int
    /// Row-major, `width * height` bytes.
    public let values: [UInt8]

    public init(_ image: Image) {
        self = image.pixels.withUnsafeBufferPointer { LumaPlane(pixels: $0, channels: 4, width: image.width, height: image.height) }
    }

    /// The luma of `width` x `height` pixels of `channels` interleaved bytes each, red, green and blue first (RGBA,
    /// or RGB as a frame held without its alpha).
    public init(pixels p: UnsafeBufferPointer<UInt8>, channels: Int, width w: Int, height h: Int) {
        precondition(channels >= 3 && w > 0 && h > 0 && p.count >= w * h * channels)
        (width, height) = (w, h)
        values = [UInt8](unsafeUninitializedCapacity: w * h) { l, initialized in
            for i in 0..<(w * h) {
                let r = Int(p[i * channels]) * 77, g = Int(p[i * channels + 1]) * 150, b = Int(p[i * channels + 2]) * 29
                l[i] = UInt8((r + g + b + 128) >> 8)
            }
            initialized = w * h
        }
    }
}
