import Compute

/// Writes an animation one frame at a time: a frame is compressed when it is added, and only the encoded bytes
/// (plus whatever the format needs to compare with the frame before) are kept until ``finish()``.
///
/// Every frame is a full canvas of the size the encoder was made for (RGBA8, straight alpha, sRGB). Animations
/// loop forever. An encoder is used by one thread at a time and is discarded after `finish` or a failure; a
/// discarded encoder releases its library state when it is deinitialised, so abandoning one (cancellation) leaves
/// nothing behind.
public protocol AnimationEncoder: AnyObject {
    /// The format written.
    var format: ImageFormat { get }
    /// Frames added so far.
    var frameCount: Int { get }
    /// Adds `frame`, shown for `duration` seconds (rounded to the format's unit: ms, or cs for GIF); an encoder whose
    /// compression has independent parts spreads them over `loop` (APNG's PNG bands), with the same bytes whatever
    /// the loop.
    /// - Throws: `ImagingError.encodingFailed` when the frame's size differs from the canvas or the library fails;
    ///   `CancellationError` when `loop` is cancelled while it spreads the frame's parts.
    func add(_ frame: Image, duration: Double, on loop: any ParallelLoop) throws
    /// Ends the animation and returns the whole file.
    /// - Throws: `ImagingError.encodingFailed` when no frame was added or the library fails.
    func finish() throws(ImagingError) -> [UInt8]
}

/// How an animation is encoded: the format, its canvas and one quality knob every format maps to its own terms.
public struct AnimationSettings: Sendable, Equatable {
    public var format: ImageFormat
    public var width: Int
    public var height: Int
    /// 0...100, higher is better and larger. WebP: libwebp's lossy quality. WebM: VP9's constant quality, mapped
    /// linearly from crf 63 (0) to crf 10 (100). APNG: lossless from 62 up, below it palette frames
    /// (``APNGEncoder/paletteColors(quality:)``). GIF: the palette size (``GIFEncoder/colors(quality:)``).
    public var quality: Int
    /// GIF: alpha at or above which a pixel is opaque (GIF has one transparent index, no partial alpha).
    public var alphaThreshold: UInt8

    public init(format: ImageFormat, width: Int, height: Int, quality: Int = 80, alphaThreshold: UInt8 = 128) {
        self.format = format
        self.width = width
        self.height = height
        self.quality = quality
        self.alphaThreshold = alphaThreshold
    }

    /// A new encoder for these settings.
    /// - Throws: `ImagingError.encodingFailed` for a canvas the format cannot hold or a quality outside 0...100.
    public func makeEncoder() throws(ImagingError) -> any AnimationEncoder {
        guard format.can(.encodeAnimated) else {
            throw .encodingFailed(message: "the worker does not write \(format.displayName) animations")
        }
        guard (0...100).contains(quality) else {
            throw .encodingFailed(message: "\(format.facts.animationName) quality must be 0...100, got \(quality)")
        }
        guard width > 0, height > 0, width <= format.maxSide, height <= format.maxSide else {
            throw .encodingFailed(message:
                "\(format.facts.animationName) canvas \(width)x\(height) is outside 1...\(format.maxSide) per side")
        }
        switch format {
        case .apng: return APNGEncoder(width: width, height: height, quality: quality)
        case .webp: return try AnimatedWebPEncoder(width: width, height: height, quality: quality)
        case .gif: return GIFEncoder(width: width, height: height, quality: quality, alphaThreshold: alphaThreshold)
        case .webm: return try WebMEncoder(width: width, height: height, quality: quality)
        // A still format (refused above); ImageFormatTests checks every `.encodeAnimated` format makes an encoder.
        default: throw .encodingFailed(message: "the worker does not write \(format.displayName) animations")
        }
    }
}

extension ImageFormat {
    /// The largest canvas side the format's animation encoder here takes (0 for a format not written animated).
    public var maxSide: Int {
        switch self {
        case .apng: return 1_000_000
        case .webp: return 16383
        case .gif: return 65535
        // VP9 allows 65536; libvpx's encoder is only sane well below that, and stickers are 512.
        case .webm: return 8192
        default: return 0
        }
    }
}

/// The checks every encoder makes on a frame before it is compressed.
func checkFrame(_ frame: Image, width: Int, height: Int, duration: Double, format: ImageFormat)
    throws(ImagingError)
{
    guard frame.width == width, frame.height == height else {
        throw .encodingFailed(message:
            "\(format.facts.animationName) frame is \(frame.width)x\(frame.height), the canvas \(width)x\(height)")
    }
    guard duration.isFinite, duration > 0, duration <= 3600 else {
        throw .encodingFailed(message: "\(format.facts.animationName) frame duration must be in (0, 3600] s, got \(duration)")
    }
}
