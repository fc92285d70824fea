import Compute
import CCodecs

/// WebM with VP9 and alpha (Telegram's video stickers) through FFmpeg (CCodecs' cc_webm.c): libvpx-vp9 at constant
/// quality on yuva420p, the alpha as Matroska BlockAdditional (alpha_mode 1), muxed into memory; no audio. Times in
/// whole milliseconds, rounded on the running total.
public final class WebMEncoder: AnimationEncoder {
    public let format = ImageFormat.webm
    public private(set) var frameCount = 0
    let width: Int, height: Int
    private let handle: OpaquePointer
    private var elapsed = 0.0

    /// VP9's crf for `quality`: 63 at 0 down to 10 at 100.
    public static func crf(quality: Int) -> Int { 63 - (quality * 53 + 50) / 100 }

    /// - Parameters:
    ///   - speed: libvpx's cpu-used 0...8 under the "good" deadline (4 is about twice 2's speed for a few percent).
    ///   - keyFrameInterval: frames between key frames; a sticker of a few seconds needs only its first.
    init(width: Int, height: Int, quality: Int, speed: Int = 4, keyFrameInterval: Int = 300) throws(ImagingError) {
        (self.width, self.height) = (width, height)
        // yuva420p halves the chroma planes: odd sides are encoded (libvpx rounds up) but players differ.
        guard width % 2 == 0, height % 2 == 0 else {
            throw .encodingFailed(message: "WebM canvas \(width)x\(height) must have even sides")
        }
        guard let handle = cc_webm_create(UInt32(width), UInt32(height), Int32(Self.crf(quality: quality)),
                                          Int32(speed), Int32(keyFrameInterval)) else {
            throw .encodingFailed(message: "WebM encoder: out of memory")
        }
        self.handle = handle
        let status = cc_webm_open(handle)
        guard status == CC_OK else { throw failure(status) }
    }

    deinit { cc_webm_destroy(handle) }

    public func add(_ frame: Image, duration: Double, on loop: any ParallelLoop) throws(ImagingError) {
        try checkFrame(frame, width: width, height: height, duration: duration, format: format)
        let start = Int64((elapsed * 1000).rounded()), end = Int64(((elapsed + duration) * 1000).rounded())
        let status = frame.pixels.withUnsafeBufferPointer {
            cc_webm_add(handle, $0.baseAddress, $0.count, start, max(1, end - start))
        }
        guard status == CC_OK else { throw failure(status) }
        elapsed += duration
        frameCount += 1
    }

    public func finish() throws(ImagingError) -> [UInt8] {
        guard frameCount > 0 else { throw .encodingFailed(message: "WebM has no frames") }
        return try encoded("WebM") { out, length, _ in cc_webm_finish(handle, &out, &length) }
            .mapError { _ in failure(Int32(CC_INVALID)) }.get()
    }

    private func failure(_ status: Int32) -> ImagingError {
        let text = String(cString: cc_webm_message(handle))
        return .encodingFailed(message: "WebM: \(text.isEmpty ? "status \(status)" : text)")
    }
}
