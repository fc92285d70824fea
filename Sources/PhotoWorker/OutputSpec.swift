import JSONRPC
import Foundation
import Imaging

/// Where a method's image goes: a file (`{"path", "format", "quality"}`) or the reply
/// (`{"inline": true, "format"}`, base64 in the result).
///
/// The format is `format`, else the path's extension (`.png`, `.jpg`/`.jpeg`, `.webp`), else PNG. A path whose
/// extension names another format than `format`, or a format the worker does not write (`.gif`), is refused, as
/// is an option the format has no use for (`quality` on PNG): outputs are never silently other than asked. WebP is
/// lossless unless `quality` is given or `lossless` is false: stickers and masks keep exact edges and alpha by default.
public struct OutputSpec: Sendable, Decodable {
    public var path: String?
    public var inline: Bool
    /// One of ``ImageFormat/written`` (the decoder refuses the others).
    public var format: ImageFormat
    public var quality: Int
    public var progressive: Bool
    public var compressionLevel: Int
    /// Replace an existing file that is not an image the worker reads (see ``OutputWriter``); default false.
    public var overwrite: Bool
    /// WebP only: lossless (the default unless `quality` was given) or lossy at `quality`.
    public var lossless: Bool

    private enum Key: String, CodingKey { case path, inline, format, quality, progressive, compressionLevel, overwrite, lossless }

    public init(path: String? = nil, inline: Bool = false, format: ImageFormat = Self.formatParam.defaultValue,
                quality: Int = Self.qualityRule.standard, overwrite: Bool = Self.overwriteParam.defaultValue) {
        self.path = path
        self.inline = inline
        self.format = format
        self.quality = quality
        progressive = Self.progressiveParam.defaultValue
        compressionLevel = Self.compressionLevelRule.standard
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
        let named = try path.flatMap { try Self.format(namedBy: $0, in: c) }
        if let f = try Self.writtenFormat(in: c) {
            if let named, named != f, let path {
                throw DecodingError.dataCorruptedError(forKey: .format, in: c, debugDescription:
                    "\"\(f.rawValue)\" does not match the path's extension .\((path as NSString).pathExtension) (\(named.rawValue)); make them agree, or leave format out")
            }
            format = f
        } else {
            format = named ?? Self.formatParam.defaultValue
        }
        // An option the chosen format has no use for is refused, not ignored: a client that asks for quality 10
        // on a PNG believes it got something it did not.
        try Self.refuse(.quality, in: c, unless: [.jpeg, .webp], format: format)
        try Self.refuse(.progressive, in: c, unless: [.jpeg], format: format)
        try Self.refuse(.compressionLevel, in: c, unless: [.png], format: format)
        try Self.refuse(.lossless, in: c, unless: [.webp], format: format)
        let givenQuality = try c.decodeIfPresent(Int.self, forKey: .quality)
        quality = givenQuality ?? Self.qualityRule.standard
        lossless = try c.decodeIfPresent(Bool.self, forKey: .lossless) ?? (givenQuality == nil)
        guard Self.qualityRule.contains(quality) else {
            throw DecodingError.dataCorruptedError(forKey: .quality, in: c, debugDescription: "quality \(Self.qualityRule.message)")
        }
        progressive = Self.progressiveParam.value(try c.decodeIfPresent(Bool.self, forKey: .progressive))
        compressionLevel = try c.decodeIfPresent(Int.self, forKey: .compressionLevel) ?? Self.compressionLevelRule.standard
        guard Self.compressionLevelRule.contains(compressionLevel) else {
            throw DecodingError.dataCorruptedError(forKey: .compressionLevel, in: c,
                                                   debugDescription: "compressionLevel \(Self.compressionLevelRule.message)")
        }
        overwrite = Self.overwriteParam.value(try c.decodeIfPresent(Bool.self, forKey: .overwrite))
    }
}

// `@usableFromInline`: the public `init(path:inline:format:quality:overwrite:)` takes its defaults from them.
extension OutputSpec {
    /// JPEG's and lossy WebP's quality, and PNG's zlib level: stated once for the decoder and the schema.
    @usableFromInline static let qualityRule = NumberParam<Int>("quality", 1...100, default: 90)
    static let compressionLevelRule = NumberParam<Int>("compressionLevel", 0...9, default: 6)
    /// JPEG only: progressive scans.
    static let progressiveParam = FlagParam("progressive", default: false)
    /// The format of an output whose path's extension names none: the schema `OutputFormat`'s default.
    @usableFromInline static let formatParam = EnumParam<ImageFormat>("format", allowed: ImageFormat.written, default: .png)
    /// Replace an existing file that is not an image the worker reads: the one default of every output that takes
    /// `overwrite` (a still's, an animation's, a folder's); each schema says what it replaces in its own words.
    @usableFromInline static let overwriteParam = FlagParam("overwrite", default: false)
}

extension OutputSpec {
    /// `format`, if given: a format the worker writes. One enum names every format (``ImageFormat``); an output
    /// may be only those ``ImageFormat/written`` lists, and is told so in the enum errors' words.
    private static func writtenFormat(in c: KeyedDecodingContainer<Key>) throws -> ImageFormat? {
        guard let name = try c.decodeIfPresent(String.self, forKey: .format) else { return nil }
        guard let format = ImageFormat(rawValue: name), format.isWritten else {
            let names = ImageFormat.written.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            let read = ImageFormat(rawValue: name).map {
                $0.can(.encodeAnimated) ? " (the worker writes \($0.displayName) only as an animation: image.animatedSticker)"
                    : $0.can(.decodeStill) ? " (the worker reads \($0.displayName) but does not write it)" : ""
            } ?? ""
            throw DecodingError.dataCorruptedError(forKey: .format, in: c, debugDescription:
                "must be one of \(names); got \"\(name)\"\(read)")
        }
        return format
    }

