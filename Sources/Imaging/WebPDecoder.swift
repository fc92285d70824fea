import Compute
import CCodecs

/// WebP decoding through the CCodecs libwebp shim: lossy, lossless and alpha; an animation's first frame
/// composited on its canvas. The EXIF chunk's orientation is applied as for JPEG; the ICCP chunk is returned
/// for colour management.
enum WebPDecoder {
    static func info(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<ImageInfo, ImagingError> {
        guard let base = bytes.baseAddress, let w = cc_webp_create(base, bytes.count) else {
            return .failure(.invalidImage(format: .webp, message: "out of memory"))
        }
        defer { cc_webp_destroy(w) }
        var frame = cc_frame_info()
        let status = cc_webp_open(w, &frame)
        guard status == CC_OK else { return .failure(codecError(status, format: .webp, message: cc_webp_message(w))) }
        let orientation = exifOrientation(w)
        let color = embeddedColor(w)
        let width = Int(frame.width), height = Int(frame.height)
        let swaps = Orientation(rawValue: orientation)?.swapsAxes ?? false
        return .success(ImageInfo(
            format: .webp, width: swaps ? height : width, height: swaps ? width : height,
            storedWidth: width, storedHeight: height, channels: frame.has_alpha != 0 ? 4 : 3, bitDepth: 8,
            hasAlpha: frame.has_alpha != 0, orientation: orientation, isProgressive: false, isInterlaced: false,
            iccProfileBytes: color?.iccProfile?.count ?? 0, frameCount: Int(frame.frame_count),
            color: ColorManagement.describe(color, format: .webp)))
    }

    /// - Throws: `ImagingError` or `CancellationError`.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, options: DecodeOptions, on loop: some ParallelLoop) throws
        -> (DecodedImage, EmbeddedColor?)
    {
        guard let base = bytes.baseAddress, let w = cc_webp_create(base, bytes.count) else {
            throw ImagingError.invalidImage(format: .webp, message: "out of memory")
        }
        defer { cc_webp_destroy(w) }
        func fail(_ status: Int32) -> any Error {
            status == CC_CANCELLED ? CancellationError() : codecError(status, format: .webp, message: cc_webp_message(w))
        }
        var frame = cc_frame_info()
        let status = cc_webp_open(w, &frame)
        guard status == CC_OK else { throw fail(status) }
        let width = Int(frame.width), height = Int(frame.height)
        try checkPixelBudget(width: width, height: height, options: options)
        let rowBytes = width * 4
        let pixels = try [UInt8](unsafeUninitializedCapacity: rowBytes * height) { buffer, initialized in
            let s = CodecCancellation.polling(loop) { cc_webp_decode(w, buffer.baseAddress!, rowBytes, buffer.count, $0) }
            guard s == CC_OK else { throw fail(s) }
            initialized = rowBytes * height
        }
        let orientation = options.applyOrientation ? (Orientation(rawValue: exifOrientation(w)) ?? .up) : .up
        let image = try orientation.apply(to: Image(width: width, height: height, pixels: pixels), on: loop)
        let color = embeddedColor(w)
        var metadata = ImageMetadata(
            format: .webp, originalWidth: image.width, originalHeight: image.height,
            orientation: orientation.rawValue, hadAlpha: frame.has_alpha != 0, bitDepth: 8,
            channels: frame.has_alpha != 0 ? 4 : 3, iccProfile: color?.iccProfile, scaleDenominator: 1)
        metadata.frameCount = Int(frame.frame_count)
        return (DecodedImage(image: image, metadata: metadata, warnings: []), color)
    }

    private static func exifOrientation(_ w: OpaquePointer) -> Int {
        var length = 0
        guard let exif = cc_webp_exif(w, &length) else { return 1 }
        return ExifOrientation.parse(UnsafeRawBufferPointer(start: exif, count: length))
    }

    private static func embeddedColor(_ w: OpaquePointer) -> EmbeddedColor? {
        var length = 0
        guard let icc = cc_webp_icc(w, &length) else { return nil }
        return .icc([UInt8](UnsafeBufferPointer(start: icc, count: length)))
    }
}
