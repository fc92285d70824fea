import Compute
import CCodecs

/// Animated WebP through libwebpmux's WebPAnimEncoder (CCodecs' cc_webp_animenc.c): lossy frames with a lossless
/// alpha plane, each frame's changed sub-rectangle chosen by libwebp, loop forever. Frame times are kept in whole
/// milliseconds, rounded on the running total so the length never drifts.
public final class AnimatedWebPEncoder: AnimationEncoder {
    public let format = ImageFormat.webp
    public private(set) var frameCount = 0
    let width: Int, height: Int
    private let handle: OpaquePointer
    private var elapsed = 0.0

    /// - Parameters:
    ///   - method: libwebp's effort 0...6 (4 is its default; 6 is about 20% slower and a few percent smaller).
    ///   - keyFrames: the least and most frames between key frames (libwebp needs `min >= max / 2 + 1`); far-apart
    ///     key frames keep a looping sticker small.
    init(width: Int, height: Int, quality: Int, method: Int = 4, keyFrames: (min: Int, max: Int) = (9, 17))
        throws(ImagingError)
    {
        (self.width, self.height) = (width, height)
        guard let handle = cc_webp_animenc_create(UInt32(width), UInt32(height), Float(quality), Int32(method),
                                               Int32(keyFrames.min), Int32(keyFrames.max)) else {
            throw .encodingFailed(message: "animated WebP encoder: out of memory or invalid settings")
        }
        self.handle = handle
    }

    deinit { cc_webp_animenc_destroy(handle) }

    public func add(_ frame: Image, duration: Double, on loop: any ParallelLoop) throws(ImagingError) {
        try checkFrame(frame, width: width, height: height, duration: duration, format: format)
        let timestamp = Int32((elapsed * 1000).rounded())
        let status = frame.pixels.withUnsafeBufferPointer { cc_webp_animenc_add(handle, $0.baseAddress, timestamp) }
        guard status == CC_OK else { throw failure(status) }
        elapsed += duration
        frameCount += 1
    }

    public func finish() throws(ImagingError) -> [UInt8] {
        guard frameCount > 0 else { throw .encodingFailed(message: "animated WebP has no frames") }
        let end = Int32((elapsed * 1000).rounded())
        return try encoded("animated WebP") { out, length, _ in cc_webp_animenc_finish(handle, end, &out, &length) }
            .mapError { _ in failure(Int32(CC_INVALID)) }.get()
    }

    private func failure(_ status: Int32) -> ImagingError {
        let text = String(cString: cc_webp_animenc_message(handle))
        return .encodingFailed(message: "animated WebP: \(text.isEmpty ? "status \(status)" : text)")
    }
}
