/// How `ImageCodec.decode` treats a file.
public struct DecodeOptions: Sendable {
    /// Largest accepted `width * height` as stored; checked from the header before any big allocation.
    public var maxPixels: Int = 100_000_000
    /// Accept what libjpeg/libpng recover from truncated data (the missing part is grey for JPEG,
    /// transparent black for PNG) and report it in `DecodedImage.warnings` instead of throwing `.truncated`.
    public var allowTruncated: Bool = false
    /// Shrink-on-load: what the caller will make of the image, so the JPEG decoder may use libjpeg
    /// DCT scaling (see ``ShrinkOnLoad``). nil = full size. PNG ignores it.
    public var shrinkOnLoad: ShrinkOnLoad? = nil
    /// Rotate/flip JPEGs and WebPs upright according to their EXIF orientation. (HEIF's own transforms are
    /// part of the image and always applied; GIF and PNG have none.)
    public var applyOrientation: Bool = true
    /// Convert pixels from the file's ICC profile or CICP colour description to sRGB (``ColorManagement``).
    public var convertToSRGB: Bool = true

    public init(maxPixels: Int = 100_000_000, allowTruncated: Bool = false,
                shrinkOnLoad: ShrinkOnLoad? = nil, applyOrientation: Bool = true, convertToSRGB: Bool = true) {
        self.maxPixels = maxPixels
        self.allowTruncated = allowTruncated
        self.shrinkOnLoad = shrinkOnLoad
        self.applyOrientation = applyOrientation
        self.convertToSRGB = convertToSRGB
    }

    /// Shrink-on-load to at least `minimumSize` (after orientation); nil = full size.
    public init(maxPixels: Int = 100_000_000, allowTruncated: Bool = false,
                minimumSize: (width: Int, height: Int)?, applyOrientation: Bool = true) {
        self.init(maxPixels: maxPixels, allowTruncated: allowTruncated,
                  shrinkOnLoad: minimumSize.map { .atLeast(width: $0.width, height: $0.height) },
                  applyOrientation: applyOrientation)
    }
}
