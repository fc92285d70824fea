/// How `ImageCodec.decode` treats a file.
public struct DecodeOptions: Sendable {
    /// Largest accepted `width * height` as stored; checked from the header before any big allocation.
    public var maxPixels: Int = 100_000_000
    /// Accept what libjpeg/libpng recover from truncated data (the missing part is grey for JPEG,
    /// transparent black for PNG) and report it in `DecodedImage.warnings` instead of throwing `.truncated`.
    public var allowTruncated: Bool = false
    /// Shrink-on-load: the smallest size the caller still needs (after orientation). The JPEG decoder may use
    /// libjpeg DCT scaling (1/2, 1/4, 1/8) as long as the decoded image stays at least 2x this in both
    /// dimensions (libvips' margin). nil = full size. PNG ignores it.
    public var minimumSize: (width: Int, height: Int)? = nil
    /// Rotate/flip JPEGs upright according to their EXIF orientation.
    public var applyOrientation: Bool = true

    public init(maxPixels: Int = 100_000_000, allowTruncated: Bool = false,
                minimumSize: (width: Int, height: Int)? = nil, applyOrientation: Bool = true) {
        self.maxPixels = maxPixels
        self.allowTruncated = allowTruncated
        self.minimumSize = minimumSize
        self.applyOrientation = applyOrientation
    }
}
