import Compute
import CCodecs

/// JPEG decoding through the CCodecs libjpeg-turbo shim: baseline, progressive, arithmetic, greyscale,
/// CMYK and YCCK, decoded straight to RGBA, with optional DCT-domain shrink-on-load and EXIF orientation.
enum JPEGDecoder {
    /// Output rows decoded between two cancellation checks.
    static let band: UInt32 = 32

    /// Headroom on top of the coefficient buffers a progressive image of `maxPixels` can need.
    static func memoryLimit(maxPixels: Int) -> Int {
        // Up to 4 components of 16-bit coefficients per pixel for the whole-image buffers.
        let (coefficients, overflow) = maxPixels.multipliedReportingOverflow(by: 8)
        let headroom = 64 << 20
        return overflow || coefficients > Int.max - headroom ? Int.max : coefficients + headroom
    }

    static func info(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<ImageInfo, ImagingError> {
        guard let base = bytes.baseAddress, let j = cc_jpeg_create(base, bytes.count, 0) else {
            return .failure(.invalidImage(format: .jpeg, message: "out of memory"))
        }
        defer { cc_jpeg_destroy(j) }
        var header = cc_header()
        let status = cc_jpeg_read_header(j, &header)
        guard status == CC_OK else {
            // libjpeg refuses 12-bit files outright; their dimensions still come from the frame header.
            if status == CC_UNSUPPORTED, let scanned = JPEGFrameScanner.scan(bytes) {
                return .success(scanned)
            }
            return .failure(codecError(status, format: .jpeg, message: cc_jpeg_message(j)))
        }
        let orientation = exifOrientation(j)
        var iccLength = 0
        let icc = cc_jpeg_icc(j, &iccLength).map { [UInt8](UnsafeBufferPointer(start: $0, count: iccLength)) }
        let w = Int(header.width), h = Int(header.height)
        let swaps = Orientation(rawValue: orientation)?.swapsAxes ?? false
        return .success(ImageInfo(
            format: .jpeg, width: swaps ? h : w, height: swaps ? w : h, storedWidth: w, storedHeight: h,
            channels: Int(header.channels), bitDepth: Int(header.bit_depth), hasAlpha: false,
            orientation: orientation, isProgressive: header.progressive != 0, isInterlaced: false,
            iccProfileBytes: iccLength, color: ColorManagement.describe(icc.map(EmbeddedColor.icc), format: .jpeg)))
    }

    /// - Throws: `ImagingError` or `CancellationError`.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, options: DecodeOptions, on loop: some ParallelLoop) throws -> DecodedImage {
        let limit = memoryLimit(maxPixels: max(options.maxPixels, 0))
        guard let base = bytes.baseAddress, let j = cc_jpeg_create(base, bytes.count, limit) else {
            throw ImagingError.invalidImage(format: .jpeg, message: "out of memory")
        }
        // Progressive files are decoded inside cc_jpeg_start; libjpeg's progress hook polls `loop` there (the handle
        // keeps the poll, so its box lives as long as the handle).
        let cancellation = CodecCancellation(loop)
        defer { withExtendedLifetime(cancellation) { cc_jpeg_destroy(j) } }
        cc_jpeg_set_cancel_check(j, cancellation.check)
        func fail(_ status: Int32) -> any Error {
            if status == CC_CANCELLED { return CancellationError() }
            if status == CC_UNSUPPORTED, String(cString: cc_jpeg_message(j)).contains("precision") {
                return ImagingError.unsupported(format: .jpeg, message:
                    "only 8-bit JPEG is supported (libjpeg: \(String(cString: cc_jpeg_message(j))))")
            }
            return codecError(status, format: .jpeg, message: cc_jpeg_message(j))
        }

        var header = cc_header()
        var status = cc_jpeg_read_header(j, &header)
        guard status == CC_OK else { throw fail(status) }
        let storedWidth = Int(header.width), storedHeight = Int(header.height)
        guard storedWidth > 0, storedHeight > 0 else {
            throw ImagingError.invalidImage(format: .jpeg, message: "empty image")
        }
        // Stored size, even when shrinking on load: progressive coefficient buffers are full-size.
        try checkPixelBudget(width: storedWidth, height: storedHeight, options: options)
        let exif = exifOrientation(j)
        let orientation = options.applyOrientation ? (Orientation(rawValue: exif) ?? .up) : .up
        let denominator = scaleDenominator(storedWidth: storedWidth, storedHeight: storedHeight,
                                           orientation: orientation, shrink: options.shrinkOnLoad)
        var iccLength = 0
        let icc = cc_jpeg_icc(j, &iccLength).map { [UInt8](UnsafeBufferPointer(start: $0, count: iccLength)) }
        // The profile is converted band by band while the rows are still in cache (ImageCodec skips it after).
        var warnings: [String] = []
        let converter = options.convertToSRGB
            ? ColorManagement.converter(for: icc.map(EmbeddedColor.icc), format: .jpeg, warnings: &warnings) : nil

        var outWidth: UInt32 = 0, outHeight: UInt32 = 0
        status = cc_jpeg_start(j, Int32(denominator), &outWidth, &outHeight)
        guard status == CC_OK else { throw fail(status) }
        let width = Int(outWidth), height = Int(outHeight)
        guard width > 0, height > 0 else { throw ImagingError.invalidImage(format: .jpeg, message: "empty output") }
        // Progressive files are fully read during start: truncation is already known here.
        func checkTruncation() throws {
            if cc_jpeg_truncated(j) != 0 && !options.allowTruncated {
                throw ImagingError.truncated(format: .jpeg, message: "Premature end of JPEG file")
            }
        }
        try checkTruncation()

        let rowBytes = width * 4
        let pixels = try [UInt8](unsafeUninitializedCapacity: rowBytes * height) { buffer, initialized in
            func decodeRows(_ handOff: (PixelBand) -> Void) throws {
                var remaining = UInt32.max
                var done = 0
                while remaining > 0 {
                    if loop.isCancelled { throw CancellationError() }
                    let s = cc_jpeg_read_rows(j, buffer.baseAddress!, rowBytes, buffer.count, band, &remaining)
                    guard s == CC_OK else { throw fail(s) }
                    try checkTruncation()
                    let rows = height - Int(remaining) - done
                    handOff(PixelBand(start: buffer.baseAddress! + done * rowBytes, count: rows * width))
                    done += rows
                }
            }
            if let converter {
                // Each band's colour conversion goes to an idle compute thread while libjpeg decodes the next band.
                try loop.pipelined(decodeRows, process: { band in converter.apply(band.start, count: band.count) })
            } else {
                try decodeRows { _ in }
            }
            initialized = rowBytes * height
        }
        let truncated = cc_jpeg_truncated(j) != 0
        status = cc_jpeg_finish(j)
        if status != CC_OK { warnings.append("after image data: \(String(cString: cc_jpeg_message(j)))") }
        // An end of data met only while looking for the EOI marker leaves the image complete.
        warnings = codecWarnings(cc_jpeg_warnings(j), total: cc_jpeg_warning_count(j)) + warnings
        if truncated { warnings.append("truncated JPEG accepted: missing data decoded as grey") }

        var image = Image(width: width, height: height, pixels: pixels)
        image = try orientation.apply(to: image, on: loop)
        let metadata = ImageMetadata(
            format: .jpeg,
            originalWidth: orientation.swapsAxes ? storedHeight : storedWidth,
            originalHeight: orientation.swapsAxes ? storedWidth : storedHeight,
            orientation: orientation.rawValue, hadAlpha: false, bitDepth: Int(header.bit_depth),
            channels: Int(header.channels), iccProfile: icc, scaleDenominator: denominator)
        var decoded = DecodedImage(image: image, metadata: metadata, warnings: warnings)
        if let converter, let icc { decoded.metadata.convertedFrom = ColorManagement.describe(.icc(icc), using: converter) }
        return decoded
    }

    /// The DCT scale for `shrink` (1 when nil), decided in display orientation: a sideways-stored
    /// photo's stored width is its display height.
    static func scaleDenominator(storedWidth: Int, storedHeight: Int, orientation: Orientation,
                                 shrink: ShrinkOnLoad?) -> Int {
        guard let shrink else { return 1 }
        let (w, h) = orientation.swapsAxes ? (storedHeight, storedWidth) : (storedWidth, storedHeight)
        return shrink.jpegScaleDenominator(sourceWidth: w, sourceHeight: h)
    }

    private static func exifOrientation(_ j: OpaquePointer) -> Int {
        var length = 0
        guard let exif = cc_jpeg_exif(j, &length) else { return 1 }
        return ExifOrientation.parse(UnsafeRawBufferPointer(start: exif, count: length))
    }
}
