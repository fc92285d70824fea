/// What a file's header says about the image, obtained without decoding pixels (see `ImageCodec.info`).
public struct ImageInfo: Sendable, Equatable {
    public var format: ImageFormat
    /// Width as displayed, i.e. after EXIF orientation (orientations 5-8 swap the axes).
    public var width: Int
    /// Height as displayed, i.e. after EXIF orientation.
    public var height: Int
    /// Width as stored in the file.
    public var storedWidth: Int
    /// Height as stored in the file.
    public var storedHeight: Int
    /// Channels in the file: 1 grey, 2 grey+alpha, 3 RGB (PNG palette images count as 3), 4 RGBA or CMYK.
    public var channels: Int
    /// Bits per sample: 1...16 for PNG (palette images: bits per index), 8 or 12 for JPEG.
    public var bitDepth: Int
    /// An alpha channel or a PNG tRNS chunk is present.
    public var hasAlpha: Bool
    /// EXIF orientation 1...8; 1 when absent or invalid (and always 1 for PNG).
    public var orientation: Int
    /// Progressive JPEG.
    public var isProgressive: Bool
    /// Adam7-interlaced PNG.
    public var isInterlaced: Bool
    /// Size of the embedded ICC profile in bytes, 0 when there is none.
    public var iccProfileBytes: Int
    /// Frames of an animation (WebP, GIF) or top-level images of a HEIF file; 1 for still images. Only the
    /// first frame (HEIF: the primary image) is decoded.
    public var frameCount: Int
    /// The colours the file declares (see ``ColorDescription``); nil when it declares none, which is read as sRGB.
    public var color: ColorDescription?

    public init(format: ImageFormat, width: Int, height: Int, storedWidth: Int, storedHeight: Int,
                channels: Int, bitDepth: Int, hasAlpha: Bool, orientation: Int, isProgressive: Bool,
                isInterlaced: Bool, iccProfileBytes: Int, frameCount: Int = 1, color: ColorDescription? = nil) {
        self.format = format
        self.width = width
        self.height = height
        self.storedWidth = storedWidth
        self.storedHeight = storedHeight
        self.channels = channels
        self.bitDepth = bitDepth
        self.hasAlpha = hasAlpha
        self.orientation = orientation
        self.isProgressive = isProgressive
        self.isInterlaced = isInterlaced
        self.iccProfileBytes = iccProfileBytes
        self.frameCount = frameCount
        self.color = color
    }
}
