import Imaging
import JSONRPC

/// `animated` on `photos.process` and `pack.export`: each motion source among the sources (a video, or a GIF or WebP
/// of more than one frame) is cut as `image.animatedSticker` cuts it with these settings; the method names the file,
/// and gives the outline and the source's subject.
struct AnimatedSpec: Decodable, Sendable {
    /// The file's format when no target decides it (default animated WebP).
    var format: ImageFormat { target?.animatedFormat ?? Self.formatParam.value(given) }
    private var given: ImageFormat?
    /// The messenger to fit (`photos.process`; `pack.export` sets its own `target` here).
    var target: MessengerTarget?
    var size: Int?
    var duration: Double?
    var keyFrameInterval: Double?
    /// What each sticker shows: the subject's box over the clip (default) or the whole frame.
    var canvas: ImageAnimatedStickerMethod.AnimatedCanvas?

    /// `format`: the animated formats, and animated WebP when neither it nor a target says, stated once.
    static let formatParam = EnumParam<ImageFormat>("format", allowed: ImageFormat.animated, default: .webp)

    /// `format` on the wire is the format given (`given`); ``format`` is the one written.
    private enum CodingKeys: String, CodingKey { case given = "format", target, size, duration, keyFrameInterval, canvas }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        // One format enum holds stills too: only the animated ones are accepted here.
        given = try AnimatedOutputSpec.animationFormat(in: c, forKey: .given)
        target = try c.decodeIfPresent(MessengerTarget.self, forKey: .target)
        size = try c.decodeIfPresent(Int.self, forKey: .size)
        duration = try c.decodeIfPresent(Double.self, forKey: .duration)
        keyFrameInterval = try c.decodeIfPresent(Double.self, forKey: .keyFrameInterval)
        canvas = try c.decodeIfPresent(ImageAnimatedStickerMethod.AnimatedCanvas.self, forKey: .canvas)
    }

    /// The request `image.animatedSticker` would get for `source`, its file at `path`.
    /// `motion`: a Live Photo's clip beside its still `source`.
    func params(source: ImageSource, motion: ImageSource? = nil, path: String, overwrite: Bool, outline: OutlineSpec?,
                cut: StickerCutSpec) -> ImageAnimatedStickerMethod.Params {
        // The format as given, so a target's other format is refused (`validate`).
        var output = AnimatedOutputSpec(path: path, format: given ?? format)
        output.overwrite = overwrite
        return ImageAnimatedStickerMethod.Params(
            source: source, motion: motion, output: output, duration: duration, size: size, outline: outline, target: target,
            keyFrameInterval: keyFrameInterval, subject: cut.subject, decontaminate: cut.decontaminate, canvas: canvas)
    }

    /// - Throws: -32602 at `animated.size`, `animated.format`, ... for what `image.animatedSticker` would refuse.
    func validate() throws {
        let probe = params(source: .path(""), path: "", overwrite: false, outline: nil, cut: StickerCutSpec())
        _ = try ImageAnimatedStickerMethod.validate(probe, path: Self.paramPath)
    }

    /// Where an `image.animatedSticker` parameter sits in a batch's request: under `animated`.
    static let paramPath: @Sendable (String) -> String = { $0 == "output.format" ? "animated.format" : "animated.\($0)" }
}

extension AnimatedSpec {
    /// The bounds `image.animatedSticker` states for the same params.
    private typealias Rules = ImageAnimatedStickerMethod.Rules

    /// `Animated`, the schema of `animated` on `photos.process` and `pack.export`.
    static let contractSchemas: [ContractSchema] = [
        ContractSchema("Animated", #"""
            {
              "type": "object",
              "description": "How each motion source (a video, or a GIF or WebP of more than one frame) is cut: as image.animatedSticker cuts it with these settings.",
              "properties": {
                "format": \#(Self.formatParam.schema(description: "The file's format when no target decides it.")),
                "target": {"type": "string", "enum": [\#(ContractSchema.list(MessengerTarget.allCases.map(\.rawValue)))], "description": "photos.process only: the messenger to fit (pack.export's own target applies there)."},
                "size": \#(Rules.size.schema(description: "Long side of the frames the subject is cut in.")),
                "duration": \#(Rules.duration.schema(description: "Seconds from the clip's start (a target's longest by default).")),
                "keyFrameInterval": \#(Rules.keyFrameInterval.schema(description: "Seconds between the frames the network cuts.")),
                "canvas": \#(ImageAnimatedStickerMethod.canvas.schema(description: "What each sticker shows: the subject's box over the whole clip, or the whole frame."))
              },
              "additionalProperties": false
            }
            """#),
    ]
}
