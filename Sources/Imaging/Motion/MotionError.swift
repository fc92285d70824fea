/// Why a motion source was refused. The worker answers every case but `tooLarge` with -32002 and `message` as
/// `data.detail`.
public enum MotionError: Error, Sendable, Equatable {
    /// The bytes are none of GIF, WebP, MP4/MOV, WebM/Matroska.
    case unknownFormat
    /// The library refused the data; `container` names what it was read as, `message` is the library's word.
    case invalid(container: String, message: String)
    /// The data ends before the first frame does (later truncation is a frame with `truncated` set).
    case truncated(container: String, message: String)
    /// A valid file with something this build does not decode (another video codec).
    case unsupported(container: String, message: String)
    /// A frame is over the pixel limit (declared, or as the decoder found it).
    case tooLarge(width: Int, height: Int, limit: Int)
    /// More frames than ``MotionLimits/maxFrames`` (declared, or counted while decoding).
    case tooManyFrames(count: Int, limit: Int)
    /// Longer than ``MotionLimits/maxDuration`` seconds (declared, or reached while decoding).
    case tooLong(seconds: Double, limit: Double)

    public var message: String {
        switch self {
        case .unknownFormat:
            return "not a motion source (the content is none of GIF, WebP, MP4/MOV or WebM/Matroska)"
        case .invalid(let container, let message): return "invalid \(container): \(message)"
        case .truncated(let container, let message): return "truncated \(container): \(message)"
        case .unsupported(let container, let message): return "unsupported \(container): \(message)"
        case .tooLarge(let width, let height, let limit):
            return "frame too large: \(width)x\(height) exceeds the limit of \(limit) pixels"
        case .tooManyFrames(let count, let limit):
            return "too many frames: \(count > limit ? "more than \(limit)" : "\(count)") (the limit is \(limit); --max-frames)"
        case .tooLong(let seconds, let limit):
            return "too long: \(formatSeconds(seconds)) s exceeds the limit of \(formatSeconds(limit)) s (--max-duration)"
        }
    }

    private func formatSeconds(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String((value * 1000).rounded() / 1000)
    }
}

extension MotionError: CustomStringConvertible {
    public var description: String { message }
}
