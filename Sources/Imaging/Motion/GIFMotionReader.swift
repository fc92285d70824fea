import Compute
import CCodecs

/// Every frame of a GIF through the shim's giflib reader (disposal, transparency, delays, loop count).
final class GIFMotionReader: MotionReader {
    private let bytes: MotionBytes
    private let handle: OpaquePointer
    let info: MotionInfo

    private init(bytes: MotionBytes, handle: OpaquePointer, info: MotionInfo) {
        self.bytes = bytes
        self.handle = handle
        self.info = info
    }

    /// Walks the records (the data is not decompressed) for the facts; no frame buffer yet.
    static func open(_ bytes: MotionBytes, limits: MotionLimits) throws -> GIFMotionReader {
        guard let handle = cc_gif_anim_create(bytes.base, bytes.count) else {
            throw MotionError.invalid(container: "GIF", message: "out of memory")
        }
        var raw = cc_motion_info()
        let status = cc_gif_anim_open(handle, Int32(clamping: limits.maxFrames), &raw)
        guard status == CC_OK else {
            let error = motionError(status, container: "GIF", message: cc_gif_anim_message(handle))
            cc_gif_anim_destroy(handle)
            throw error
        }
        return GIFMotionReader(bytes: bytes, handle: handle, info: MotionInfo(raw))
    }

    deinit { cc_gif_anim_destroy(handle) }

    func next(on loop: any ParallelLoop) throws -> MotionFrame? {
        let decoded = try decodeMotionFrame(width: info.width, height: info.height, { rgba, rowBytes, capacity, frame, got in
            CodecCancellation.polling(loop) { cc_gif_anim_next(handle, rgba, rowBytes, capacity, &frame, &got, $0) }
        }, fail: { motionError($0, container: "GIF", message: cc_gif_anim_message(self.handle)) })
        guard let (image, frame) = decoded else { return nil }
        return MotionFrame(image: image, index: 0, time: frame.time, duration: frame.duration,
                           truncated: frame.truncated != 0)
    }

    var warnings: [String] { [] }

    func seek(to start: Double) throws -> Bool { false }
}
