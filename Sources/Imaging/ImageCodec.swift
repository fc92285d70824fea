import Compute

/// Entry points for reading PNG, JPEG, WebP, GIF, HEIF/HEIC and AVIF, and writing PNG, JPEG and WebP.
///
/// The format is always sniffed from the content. Decoding never prints and never crashes on hostile data:
/// failures are `ImagingError` values; large images are refused from the header (`DecodeOptions.maxPixels`)
/// before pixels are allocated; long decodes check their loop's cancellation (``ParallelLoop/isCancelled``) between bands of rows.
public enum ImageCodec {
    private static let pngSignature = FormatSniffer.pngSignature

    /// The format from the first bytes only (signatures, RIFF/WEBP, HEIF/AVIF `ftyp` brands); nil for anything else.
    public static func sniff(_ bytes: [UInt8]) -> ImageFormat? {
        FormatSniffer.sniff(bytes)
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

    /// Header facts without decoding the pixels (dimensions after EXIF orientation, depth, alpha, colour
    /// profile, frames). 12-bit JPEGs are described here even though `decode` refuses them.
    public static func info(_ bytes: [UInt8]) throws(ImagingError) -> ImageInfo {
        guard let format = sniff(bytes) else { throw unrecognised(bytes) }
        let result = bytes.withUnsafeBufferPointer { buffer in
            switch format {
            case .png: return PNGDecoder.info(buffer)
            case .jpeg: return JPEGDecoder.info(buffer)
            case .webp: return WebPDecoder.info(buffer)
            case .gif: return GIFDecoder.info(buffer)
            case .heif, .avif: return HEIFDecoder.info(buffer, format: format)
            case .apng, .webm: return .failure(.unsupported(format: format, message: "not a still image"))
            }
        }
        return try result.get()
    }

    /// Decodes to upright sRGB RGBA8 (straight alpha; opaque formats get alpha 255).
    ///
    /// - PNG: every colour type and bit depth, palettes with tRNS, Adam7. 16-bit samples are rounded to 8 bits
    ///   (`(v * 255 + 32767) / 65535`). gAMA/cHRM/sRGB chunks are not applied; an iCCP profile is.
    /// - JPEG: baseline, progressive, arithmetic, greyscale, CMYK and YCCK (Adobe-inverted CMYK converted to
    ///   RGB). EXIF orientation is applied unless `options.applyOrientation` is false; broken EXIF is ignored.
    ///   `options.shrinkOnLoad` enables DCT shrink-on-load. 12-bit files throw `.unsupported`.
    /// - WebP: lossy, lossless, alpha, an animation's first frame; EXIF orientation as for JPEG.
    /// - GIF: the first frame on the logical screen, transparency kept.
    /// - HEIF/HEIC and AVIF: the primary image with the container's transforms; with `shrinkOnLoad`, the
    ///   embedded thumbnail when it is large enough.
    /// - Colour: an embedded RGB ICC profile (or HEIF CICP) is converted to sRGB unless
    ///   `options.convertToSRGB` is false (``ColorManagement``); no profile means sRGB. Grey and CMYK
    ///   profiles are not applied.
    /// - Corrupt-but-recoverable data yields `warnings`; truncated data throws `.truncated` unless
    ///   `options.allowTruncated`. Nothing is ever printed.
    /// - Throws: `ImagingError`, or `CancellationError` when `loop` is cancelled mid-decode (checked between bands
    ///   of rows, input chunks or pixels; for HEIF before and after libheif's decode).
    /// - Parameter loop: where the decode's parts spread (a JPEG's colour conversion beside its decode; a profile's
    ///   conversion by bands), and whose cancellation stops it: a compute piece passes itself; off the pool, in turn
    ///   (the calling task's cancellation).
    public static func decode(_ bytes: [UInt8], options: DecodeOptions = .init(), on loop: some ParallelLoop) throws -> DecodedImage {
        guard let format = sniff(bytes) else { throw unrecognised(bytes) }
        var (decoded, color) = try bytes.withUnsafeBufferPointer { buffer -> (DecodedImage, EmbeddedColor?) in
            switch format {
            case .png:
                let d = try PNGDecoder.decode(buffer, options: options, on: loop)
                return (d, d.metadata.iccProfile.map(EmbeddedColor.icc))
            case .jpeg:
                // Converted inside the decoder, band by band.
                return (try JPEGDecoder.decode(buffer, options: options, on: loop), nil)
            case .webp: return try WebPDecoder.decode(buffer, options: options, on: loop)
            case .gif: return (try GIFDecoder.decode(buffer, options: options, on: loop), nil)
            case .heif, .avif: return try HEIFDecoder.decode(buffer, format: format, options: options, on: loop)
            case .apng, .webm: throw ImagingError.unsupported(format: format, message: "not a still image")
            }
        }
        if options.convertToSRGB { try ColorManagement.convertToSRGB(&decoded, from: color, on: loop) }
        return decoded
    }

    /// PNG, 8-bit RGB when every pixel is opaque, else RGBA; `compressionLevel` is zlib's 0...9.
    /// `loop`: where its filtered bands and deflate segments spread (a compute piece passes itself; off the pool, in turn).
    /// - Throws: `ImagingError`, or `CancellationError` when `loop` is cancelled (nothing is returned then).
    public static func encodePNG(_ image: Image, compressionLevel: Int = 6, on loop: some ParallelLoop) throws -> [UInt8] {
        try PNGEncoder.encode(image, compressionLevel: compressionLevel, on: loop)
    }

    /// JPEG at `quality` 1...100, YCbCr 4:2:0; alpha is dropped (not composited onto a background).
    public static func encodeJPEG(_ image: Image, quality: Int = 90, progressive: Bool = false)
        throws(ImagingError) -> [UInt8]
    {
        try JPEGEncoder.encode(image, quality: quality, progressive: progressive).get()
    }

    /// WebP: lossless (exact colours and alpha) or lossy at `quality` 0...100 (alpha then kept losslessly).
    /// `method` is libwebp's effort, 0 (fast) ... 6 (smallest); nil is libwebp's default, 4.
    public static func encodeWebP(_ image: Image, lossless: Bool, quality: Int = 90, method: Int? = nil)
        throws(ImagingError) -> [UInt8]
    {
        try WebPEncoder.encode(image, lossless: lossless, quality: quality, method: method).get()
    }

    /// 8-bit greyscale PNG (for masks); `gray.count` must be `width * height`.
    /// - Throws: `ImagingError`, or `CancellationError` when `loop` is cancelled.
    public static func encodeGrayPNG(width: Int, height: Int, gray: [UInt8], on loop: some ParallelLoop) throws -> [UInt8] {
        try PNGEncoder.encodeGray(width: width, height: height, gray: gray, on: loop)
    }
}
