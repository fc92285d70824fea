/// Entry points for reading and writing PNG and JPEG.
///
/// The format is always sniffed from magic bytes. Decoding never prints and never crashes on hostile data:
/// failures are `ImagingError` values; large images are refused from the header (`DecodeOptions.maxPixels`)
/// before pixels are allocated; long decodes check `Cancellation.isRequested` between bands of rows.
public enum ImageCodec {
    private static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// PNG or JPEG from the magic bytes only; nil for anything else.
    public static func sniff(_ bytes: [UInt8]) -> ImageFormat? {
        if bytes.count >= 8 && bytes[0..<8].elementsEqual(pngSignature) { return .png }
        if bytes.count >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF { return .jpeg }
        return nil
    }

    /// The error for bytes `sniff` rejected: a PNG signature damaged in one or two bytes (the classic
    /// CR/LF text-mode transfer, or a flipped bit) is reported as an invalid PNG, anything else as unknown.
    static func unrecognised(_ bytes: [UInt8]) -> ImagingError {
        guard bytes.count >= 8 else { return .unknownFormat }
        let head = Array(bytes[0..<8])
        let differing = zip(head, pngSignature).filter { $0 != $1 }.count
        guard differing <= 2 else { return .unknownFormat }
        let hex = head.map { String($0, radix: 16, uppercase: true) }.map { $0.count == 1 ? "0" + $0 : $0 }
        let lineEnds = zip(head, pngSignature).allSatisfy { $0 == $1 || ($0 == 0x0D || $0 == 0x0A) }
        let cause = lineEnds ? " (line endings converted by a text-mode transfer)" : ""
        return .invalidImage(format: .png, message:
            "damaged PNG signature \(hex.joined(separator: " "))\(cause)")
    }

    /// Header facts without decoding the pixels (dimensions after EXIF orientation, depth, alpha, ICC size).
    /// 12-bit JPEGs are described here even though `decode` refuses them.
    public static func info(_ bytes: [UInt8]) throws(ImagingError) -> ImageInfo {
        guard let format = sniff(bytes) else { throw unrecognised(bytes) }
        let result = bytes.withUnsafeBufferPointer { buffer in
            switch format {
            case .png: return PNGDecoder.info(buffer)
            case .jpeg: return JPEGDecoder.info(buffer)
            }
        }
        return try result.get()
    }

    /// Decodes to upright RGBA8 (straight alpha; opaque formats get alpha 255).
    ///
    /// - PNG: every colour type and bit depth, palettes with tRNS, Adam7. 16-bit samples are rounded to 8 bits
    ///   (`(v * 255 + 32767) / 65535`). gAMA/cHRM/sRGB/iCCP are read but **not applied**: pixels are the
    ///   stored values (the profile is returned in `metadata.iccProfile`). Text chunks are skipped unread.
    /// - JPEG: baseline, progressive, arithmetic, greyscale, CMYK and YCCK (Adobe-inverted CMYK converted to
    ///   RGB). EXIF orientation is applied unless `options.applyOrientation` is false; broken EXIF is ignored.
    ///   `options.shrinkOnLoad` enables DCT shrink-on-load. 12-bit files throw `.unsupported`.
    /// - Corrupt-but-recoverable data yields `warnings`; truncated data throws `.truncated` unless
    ///   `options.allowTruncated`. Nothing is ever printed.
    /// - Throws: `ImagingError`, or `CancellationError` when the current task is cancelled mid-decode
    ///   (checked between bands of rows and, for progressive JPEGs, inside libjpeg's input pass).
    public static func decode(_ bytes: [UInt8], options: DecodeOptions = .init()) throws -> DecodedImage {
        guard let format = sniff(bytes) else { throw unrecognised(bytes) }
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
