import Compute
import CCodecs

/// Every frame of an animated (or still) WebP through libwebpdemux's animation decoder.
final class WebPMotionReader: MotionReader {
    private let bytes: MotionBytes
    private let handle: OpaquePointer
    let info: MotionInfo

    private init(bytes: MotionBytes, handle: OpaquePointer, info: MotionInfo) {
        self.bytes = bytes
        self.handle = handle
        self.info = info
    }

    /// The demuxer's facts; the animation decoder (and its canvas) is created at the first frame.
    static func open(_ bytes: MotionBytes) throws -> WebPMotionReader {
        guard let handle = cc_webp_anim_create(bytes.base, bytes.count) else {
            throw MotionError.invalid(container: "WebP", message: "out of memory")
        }
        var raw = cc_motion_info()
        let status = cc_webp_anim_open(handle, &raw)
        guard status == CC_OK else {
            let error = motionError(status, container: "WebP", message: cc_webp_anim_message(handle))
            cc_webp_anim_destroy(handle)
            throw error
        }
        return WebPMotionReader(bytes: bytes, handle: handle, info: MotionInfo(raw))
    }

    deinit { cc_webp_anim_destroy(handle) }

    func next(on loop: any ParallelLoop) throws -> MotionFrame? {
        try loop.checkCancellation()
        let decoded = try decodeMotionFrame(width: info.width, height: info.height, { rgba, rowBytes, capacity, frame, got in
            cc_webp_anim_next(handle, rgba, rowBytes, capacity, &frame, &got)
        }, fail: { motionError($0, container: "WebP", message: cc_webp_anim_message(self.handle)) })
        guard let (image, frame) = decoded else { return nil }
        return MotionFrame(image: image, index: 0, time: frame.time, duration: frame.duration)
    }

    var warnings: [String] { [] }

    func seek(to start: Double) throws -> Bool { false }
}
