import Compute
import CCodecs

/// GIF decoding through the CCodecs giflib shim: the first frame on the logical screen, its transparent
/// colour (and whatever the frame leaves uncovered) as alpha 0. Later frames are never decompressed. Read as
/// browsers read it: a truncated first frame gives the rows that arrived (always, with a warning), and a file
/// without any colour map reads as a grey ramp. Every frame: ``MotionDecoder``.
enum GIFDecoder {
    static func info(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<ImageInfo, ImagingError> {
        guard let base = bytes.baseAddress, let g = cc_gif_create(base, bytes.count) else {
            return .failure(.invalidImage(format: .gif, message: "out of memory"))
        }
        defer { cc_gif_destroy(g) }
        var frame = cc_frame_info()
        let status = cc_gif_open(g, 1, &frame)
        guard status == CC_OK else { return .failure(codecError(status, format: .gif, message: cc_gif_message(g))) }
        let width = Int(frame.width), height = Int(frame.height)
        return .success(ImageInfo(
            format: .gif, width: width, height: height, storedWidth: width, storedHeight: height,
            channels: 1, bitDepth: 8, hasAlpha: frame.has_alpha != 0, orientation: 1, isProgressive: false,
            isInterlaced: frame.interlaced != 0, iccProfileBytes: 0, frameCount: Int(frame.frame_count)))
    }

    /// - Throws: `ImagingError` or `CancellationError`.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, options: DecodeOptions, on loop: some ParallelLoop) throws -> DecodedImage {
        guard let base = bytes.baseAddress, let g = cc_gif_create(base, bytes.count) else {
            throw ImagingError.invalidImage(format: .gif, message: "out of memory")
        }
        defer { cc_gif_destroy(g) }
        var frame = cc_frame_info()
        let status = cc_gif_open(g, 0, &frame)
        guard status == CC_OK else { throw codecError(status, format: .gif, message: cc_gif_message(g)) }
        let width = Int(frame.width), height = Int(frame.height)
        try checkPixelBudget(width: width, height: height, options: options)
        var warnings: [String] = []
        let rowBytes = width * 4
        let pixels = try [UInt8](unsafeUninitializedCapacity: rowBytes * height) { buffer, initialized in
            let s = CodecCancellation.polling(loop) { cc_gif_decode(g, buffer.baseAddress!, rowBytes, buffer.count, $0) }
            // The shim clears the whole screen before the first row, so a partial frame is still initialised.
            initialized = rowBytes * height
            if s == CC_CANCELLED { throw CancellationError() }
            // Browsers show the rows of a truncated GIF that arrived, so it is accepted whatever `allowTruncated` says.
            if s == CC_TRUNCATED {
                warnings.append("truncated GIF accepted: \(String(cString: cc_gif_message(g))); missing rows left transparent")
            } else if s != CC_OK {
                throw codecError(s, format: .gif, message: cc_gif_message(g))
            }
        }
        let metadata = ImageMetadata(
            format: .gif, originalWidth: width, originalHeight: height, orientation: 1,
            hadAlpha: frame.has_alpha != 0, bitDepth: 8, channels: 1, iccProfile: nil, scaleDenominator: 1)
        return DecodedImage(image: Image(width: width, height: height, pixels: pixels), metadata: metadata,
                            warnings: warnings)
    }
}
