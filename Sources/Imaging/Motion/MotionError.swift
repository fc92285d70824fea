/// Why a motion source was refused, each case a fact a person can act on: ``summary`` says it in their words,
/// ``message`` keeps the library's own (the worker's `data.detail`), ``reason`` names it for programs.
///
/// The worker answers `tooLarge` with -32003, `startPastEnd` and `windowTooLong` (a parameter asking for what the
/// clip or the limits do not allow) with -32602, and every other case with -32002.
public enum MotionError: Error, Sendable, Equatable {
    /// The bytes are none of GIF, WebP, MP4/MOV, WebM/Matroska.
    case unknownFormat
    /// The library refused the data; `container` names what it was read as, `message` is the library's word.
    case invalid(container: String, message: String)
    /// The data ends before the first frame does (later truncation is a frame with `truncated` set).
    case truncated(container: String, message: String)
    /// An MP4/MOV that ends before its index (the `moov` box) does: cut off, or never finished by its writer; no
    /// frame can be found without it.
    case indexMissing(container: String, message: String)
    /// A valid file with something this build does not decode (another video codec).
    case unsupported(container: String, message: String)
    /// A frame is over the pixel limit (declared, or as the decoder found it).
    case tooLarge(width: Int, height: Int, limit: Int)
    /// More frames than ``MotionLimits/maxFrames`` (declared, or counted while decoding).
    case tooManyFrames(count: Int, limit: Int)
    /// The part of the source to be decoded (the whole of it, or from the start asked for to its end) is longer than
    /// ``MotionLimits/maxDuration`` seconds (declared, or reached while decoding).
    case tooLong(seconds: Double, limit: Double)
    /// The window asked for (`duration` seconds from the start) is longer than ``MotionLimits/maxDuration``, and so
    /// is what the source holds from that start.
    case windowTooLong(seconds: Double, limit: Double)
    /// The start asked for is at or past the end the container declares (`length` seconds).
    case startPastEnd(start: Double, length: Double)

    /// The library's words (or the limit's), as the worker's `data.detail`.
    public var message: String {
        switch self {
        case .unknownFormat:
            return "not a motion source (the content is none of GIF, WebP, MP4/MOV or WebM/Matroska)"
        case .invalid(let container, let message): return "invalid \(container): \(message)"
        case .truncated(let container, let message): return "truncated \(container): \(message)"
        case .indexMissing(let container, let message): return "truncated \(container), no index: \(message)"
        case .unsupported(let container, let message): return "unsupported \(container): \(message)"
        case .tooLarge(let width, let height, let limit):
            return "frame too large: \(width)x\(height) exceeds the limit of \(limit) pixels"
        case .tooManyFrames(let count, let limit):
            return "too many frames: \(count > limit ? "more than \(limit)" : "\(count)") (the limit is \(limit); --max-frames)"
        case .tooLong(let seconds, let limit), .windowTooLong(let seconds, let limit):
            return "too long: \(Self.seconds(seconds)) s exceeds the limit of \(Self.seconds(limit)) s (--max-duration)"
        case .startPastEnd(let start, let length):
            return "start \(Self.seconds(start)) s is not before the end the container declares (\(Self.seconds(length)) s)"
        }
    }

    /// What is wrong, in a person's terms: what the file is or lacks, or which limit of this worker it is over and
    /// by how much, never a library's message.
    public var summary: String {
        switch self {
        case .unknownFormat:
            return "this is not a clip or an animation the worker reads (MP4/MOV, WebM/Matroska, GIF or WebP)"
        case .invalid(let container, _):
            return "the \(Self.kind(container)) is damaged: its data does not decode"
        case .truncated(let container, _):
            return "the \(Self.kind(container)) is cut off before its first frame ends"
        case .indexMissing:
            return "the file is cut off: its index (moov) is missing"
        case .unsupported(let container, _):
            return "the \(Self.kind(container)) is stored in a way this worker does not read (H.264, HEVC, VP8 and VP9 are read)"
        case .tooLarge(let width, let height, let limit):
            return "each frame is \(width)x\(height); this worker allows \(limit) pixels (--max-pixels)"
        case .tooManyFrames(let count, let limit):
            // A count one over the limit is where counting stopped.
            return "the clip has \(count == limit + 1 ? "more than \(limit)" : "\(count)") frames; this worker allows \(limit) (--max-frames)"
        case .tooLong(let seconds, let limit):
            return "the clip is \(Self.tenths(seconds)) s; this worker allows \(Self.seconds(limit)) s (--max-duration)"
        case .windowTooLong(let seconds, let limit):
            return "the part of the clip to be read is \(Self.tenths(seconds)) s; this worker allows \(Self.seconds(limit)) s (--max-duration)"
        case .startPastEnd(let start, let length):
            return "the clip is \(Self.tenths(length)) s long; a start at \(Self.seconds(start)) s is past its end"
        }
    }

    /// A word for programs: `not-a-clip`, `damaged`, `cut-off`, `unsupported`, `too-large`, `too-many-frames`,
    /// `too-long`, `start-past-end`.
    public var reason: String {
        switch self {
        case .unknownFormat: return "not-a-clip"
        case .invalid: return "damaged"
        case .truncated, .indexMissing: return "cut-off"
        case .unsupported: return "unsupported"
        case .tooLarge: return "too-large"
        case .tooManyFrames: return "too-many-frames"
        case .tooLong, .windowTooLong: return "too-long"
        case .startPastEnd: return "start-past-end"
        }
    }

    /// Whether the data ends early (the `truncated` of the worker's error).
    public var isTruncated: Bool {
        switch self {
        case .truncated, .indexMissing: return true
        default: return false
        }
    }

    /// What a container name stands for in a sentence: "clip" for a video, the format's name for an animation.
    private static func kind(_ container: String) -> String {
        switch container {
        case "GIF", "gif": return "GIF"
        case "WebP", "webp": return "WebP"
        default: return "clip"
        }
    }

    /// Seconds as written: whole numbers without a fraction, else to the millisecond.
    public static func seconds(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String((value * 1000).rounded() / 1000)
    }

    /// Seconds to a tenth, always with the tenth ("6.0"): how long a clip is, as a person reads it.
    public static func tenths(_ value: Double) -> String {
        guard value.isFinite, abs(value) < 1e15 else { return String(value) }
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(abs(tenths % 10))"
    }
}

extension MotionError: CustomStringConvertible {
    public var description: String { message }
}
