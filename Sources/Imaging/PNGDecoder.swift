import Compute
import CCodecs

/// PNG decoding through the CCodecs libpng shim: every colour type and bit depth to RGBA8.
///
/// gAMA/cHRM/sRGB are read but not applied (16-bit samples are rounded, `(v * 255 + 32767) / 65535`); an
/// iCCP profile is returned for ``ColorManagement`` to convert to sRGB.
/// A PNG eXIf orientation is not applied (few writers emit it; Pillow does not apply it either).
enum PNGDecoder {
    /// Rows (or Adam7 row steps) decoded between two cancellation checks.
    static let band: UInt32 = 32

    static func info(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<ImageInfo, ImagingError> {
        guard let base = bytes.baseAddress, let p = cc_png_create(base, bytes.count) else {
            return .failure(.invalidImage(format: .png, message: "out of memory"))
        }
        defer { cc_png_destroy(p) }
        var header = cc_header()
        let status = cc_png_read_header(p, &header)
        guard status == CC_OK else { return .failure(codecError(status, format: .png, message: cc_png_message(p))) }
        var iccLength = 0
        let icc = cc_png_icc(p, &iccLength).map { [UInt8](UnsafeBufferPointer(start: $0, count: iccLength)) }
        let w = Int(header.width), h = Int(header.height)
        return .success(ImageInfo(
            format: .png, width: w, height: h, storedWidth: w, storedHeight: h,
            channels: Int(header.channels), bitDepth: Int(header.bit_depth), hasAlpha: header.has_alpha != 0,
            orientation: 1, isProgressive: false, isInterlaced: header.interlaced != 0,
            iccProfileBytes: iccLength, color: ColorManagement.describe(icc.map(EmbeddedColor.icc), format: .png)))
    }

    /// - Throws: `ImagingError` or `CancellationError`.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, options: DecodeOptions, on loop: some ParallelLoop) throws -> DecodedImage {
        guard let base = bytes.baseAddress, let p = cc_png_create(base, bytes.count) else {
            throw ImagingError.invalidImage(format: .png, message: "out of memory")
        }
        defer { cc_png_destroy(p) }
        func fail(_ status: Int32) -> ImagingError { codecError(status, format: .png, message: cc_png_message(p)) }

        var header = cc_header()
        var status = cc_png_read_header(p, &header)
        guard status == CC_OK else { throw fail(status) }
        let width = Int(header.width), height = Int(header.height)
        guard width > 0, height > 0 else { throw ImagingError.invalidImage(format: .png, message: "empty image") }
        try checkPixelBudget(width: width, height: height, options: options)
        status = cc_png_start(p)
        guard status == CC_OK else { throw fail(status) }

        var warnings: [String] = []
        let rowBytes = width * 4
        let interlaced = header.interlaced != 0
        let pixels = try [UInt8](unsafeUninitializedCapacity: rowBytes * height) { buffer, initialized in
            let out = buffer.baseAddress!
            // Adam7 passes fill the image piecewise, so start from transparent black.
            if interlaced { out.initialize(repeating: 0, count: rowBytes * height) }
            var remaining = UInt32.max
            while remaining > 0 {
                if loop.isCancelled { throw CancellationError() }
                let s = cc_png_read_rows(p, out, rowBytes, buffer.count, band, &remaining)
                if s == CC_OK { continue }
                guard s == CC_TRUNCATED, options.allowTruncated else { throw fail(s) }
                warnings.append("truncated PNG accepted: \(String(cString: cc_png_message(p)))")
                if !interlaced {
                    // The row being read when data ran out may be partial; blank it and everything below.
                    let first = height - min(Int(remaining), height)
                    (out + first * rowBytes).initialize(repeating: 0, count: (height - first) * rowBytes)
                }
                break
            }
            initialized = rowBytes * height
        }
        if warnings.isEmpty {
            // Chunks after the image data (text, CRCs of trailing chunks) cannot change the pixels.
            let s = cc_png_finish(p)
            if s != CC_OK { warnings.append("after image data: \(String(cString: cc_png_message(p)))") }
        }
        warnings = codecWarnings(cc_png_warnings(p), total: cc_png_warning_count(p)) + warnings

        var iccLength = 0
        let icc = cc_png_icc(p, &iccLength).map { [UInt8](UnsafeBufferPointer(start: $0, count: iccLength)) }
        let metadata = ImageMetadata(
            format: .png, originalWidth: width, originalHeight: height, orientation: 1,
            hadAlpha: header.has_alpha != 0, bitDepth: Int(header.bit_depth), channels: Int(header.channels),
            iccProfile: icc, scaleDenominator: 1)
        return DecodedImage(image: Image(width: width, height: height, pixels: pixels), metadata: metadata,
                            warnings: warnings)
    }
}
