import Compute
import CCodecs
import Glibc

/// Video frames through the shim's FFmpeg reader, over the source's bytes or its file descriptor (FFmpeg reads
/// nothing else). Frames come out as stored; the decoder rotates them.
final class VideoMotionReader: MotionReader {
    /// Keeps the bytes alive (nil when reading a descriptor).
    private let bytes: MotionBytes?
    /// The descriptor this reader owns (a dup of the caller's), closed in deinit; -1 when reading bytes.
    private let fd: Int32
    private let handle: OpaquePointer
    let info: MotionInfo
    /// The size frames are handed out at, as stored.
    private var frameSize: (width: Int, height: Int)

    private init(bytes: MotionBytes?, fd: Int32, handle: OpaquePointer, info: MotionInfo) {
        self.bytes = bytes
        self.fd = fd
        self.handle = handle
        self.info = info
        frameSize = (info.width, info.height)
    }

    /// - Parameters:
    ///   - fd: a descriptor the reader now owns (closed on failure too).
    ///   - countFrames: when the container does not declare the frame count, count the packets (`info` only:
    ///     the reader hands out no frames afterwards).
    ///   - describesOversize: a clip whose declared frame size is over the pixel limit throws ``Oversized`` with what
    ///     its container declares (for a description), instead of ``MotionError/tooLarge(width:height:limit:)``.
    ///   - loop: whose cancellation stops the opening (a container's packets counted, the first frame decoded).
    static func open(bytes: MotionBytes?, fd: Int32, limits: MotionLimits, countFrames: Bool,
                     describesOversize: Bool = false, on loop: some ParallelLoop) throws -> VideoMotionReader {
        let created = bytes.map { cc_video_create($0.base, $0.count) } ?? cc_video_create_fd(fd)
        guard let handle = created else {
            if fd >= 0 { close(fd) }
            throw MotionError.invalid(container: "video", message: bytes == nil ? "not a regular file" : "out of memory")
        }
        var raw = cc_motion_info()
        let status = CodecCancellation.polling(loop) {
            cc_video_open(handle, Int64(clamping: limits.maxPixels), countFrames ? 1 : 0,
                          Int32(clamping: limits.maxFrames), $0, &raw)
        }
        guard status == CC_OK else {
            let error: any Error = if status == CC_LIMIT {
                describesOversize ? Oversized(info: MotionInfo(raw))
                    : MotionError.tooLarge(width: Int(raw.width), height: Int(raw.height), limit: limits.maxPixels)
            } else if status == CC_TRUNCATED && cc_video_index_missing(handle) != 0 {
                MotionError.indexMissing(container: "MP4/MOV", message: String(cString: cc_video_message(handle)))
            } else {
                motionError(status, container: "video", message: cc_video_message(handle))
            }
            cc_video_destroy(handle)
            if fd >= 0 { close(fd) }
            throw error
        }
        return VideoMotionReader(bytes: bytes, fd: fd, handle: handle, info: MotionInfo(raw))
    }

    /// A clip refused for its declared frame size, with what its container declares (as stored).
    struct Oversized: Error {
        var info: MotionInfo
    }

    deinit {
        cc_video_destroy(handle)
        if fd >= 0 { close(fd) }
    }

    func next(on loop: any ParallelLoop) throws -> MotionFrame? {
        let decoded = try decodeMotionFrame(width: frameSize.width, height: frameSize.height, { rgba, rowBytes, capacity, frame, got in
            CodecCancellation.polling(loop) { cc_video_next(handle, rgba, rowBytes, capacity, &frame, &got, $0) }
        }, fail: { motionError($0, container: self.info.container, message: cc_video_message(self.handle)) })
        guard let (image, frame) = decoded else { return nil }
        return MotionFrame(image: image, index: 0, time: frame.time, duration: frame.duration,
                           truncated: frame.truncated != 0)
    }

    func scaleFrames(toWidth width: Int, height: Int) throws -> Bool {
        guard width > 0, height > 0, width <= info.width, height <= info.height else { return false }
        let status = cc_video_set_output_size(handle, UInt32(width), UInt32(height))
        guard status == CC_OK else { throw motionError(status, container: info.container, message: cc_video_message(handle)) }
        frameSize = (width, height)
        return true
    }

    var warnings: [String] { codecWarnings(cc_video_warnings(handle), total: cc_video_warning_count(handle)) }

    func seek(to start: Double) throws -> Bool {
        let status = cc_video_seek(handle, start)
        guard status == CC_OK else { throw motionError(status, container: info.container, message: cc_video_message(handle)) }
        return true
    }
}
