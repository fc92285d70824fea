/// A format an animation is written in (``AnimationEncoder``).
public enum AnimationFormat: String, Sendable, Codable, CaseIterable {
    /// Animated PNG (Signal's animated stickers): lossless frames, or posterised below quality 100.
    case apng
    /// Animated WebP (WhatsApp's animated stickers): lossy frames with a lossless alpha plane.
    case webp
    /// GIF: a palette of up to 255 colours per frame and one transparent index.
    case gif
    /// WebM with VP9 and an alpha channel (Telegram's video stickers); no audio.
    case webm

    /// The name people know the format by, for messages.
    public var displayName: String {
        switch self {
        case .apng: return "APNG"
        case .webp: return "animated WebP"
        case .gif: return "GIF"
        case .webm: return "WebM"
        }
    }

    /// The media type of files in this format.
    public var mediaType: String {
        switch self {
        case .apng: return "image/apng"
        case .webp: return "image/webp"
        case .gif: return "image/gif"
        case .webm: return "video/webm"
        }
    }

    /// The file extension, without the dot.
    public var fileExtension: String {
        switch self {
        case .apng: return "png"
        case .webp: return "webp"
        case .gif: return "gif"
        case .webm: return "webm"
        }
    }
}
