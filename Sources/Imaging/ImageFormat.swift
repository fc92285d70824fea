/// An encoded image format the codecs understand. Always determined from the content, never a file name
/// (see ``ImageCodec/sniff(_:)``).
public enum ImageFormat: String, Sendable, Codable, CaseIterable {
    case png
    case jpeg
    case webp
    case gif
    /// HEIF with HEVC (HEIC), as phones write it, or any other HEIF brand.
    case heif
    /// HEIF with AV1.
    case avif

    /// The name people know the format by, for messages.
    public var displayName: String {
        switch self {
        case .png: return "PNG"
        case .jpeg: return "JPEG"
        case .webp: return "WebP"
        case .gif: return "GIF"
        case .heif: return "HEIF"
        case .avif: return "AVIF"
        }
    }

    /// The media type of files in this format.
    public var mediaType: String {
        switch self {
        case .png: return "image/png"
        case .jpeg: return "image/jpeg"
        case .webp: return "image/webp"
        case .gif: return "image/gif"
        case .heif: return "image/heic"
        case .avif: return "image/avif"
        }
    }

    /// The formats ``ImageCodec`` encodes (still images): what an output may be.
    public static let written: [ImageFormat] = [.png, .jpeg, .webp]

    /// Whether ``ImageCodec`` encodes this format (it decodes every case).
    public var isWritten: Bool { Self.written.contains(self) }
}