    /// Throws at `key` when it is given but `format` is not one of the formats it applies to.
    private static func refuse(_ key: Key, in c: KeyedDecodingContainer<Key>, unless formats: Set<ImageFormat>, format: ImageFormat) throws {
        guard c.contains(key), !formats.contains(format) else { return }
        let names = formats.map(\.rawValue).sorted().joined(separator: " and ")
        throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription:
            "applies only to \(names) output; this output is \(format.rawValue)")
    }

    /// The format a path's extension names (``ImageFormat/named(byExtension:writing:)``); nil for a name without
    /// one or with an extension that names no image format (`out.img`, `sticker`); an extension of a format the
    /// worker does not write as a still is refused at `path`: the file would get bytes of another format.
    private static func format(namedBy path: String, in c: KeyedDecodingContainer<Key>) throws -> ImageFormat? {
        let ext = (path as NSString).pathExtension.lowercased()
        let named = ImageFormat.named(byExtension: ext, writing: .encodeStill)
        if let named, named.isWritten { return named }
        if let name = named?.displayName ?? ImageFormat.foreignExtensions[ext] {
            let why = named?.can(.encodeAnimated) == true
                ? "which the worker writes only as an animation (image.animatedSticker)" : "which the worker does not write"
            throw DecodingError.dataCorruptedError(forKey: .path, in: c, debugDescription:
                ".\(ext) names \(name), \(why); use .png, .jpg or .webp (or set format to png, jpeg or webp and name the file to match)")
        }
        return nil
    }
}

/// What was written: the `output` part of a result.
public struct OutputResult: Sendable, Codable, Equatable {
    public var path: String?
    /// Base64 of the encoded image, for inline outputs.
    public var data: String?
    public var format: ImageFormat
    public var width: Int
    public var height: Int
    public var bytes: Int
}

extension OutputSpec {
    /// The shared schemas `Output`, `OutputFormat` of the OpenRPC document's components.
    static let contractSchemas: [ContractSchema] = [
        ContractSchema("Output", #"""
            {
              "description": "Where an encoded image goes: a file (format from the extension unless given: .jpg/.jpeg JPEG, .webp WebP, else PNG) or the reply (inline base64). Every output is sRGB without metadata.",
              "oneOf": [
                {
                  "type": "object",
                  "properties": {
                    "path": {"type": "string", "minLength": 1},
                    "format": {"$ref": "#/components/schemas/OutputFormat"},
                    "quality": \#(OutputSpec.qualityRule.schema(description: "JPEG quality; for WebP, giving it makes the output lossy at this quality.")),
                    "progressive": \#(OutputSpec.progressiveParam.schema()),
                    "compressionLevel": \#(OutputSpec.compressionLevelRule.schema()),
                    "overwrite": \#(OutputSpec.overwriteParam.schema(description: "Replace an existing file at the path even if it is not a image the worker reads (PNG, JPEG, WebP, GIF, HEIF, AVIF). Without it, such a file is refused with -32005 (an empty file, or one that already holds such an image, is replaced); in MCP sessions every existing file needs it.")),
                    "lossless": {
                      "type": "boolean",
                      "description": "WebP only: lossless (exact pixels and alpha) or lossy at `quality`. Default: lossless unless `quality` is given."
                    }
                  },
                  "required": ["path"],
                  "additionalProperties": false
                },
                {
                  "type": "object",
                  "properties": {
                    "inline": {"const": true},
                    "format": {"$ref": "#/components/schemas/OutputFormat"},
                    "quality": \#(OutputSpec.qualityRule.schema(description: "JPEG quality; for WebP, giving it makes the output lossy at this quality.")),
                    "progressive": \#(OutputSpec.progressiveParam.schema()),
                    "compressionLevel": \#(OutputSpec.compressionLevelRule.schema()),
                    "lossless": {
                      "type": "boolean",
                      "description": "WebP only: lossless (exact pixels and alpha) or lossy at `quality`. Default: lossless unless `quality` is given."
                    }
                  },
                  "required": ["inline"],
                  "additionalProperties": false
                }
              ]
            }
            """#),
        ContractSchema("OutputFormat", OutputSpec.formatParam.schema(description:
            "png, jpeg or webp. Without `format`, a path ending in .jpg/.jpeg is JPEG, .webp is WebP, anything else PNG.")),
    ]
}

extension OutputResult {
    /// The shared schema `OutputResult` of the OpenRPC document's components.
    static let contractSchemas: [ContractSchema] = [
        ContractSchema("OutputResult", #"""
            {
              "description": "What was written: `path` for a file output, `data` (base64) for an inline one.",
              "type": "object",
              "properties": {
                "path": {"type": "string"},
                "data": {"type": "string", "contentEncoding": "base64"},
                "format": {"$ref": "#/components/schemas/OutputFormat"},
                "width": {"type": "integer", "minimum": 0},
                "height": {"type": "integer", "minimum": 0},
                "bytes": {"type": "integer", "minimum": 0}
              },
              "required": ["format", "width", "height", "bytes"],
              "additionalProperties": false,
              "oneOf": [{"required": ["path"]}, {"required": ["data"]}]
            }
            """#),
    ]
}
