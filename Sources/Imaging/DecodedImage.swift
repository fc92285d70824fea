/// The result of `ImageCodec.decode`: upright RGBA pixels plus what the file said about itself.
public struct DecodedImage: Sendable {
    public var image: Image
    public var metadata: ImageMetadata
    /// Non-fatal problems the decoder recovered from (libpng warnings, libjpeg corrupt-data warnings,
    /// accepted truncation), in the order they occurred. Never printed.
    public var warnings: [String]

    public init(image: Image, metadata: ImageMetadata, warnings: [String]) {
        self.image = image
        self.metadata = metadata
        self.warnings = warnings
    }
}
