import Foundation
import Imaging

/// Where a method's image goes: a file (`{"path", "format", "quality"}`) or the reply
/// (`{"inline": true, "format"}`, base64 in the result).
///
/// The format is `format`, else the path's extension (`.jpg`/`.jpeg`, `.webp`), else PNG. WebP is lossless
/// unless `quality` is given or `lossless` is false: stickers and masks keep exact edges and alpha by default.
public struct OutputSpec: Sendable, Decodable {
    public enum Format: String, Sendable, Codable {
        case png, jpeg, webp

        /// The media type of files in this format.
        public var mediaType: String {
            switch self {
            case .png: return "image/png"
            case .jpeg: return "image/jpeg"
            case .webp: return "image/webp"
            }
        }
    }

    public var path: String?
    public var inline: Bool
    public var format: Format
    public var quality: Int
    public var progressive: Bool
    public var compressionLevel: Int
    /// Replace an existing file that is not an image the worker reads (see ``OutputWriter``); default false.
    public var overwrite: Bool
    /// WebP only: lossless (the default unless `quality` was given) or lossy at `quality`.
    public var lossless: Bool

    private enum Key: String, CodingKey { case path, inline, format, quality, progressive, compressionLevel, overwrite, lossless }

    public init(path: String? = nil, inline: Bool = false, format: Format = .png, quality: Int = 90,
                overwrite: Bool = false) {
        self.path = path
        self.inline = inline
        self.format = format
        self.quality = quality
        progressive = false
        compressionLevel = 6
        self.overwrite = overwrite
        lossless = true
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        path = try c.decodeIfPresent(String.self, forKey: .path)
        inline = try c.decodeIfPresent(Bool.self, forKey: .inline) ?? false
        guard (path != nil) != inline else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: decoder.codingPath,
                debugDescription: "an output needs either \"path\" or \"inline\": true"))
        }
        if let f = try c.decodeIfPresent(Format.self, forKey: .format) {
            format = f
        } else if let path, ["jpg", "jpeg"].contains((path as NSString).pathExtension.lowercased()) {
            format = .jpeg
        } else if let path, (path as NSString).pathExtension.lowercased() == "webp" {
            format = .webp
        } else {
            format = .png
        }
        let givenQuality = try c.decodeIfPresent(Int.self, forKey: .quality)
        quality = givenQuality ?? 90
        lossless = try c.decodeIfPresent(Bool.self, forKey: .lossless) ?? (givenQuality == nil)
        guard (1...100).contains(quality) else {
            throw DecodingError.dataCorruptedError(forKey: .quality, in: c, debugDescription: "quality must be between 1 and 100")
        }
        progressive = try c.decodeIfPresent(Bool.self, forKey: .progressive) ?? false
        compressionLevel = try c.decodeIfPresent(Int.self, forKey: .compressionLevel) ?? 6
        guard (0...9).contains(compressionLevel) else {
            throw DecodingError.dataCorruptedError(forKey: .compressionLevel, in: c, debugDescription: "compressionLevel must be between 0 and 9")
        }
        overwrite = try c.decodeIfPresent(Bool.self, forKey: .overwrite) ?? false
    }
}

/// What was written: the `output` part of a result.
public struct OutputResult: Sendable, Codable, Equatable {
    public var path: String?
    /// Base64 of the encoded image, for inline outputs.
    public var data: String?
    public var format: OutputSpec.Format
    public var width: Int
    public var height: Int
    public var bytes: Int
}
