/// Why a codec call failed. Decoding never crashes or prints on bad input; it throws one of these.
public enum ImagingError: Error, Sendable, Equatable {
    /// The first bytes match none of the formats the codecs read.
    case unknownFormat
    /// The library rejected the data; `message` is the library's own text.
    case invalidImage(format: ImageFormat, message: String)
    /// The data ends before the image does (see `DecodeOptions.allowTruncated`).
    case truncated(format: ImageFormat, message: String)
    /// A valid file using a feature this build does not decode (e.g. 12-bit JPEG).
    case unsupported(format: ImageFormat, message: String)
    /// The stored dimensions exceed `DecodeOptions.maxPixels`; refused before allocating pixels.
    case tooLarge(width: Int, height: Int, limit: Int)
    /// Encoding was refused (bad parameters) or the library failed.
    case encodingFailed(message: String)
    /// Optical flow could not be measured between two frames (too small, too large, out of memory).
    case flowFailed(message: String)

    /// Human-readable description used in error replies.
    public var message: String {
        switch self {
        case .unknownFormat:
            return "unknown image format (the content is none of PNG, JPEG, WebP, GIF, HEIF/HEIC or AVIF)"
        case .invalidImage(let format, let message):
            return "invalid \(format.displayName) image: \(message)"
        case .truncated(let format, let message):
            return "truncated \(format.displayName) image: \(message)"
        case .unsupported(let format, let message):
            return "unsupported \(format.displayName) image: \(message)"
        case .tooLarge(let width, let height, let limit):
            return "image too large: \(width)x\(height) exceeds the limit of \(limit) pixels"
        case .encodingFailed(let message):
            return "encoding failed: \(message)"
        case .flowFailed(let message):
            return "optical flow failed: \(message)"
        }
    }
}

extension ImagingError: CustomStringConvertible {
    public var description: String { message }
}
