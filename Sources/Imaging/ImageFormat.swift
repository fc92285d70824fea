/// Every encoded image format the worker knows, still or animated: the one place that says what each can do
/// (``Abilities``), its names, its media type and its file-name extensions. A format read from bytes is always
/// determined from the content, never a file name (see ``ImageCodec/sniff(_:)``); the extensions say what a path
/// the worker writes must end in, and both output specs read them here.
///
/// Adding a format is a case here and its row in ``facts``; the codecs that read or write it (``ImageCodec``,
/// ``AnimationSettings/makeEncoder()``) then fail to compile until they handle it.
public enum ImageFormat: String, Sendable, Codable, CaseIterable {
    // The order is the order lists of formats are given in (the schemas' enums, error messages).
    case png
    case jpeg
    /// Animated PNG (Signal's animated stickers): lossless frames, or posterised below quality 100. An APNG file
    /// is read as PNG (its default image): the sniffer names it `png`.
    case apng
    /// WebP: a still, or an animation (WhatsApp's animated stickers: lossy frames with a lossless alpha plane).
    case webp
    /// GIF: read as a still (its first frame) or as motion; written only as an animation (a palette of up to
    /// 255 colours per frame and one transparent index).
    case gif
    /// HEIF with HEVC (HEIC), as phones write it, or any other HEIF brand.
    case heif
    /// HEIF with AV1.
    case avif
    /// WebM with VP9 and an alpha channel (Telegram's video stickers); no audio. Read as a motion source.
    case webm

    /// What the worker does with a format.
    public struct Abilities: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// ``ImageCodec`` decodes it to one image (and ``ImageCodec/sniff(_:)`` names it).
        public static let decodeStill = Abilities(rawValue: 1 << 0)
        /// A motion source in this format is read frame by frame.
        public static let decodeAnimated = Abilities(rawValue: 1 << 1)
        /// ``ImageCodec`` encodes a still image in it: what an `output` may be.
        public static let encodeStill = Abilities(rawValue: 1 << 2)
        /// ``AnimationSettings/makeEncoder()`` writes an animation in it: what an animated `output` may be.
        public static let encodeAnimated = Abilities(rawValue: 1 << 3)
    }

    /// One format's facts.
    public struct Facts: Sendable {
        /// The name people know the format by, for messages.
        public var displayName: String
        /// The name of an animation in this format, when it differs ("animated WebP").
        public var animationName: String
        /// The media type of files in this format.
        public var mediaType: String
        /// File-name extensions, without the dot; the first is the one the worker names its files with. Two formats
        /// may share one (`png` names PNG and APNG): which is meant depends on whether a still or an animation is
        /// written (``named(byExtension:writing:)``).
        public var extensions: [String]
        public var abilities: Abilities

        init(_ displayName: String, animationName: String? = nil, mediaType: String, extensions: [String],
             _ abilities: Abilities) {
            self.displayName = displayName
            self.animationName = animationName ?? displayName
            self.mediaType = mediaType
            self.extensions = extensions
            self.abilities = abilities
        }
    }

    /// The table: one row per format.
    public var facts: Facts {
        switch self {
        case .png: Facts("PNG", mediaType: "image/png", extensions: ["png"], [.decodeStill, .encodeStill])
        case .jpeg: Facts("JPEG", mediaType: "image/jpeg", extensions: ["jpg", "jpeg", "jpe", "jfif"], [.decodeStill, .encodeStill])
        case .apng: Facts("APNG", mediaType: "image/apng", extensions: ["png", "apng"], [.encodeAnimated])
        case .webp: Facts("WebP", animationName: "animated WebP", mediaType: "image/webp", extensions: ["webp"],
                          [.decodeStill, .decodeAnimated, .encodeStill, .encodeAnimated])
        case .gif: Facts("GIF", mediaType: "image/gif", extensions: ["gif"], [.decodeStill, .decodeAnimated, .encodeAnimated])
        case .heif: Facts("HEIF", mediaType: "image/heic", extensions: ["heic", "heif"], [.decodeStill])
        case .avif: Facts("AVIF", mediaType: "image/avif", extensions: ["avif"], [.decodeStill])
        case .webm: Facts("WebM", mediaType: "video/webm", extensions: ["webm"], [.decodeAnimated, .encodeAnimated])
        }
    }

    /// Image formats the worker neither reads nor writes, by extension: a path ending in one is refused rather than
    /// given bytes of another format under its name.
    public static let foreignExtensions: [String: String] = [
        "tif": "TIFF", "tiff": "TIFF", "bmp": "BMP", "jxl": "JPEG XL", "ico": "ICO", "svg": "SVG",
    ]

    /// The name people know the format by, for messages.
    public var displayName: String { facts.displayName }
    /// The media type of files in this format.
    public var mediaType: String { facts.mediaType }
    /// The extension the worker names files in this format with, without the dot.
    public var fileExtension: String { facts.extensions[0] }

    public func can(_ abilities: Abilities) -> Bool { facts.abilities.isSuperset(of: abilities) }

    /// The formats ``ImageCodec`` encodes as still images: what an output may be.
    public static let written = allCases.filter { $0.can(.encodeStill) }
    /// The formats an animation is written in: what an animated output may be.
    public static let animated = allCases.filter { $0.can(.encodeAnimated) }
    /// The formats ``ImageCodec`` decodes (and names when it sniffs bytes).
    public static let read = allCases.filter { $0.can(.decodeStill) }

    /// Whether ``ImageCodec`` encodes this format as a still image.
    public var isWritten: Bool { can(.encodeStill) }

    /// The formats whose extensions include `ext` (case-insensitive, without the dot).
    public static func named(byExtension ext: String) -> [ImageFormat] {
        let ext = ext.lowercased()
        return allCases.filter { $0.facts.extensions.contains(ext) }
    }

    /// The format an extension names for a file holding a still (`writing: .encodeStill`) or an animation
    /// (`.encodeAnimated`): among the formats named by `ext`, the one that can be written so, else the first.
    /// Nil when `ext` names no format the worker knows.
    public static func named(byExtension ext: String, writing: Abilities) -> ImageFormat? {
        let named = named(byExtension: ext)
        return named.first { $0.can(writing) } ?? named.first
    }
}
