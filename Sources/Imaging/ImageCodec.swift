/// Entry points for reading and writing PNG and JPEG.
///
/// The format is always sniffed from magic bytes. Decoding never prints and never crashes on hostile data:
/// failures are `ImagingError` values; large images are refused from the header (`DecodeOptions.maxPixels`)
/// before pixels are allocated; long decodes check `Task.isCancelled` between bands of rows.
public enum ImageCodec {
    /// PNG or JPEG from the magic bytes only; nil for anything else.
    public static func sniff(_ bytes: [UInt8]) -> ImageFormat? {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        if bytes.count >= 8 && bytes[0..<8].elementsEqual(png) { return .png }
        if bytes.count >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF { return .jpeg }
        return nil
    }

    /// Header facts without decoding the pixels (dimensions after EXIF orientation, depth, alpha, ICC size).
    /// 12-bit JPEGs are described here even though `decode` refuses them.
    public static func info(_ bytes: [UInt8]) throws(ImagingError) -> ImageInfo {
        guard let format = sniff(bytes) else { throw .unknownFormat }
        let result = bytes.withUnsafeBufferPointer { buffer in
            switch format {
            case .png: return PNGDecoder.info(buffer)
            case .jpeg: return JPEGDecoder.info(buffer)
            }
        }
        return try result.get()
    }

    /// Decodes to upright RGBA8 (straight alpha; opaque formats get alpha 255).
    /// - Throws: `ImagingError`, or `CancellationError` when the current task is cancelled mid-decode.
    public static func decode(_ bytes: [UInt8], options: DecodeOptions = .init()) throws -> DecodedImage {
        guard let format = sniff(bytes) else { throw ImagingError.unknownFormat }
        return try bytes.withUnsafeBufferPointer { buffer in
            switch format {
            case .png: return try PNGDecoder.decode(buffer, options: options)
            case .jpeg: return try JPEGDecoder.decode(buffer, options: options)
            }
        }
    }

    /// PNG, 8-bit RGB when every pixel is opaque, else RGBA; `compressionLevel` is zlib's 0...9.
    public static func encodePNG(_ image: Image, compressionLevel: Int = 6) throws(ImagingError) -> [UInt8] {
        try PNGEncoder.encode(image, compressionLevel: compressionLevel).get()
    }

    /// JPEG at `quality` 1...100, YCbCr 4:2:0; alpha is dropped (not composited onto a background).
    public static func encodeJPEG(_ image: Image, quality: Int = 90, progressive: Bool = false)
        throws(ImagingError) -> [UInt8]
    {
        try JPEGEncoder.encode(image, quality: quality, progressive: progressive).get()
    }

    /// 8-bit greyscale PNG (for masks); `gray.count` must be `width * height`.
    public static func encodeGrayPNG(width: Int, height: Int, gray: [UInt8]) throws(ImagingError) -> [UInt8] {
        try PNGEncoder.encodeGray(width: width, height: height, gray: gray).get()
    }
}
