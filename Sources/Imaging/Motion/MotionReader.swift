import Compute
import CCodecs

/// One kind of motion source behind ``MotionDecoder``: a C handle opened over the source, handing out frames in
/// order. Not thread-safe: the decoder serialises calls.
protocol MotionReader: AnyObject {
    /// As stored (before rotation); the decoder rotates.
    var info: MotionInfo { get }
    /// The next frame (index left to the decoder), nil at the end; decoded until `loop` is cancelled.
    /// - Throws: `MotionError` or `CancellationError`.
    func next(on loop: any ParallelLoop) throws -> MotionFrame?
    var warnings: [String] { get }
    /// Positions at the first frame that ends after `start` seconds, when the reader can do better than
    /// decoding and dropping (video: a seek to the key frame before it). Returns false when it cannot.
    func seek(to start: Double) throws -> Bool
    /// Hands out later frames at `width` x `height` (as stored, smaller than the source), scaled while they are
    /// converted, when the reader can; returns false (frames keep the source's size) when it cannot.
    func scaleFrames(toWidth width: Int, height: Int) throws -> Bool
}

extension MotionReader {
    func scaleFrames(toWidth width: Int, height: Int) throws -> Bool { false }
}

extension MotionInfo {
    /// The shim's facts, as stored (`rotation` kept, not applied to the size).
    init(_ raw: cc_motion_info) {
        func text<T>(_ tuple: T) -> String {
            withUnsafeBytes(of: tuple) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        self.init(width: Int(raw.width), height: Int(raw.height),
                  frameCount: raw.frame_count >= 0 ? Int(raw.frame_count) : nil,
                  duration: raw.duration >= 0 ? raw.duration : nil,
                  frameRate: raw.frame_rate > 0 ? raw.frame_rate : nil,
                  codec: text(raw.codec), container: text(raw.container), hasAlpha: raw.has_alpha != 0,
                  loopCount: raw.loop_count >= 0 ? Int(raw.loop_count) : nil, rotation: Int(raw.rotation))
    }
}

/// A shim status as the error a reader throws.
func motionError(_ status: Int32, container: String, message: UnsafePointer<CChar>?) -> any Error {
    var text = message.map { String(cString: $0) } ?? ""
    if text.isEmpty { text = "decoder failed (status \(status))" }
    switch Int(status) {
    case Int(CC_CANCELLED): return CancellationError()
    case Int(CC_TRUNCATED): return MotionError.truncated(container: container, message: text)
    case Int(CC_UNSUPPORTED): return MotionError.unsupported(container: container, message: text)
    case Int(CC_NOMEM): return MotionError.invalid(container: container, message: "out of memory: \(text)")
    case Int(CC_LIMIT): return MotionError.invalid(container: container, message: "safety limit exceeded: \(text)")
    default: return MotionError.invalid(container: container, message: text)
    }
}

/// Runs a shim's `next` into a new frame-sized buffer (given its row stride and its capacity in bytes, which the shim
/// checks against what it writes); nil when it had no frame left.
func decodeMotionFrame(width: Int, height: Int,
                       _ call: (UnsafeMutablePointer<UInt8>, Int, Int, inout cc_motion_frame, inout Int32) -> Int32,
                       fail: (Int32) -> any Error) throws -> (Image, cc_motion_frame)? {
    var frame = cc_motion_frame()
    var got: Int32 = 0
    let rowBytes = width * 4
    let pixels = try [UInt8](unsafeUninitializedCapacity: rowBytes * height) { buffer, initialized in
        let status = call(buffer.baseAddress!, rowBytes, buffer.count, &frame, &got)
        guard status == CC_OK else { throw fail(status) }
        initialized = got != 0 ? rowBytes * height : 0
    }
    guard got != 0 else { return nil }
    return (Image(width: width, height: height, pixels: pixels), frame)
}

