/// Facts about a decoded file that the pixels alone do not carry.
public struct ImageMetadata: Sendable, Equatable {
    public var format: ImageFormat
    /// Full-size width (before shrink-on-load), after the orientation that was applied.
    public var originalWidth: Int
    /// Full-size height (before shrink-on-load), after the orientation that was applied.
    public var originalHeight: Int
    /// The EXIF orientation that was applied to the pixels (1 = none, also when `applyOrientation` was false).
    public var orientation: Int
    /// The file had an alpha channel or tRNS.
    public var hadAlpha: Bool
    /// Bits per sample in the file.
    public var bitDepth: Int
    /// Channels in the file (see `ImageInfo.channels`).
    public var channels: Int
    /// The embedded ICC profile, as found in the file.
    public var iccProfile: [UInt8]?
    /// 1, 2, 4 or 8: the JPEG DCT scaling used for shrink-on-load (always 1 for PNG). For a HEIF file decoded
    /// from its embedded thumbnail, the ratio of the full size to the thumbnail's, rounded down.
    public var scaleDenominator: Int
    /// Frames (or HEIF top-level images) in the file; the first (the primary image) was decoded.
    public var frameCount: Int = 1
    /// The colour space the pixels were converted from to sRGB; nil when they were already sRGB (no profile, an
    /// sRGB one) or conversion was off (``DecodeOptions/convertToSRGB``).
    public var convertedFrom: ColorDescription?
    /// The HEIF file's embedded thumbnail was decoded instead of the primary image (shrink-on-load).
    public var fromThumbnail: Bool = false

    public init(format: ImageFormat, originalWidth: Int, originalHeight: Int, orientation: Int, hadAlpha: Bool,
                bitDepth: Int, channels: Int, iccProfile: [UInt8]?, scaleDenominator: Int) {
        self.format = format
        self.originalWidth = originalWidth
        self.originalHeight = originalHeight
        self.orientation = orientation
        self.hadAlpha = hadAlpha
        self.bitDepth = bitDepth
        self.channels = channels
        self.iccProfile = iccProfile
        self.scaleDenominator = scaleDenominator
    }
}
