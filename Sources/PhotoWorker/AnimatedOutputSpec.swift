import JSONRPC
import JSONRPCTransport
import Foundation
import Imaging

/// Where an animation goes: a file (`{"path", "format", "quality", "overwrite"}`) or the reply
/// (`{"inline": true, "format"}`, base64 in the result). The format is `format`, else the path's extension
/// (`.webm`, `.webp`, `.gif`, `.png`/`.apng`), else the target's.
public struct AnimatedOutputSpec: Sendable, Decodable {
    public var path: String?
    public var inline: Bool
    public var format: ImageFormat?
    /// 0...100 (``AnimationSettings/quality``); without a target, ``standardQuality``. A target steps its own qualities.
    public var quality: Int?
    /// The quality of an animated sticker written without a target, whichever door it comes through (every one
    /// makes it with `image.animatedSticker`'s cut, which alone reads this).
    public static let standardQuality = 75
    /// `quality`'s range, stated once for the decoder and the schema; no default in the schema, as a target steps
    /// its own (``standardQuality`` is the one without).
    static let qualityRule = NumberParam<Int>("quality", 0...100)
    public var overwrite: Bool

    private enum Key: String, CodingKey { case path, inline, format, quality, overwrite }

    public init(path: String? = nil, inline: Bool = false, format: ImageFormat? = nil) {
        (self.path, self.inline, self.format, quality, overwrite) = (path, inline, format, nil,
                                                                     OutputSpec.overwriteParam.defaultValue)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        path = try c.decodeIfPresent(String.self, forKey: .path)
        inline = try c.decodeIfPresent(Bool.self, forKey: .inline) ?? false
        guard (path != nil) != inline else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: decoder.codingPath, debugDescription: "an output needs either \"path\" or \"inline\": true"))
        }
        format = try Self.animationFormat(in: c, forKey: .format)
        if format == nil, let path { format = Self.format(namedBy: path) }
        quality = try c.decodeIfPresent(Int.self, forKey: .quality)
        if let quality, !Self.qualityRule.contains(quality) {
            throw DecodingError.dataCorruptedError(forKey: .quality, in: c, debugDescription: "quality \(Self.qualityRule.message)")
        }
        overwrite = OutputSpec.overwriteParam.value(try c.decodeIfPresent(Bool.self, forKey: .overwrite))
    }
}

extension AnimatedOutputSpec {
    /// `key`'s value, if given: one of ``ImageFormat/animated``, refused in the words the decoder uses for any enum.
    static func animationFormat<K: CodingKey>(in c: KeyedDecodingContainer<K>, forKey key: K) throws -> ImageFormat? {
        guard let name = try c.decodeIfPresent(String.self, forKey: key) else { return nil }
        guard let format = ImageFormat(rawValue: name), format.can(.encodeAnimated) else {
            let names = ImageFormat.animated.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription:
                "must be one of \(names); got \"\(name.prefix(64))\"")
        }
        return format
    }

    /// The animation format a path's extension names (``ImageFormat/named(byExtension:writing:)``: `.png` is APNG
    /// here); nil for a name without one, or one that names no format written as an animation.
    static func format(namedBy path: String) -> ImageFormat? {
        ImageFormat.named(byExtension: (path as NSString).pathExtension, writing: .encodeAnimated)
            .flatMap { $0.can(.encodeAnimated) ? $0 : nil }
    }

    /// The extensions an animated sticker may have, for messages: ".png (APNG), .webp, .gif or .webm".
    static var animatedExtensions: String {
        let names = ImageFormat.animated.map { f in
            ImageFormat.named(byExtension: f.fileExtension, writing: .encodeStill) == f ? ".\(f.fileExtension)"
                : ".\(f.fileExtension) (\(f.displayName))"
        }
        return names.dropLast().joined(separator: ", ") + " or " + names.last!
    }

    /// The animation format a path's extension names; nil for a name without one or with one that names no image
    /// format. An extension of a still format (`.jpg`, `.heic`) is refused at `param`: an animation written under it
    /// would be bytes of another format under its name.
    static func format(namedBy path: String, at param: String) throws -> ImageFormat? {
        let ext = (path as NSString).pathExtension.lowercased()
        if let format = format(namedBy: path) { return format }
        if let still = ImageFormat.named(byExtension: ext, writing: .encodeAnimated)?.displayName
            ?? ImageFormat.foreignExtensions[ext]
        {
            throw RPCError.invalidParams(path: param,
                ".\(ext) names \(still), a still image; an animated sticker is \(animatedExtensions)")
        }
        return nil
    }
}

/// An animation written: where (or inline base64), its format, canvas and bytes.
public struct AnimatedOutputResult: Sendable, Codable, Equatable {
    public var path: String?
    public var data: String?
    public var format: ImageFormat
    public var width: Int
    public var height: Int
    public var bytes: Int
}

extension AnimatedOutputSpec {
    /// The shared schemas `AnimatedOutput`, `AnimationFormat` of the OpenRPC document's components.
    static let contractSchemas: [ContractSchema] = [
        ContractSchema("AnimatedOutput", #"""
            {
              "description": "Where an animation goes: a file path or inline base64. The format is `format`, else the path's extension (.webm, .webp, .gif, .png/.apng), else the target's.",
              "type": "object",
              "properties": {
                "path": {"type": "string", "minLength": 1},
                "inline": {"type": "boolean"},
                "format": {"$ref": "#/components/schemas/AnimationFormat"},
                "quality": \#(AnimatedOutputSpec.qualityRule.schema(description: "Without a target (which steps its own), default \(AnimatedOutputSpec.standardQuality): WebP's lossy quality; WebM crf 63 (0) to 10 (100); APNG lossless from 62, palette frames below; GIF's palette size.")),
                "overwrite": \#(OutputSpec.overwriteParam.schema())
              },
              "required": [],
              "additionalProperties": false
            }
            """#),
        ContractSchema("AnimationFormat", #"""
            {
              "type": "string",
              "enum": [\#(ContractSchema.list(ImageFormat.animated.map(\.rawValue)))],
              "description": "webm: VP9 with alpha (Telegram video stickers); webp: animated WebP; apng: animated PNG; gif."
            }
            """#),
    ]
}

extension AnimatedOutputResult {
    /// The shared schema `AnimatedOutputResult` of the OpenRPC document's components.
    static let contractSchemas: [ContractSchema] = [
        ContractSchema("AnimatedOutputResult", #"""
            {
              "type": "object",
              "properties": {
                "path": {"type": "string"},
                "data": {"type": "string", "description": "Base64, for inline outputs."},
                "format": {"$ref": "#/components/schemas/AnimationFormat"},
                "width": {"type": "integer", "minimum": 1},
                "height": {"type": "integer", "minimum": 1},
                "bytes": {"type": "integer", "minimum": 0}
              },
              "required": ["format", "width", "height", "bytes"],
              "additionalProperties": false
            }
            """#),
    ]
}
