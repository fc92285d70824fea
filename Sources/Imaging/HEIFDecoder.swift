import Compute
import CCodecs

/// HEIF/HEIC and AVIF decoding through the CCodecs libheif shim: the primary image with the container's
/// transforms (`irot`, `imir`, `clap`) applied, so EXIF orientation is never applied on top; alpha kept;
/// 10/12-bit reduced to 8; grids assembled by libheif.
///
/// With a shrink-on-load hint, the file's embedded thumbnail is decoded instead of the primary image when it
/// is at least as large as what the caller needs (as libvips does): a phone's 4032x3024 HEIC carries a
/// 320-512 px thumbnail that serves a 256 px thumbnail at a fraction of the cost.
enum HEIFDecoder {
    static func info(_ bytes: UnsafeBufferPointer<UInt8>, format: ImageFormat) -> Result<ImageInfo, ImagingError> {
        guard let base = bytes.baseAddress, let h = cc_heif_create(base, bytes.count) else {
            return .failure(.invalidImage(format: format, message: "out of memory"))
        }
        defer { cc_heif_destroy(h) }
        var frame = cc_frame_info()
        let status = cc_heif_open(h, 0, &frame)
        guard status == CC_OK else { return .failure(codecError(status, format: format, message: cc_heif_message(h))) }
        let color = embeddedColor(h)
        let width = Int(frame.width), height = Int(frame.height)
        return .success(ImageInfo(
            format: format, width: width, height: height, storedWidth: width, storedHeight: height,
            channels: frame.has_alpha != 0 ? 4 : 3, bitDepth: Int(frame.bit_depth), hasAlpha: frame.has_alpha != 0,
            orientation: 1, isProgressive: false, isInterlaced: false, iccProfileBytes: color?.iccProfile?.count ?? 0,
            frameCount: Int(frame.frame_count), color: ColorManagement.describe(color, format: format)))
    }

    /// - Throws: `ImagingError` or `CancellationError`.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, format: ImageFormat, options: DecodeOptions,
                       on loop: some ParallelLoop) throws
        -> (DecodedImage, EmbeddedColor?)
    {
        guard let base = bytes.baseAddress, let h = cc_heif_create(base, bytes.count) else {
            throw ImagingError.invalidImage(format: format, message: "out of memory")
        }
        defer { cc_heif_destroy(h) }
        func fail(_ status: Int32) -> any Error {
            status == CC_CANCELLED ? CancellationError() : codecError(status, format: format, message: cc_heif_message(h))
        }
        var frame = cc_frame_info()
        // libheif's own limit (per side) stops grids and huge ispe sizes inside the library; the pixel budget
        // below is the worker's, checked before any pixel buffer exists.
        let side = Int32(clamping: min(max(options.maxPixels, 1), 1 << 30))
        var status = cc_heif_open(h, side, &frame)
        guard status == CC_OK else { throw fail(status) }
        let width = Int(frame.width), height = Int(frame.height)
        try checkPixelBudget(width: width, height: height, options: options)

        let thumbnail = useThumbnail(frame, shrink: options.shrinkOnLoad)
        let capacity = thumbnail ? Int(frame.thumbnail_width) * Int(frame.thumbnail_height) * 4 : width * height * 4
        var outWidth: UInt32 = 0, outHeight: UInt32 = 0
        var pixels = try [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
            status = CodecCancellation.polling(loop) {
                cc_heif_decode(h, thumbnail ? 1 : 0, buffer.baseAddress!, capacity, &outWidth, &outHeight, $0)
            }
            guard status == CC_OK else { throw fail(status) }
            initialized = Int(outWidth) * Int(outHeight) * 4
        }
        // A `clap` crop can leave the image smaller than its ispe size.
        pixels.removeSubrange((Int(outWidth) * Int(outHeight) * 4)...)
        let image = Image(width: Int(outWidth), height: Int(outHeight), pixels: pixels)
        let color = embeddedColor(h)
        var metadata = ImageMetadata(
            format: format, originalWidth: width, originalHeight: height, orientation: 1,
            hadAlpha: frame.has_alpha != 0, bitDepth: Int(frame.bit_depth), channels: frame.has_alpha != 0 ? 4 : 3,
            iccProfile: color?.iccProfile, scaleDenominator: thumbnail ? max(1, width / max(image.width, 1)) : 1)
        metadata.frameCount = Int(frame.frame_count)
        metadata.fromThumbnail = thumbnail
        return (DecodedImage(image: image, metadata: metadata, warnings: []), color)
    }

    /// The thumbnail serves when it covers what the caller needs in both dimensions and has the primary
    /// image's aspect (a thumbnail of another crop would shift the picture).
    static func useThumbnail(_ frame: cc_frame_info, shrink: ShrinkOnLoad?) -> Bool {
        guard let shrink, frame.thumbnail_width > 0, frame.thumbnail_height > 0 else { return false }
        let w = Int(frame.width), h = Int(frame.height)
        let tw = Int(frame.thumbnail_width), th = Int(frame.thumbnail_height)
        let aspect = Double(w) / Double(h), thumbAspect = Double(tw) / Double(th)
        guard abs(aspect - thumbAspect) / aspect < 0.02 else { return false }
        let need = shrink.requiredSize(sourceWidth: w, sourceHeight: h)
        return tw >= need.width && th >= need.height
    }

    private static func embeddedColor(_ h: OpaquePointer) -> EmbeddedColor? {
        var length = 0
        if let icc = cc_heif_icc(h, &length) {
            return .icc([UInt8](UnsafeBufferPointer(start: icc, count: length)))
        }
        var primaries: Int32 = 0, transfer: Int32 = 0, matrix: Int32 = 0, fullRange: Int32 = 0
        var xy = [Float](repeating: 0, count: 8)
        let found = xy.withUnsafeMutableBufferPointer {
            cc_heif_nclx(h, &primaries, &transfer, &matrix, &fullRange, $0.baseAddress)
        }
        guard found != 0 else { return nil }
        return .cicp(primaries: Int(primaries), transfer: Int(transfer), chromaticities: xy)
    }
}
