import Imaging
import JSONRPC
import JSONRPCTransport

/// `image.info {"source", "motion"?}`: format, size and layout from the header (no full decode). A clip (MP4/MOV,
/// WebM/Matroska) is a source too, and an animated GIF or WebP and a Live Photo's `motion` clip add a `motion`
/// object (frame count, duration, frame rate, codec, container).
struct ImageInfoMethod: RPCMethod {
    static let name = "image.info"
    static let cost = MethodCost.waiting
    static let summary = "Format, size, channels, bit depth, alpha, orientation, frames and colour profile from the header (no full decode); frame count, duration, frame rate and codec of clips (MP4/MOV, WebM) and animations (GIF, WebP)."

    struct Params: Decodable, Sendable {
        var source: ImageSource
        /// A Live Photo's clip beside its still `source`.
        var motion: ImageSource?
    }

    struct Result: Encodable, Sendable {
        /// An image format, or for a clip its container (`mp4`, `mov`, `webm`, `matroska`).
        var format: String
        /// As displayed (after EXIF orientation, or a clip's rotation).
        var width: Int
        var height: Int
        var channels: Int
        var bitDepth: Int
        var hasAlpha: Bool
        var orientation: Int
        var progressive: Bool
        var interlaced: Bool
        var iccProfileBytes: Int
        /// Animation frames (WebP, GIF), top-level images (HEIF) or a clip's frames.
        var frames: Int
        /// The colour space the file declares (an ICC profile's description, or CICP code points); absent
        /// means none, read as sRGB. Pixels are converted to sRGB at decode.
        var colorProfile: String?
        /// Size of the encoded file.
        var bytes: Int
        /// A clip's or an animation's facts, or those of the `motion` param's clip.
        var motion: MotionSummary?
    }

    let services: WorkerServices

    func handle(_ params: Params, context: RequestContext) async throws -> Result {
        let access = await services.access()
        var result: Result
        switch try await services.loader.describe(params.source, access: access) {
        case .still(let info, let bytes):
            result = Result(
                format: info.format.rawValue, width: info.width, height: info.height, channels: info.channels,
                bitDepth: info.bitDepth, hasAlpha: info.hasAlpha, orientation: info.orientation,
                progressive: info.isProgressive, interlaced: info.isInterlaced,
                iccProfileBytes: info.iccProfileBytes, frames: info.frameCount,
                colorProfile: info.color?.description, bytes: bytes)
            if (info.format == .gif || info.format == .webp) && info.frameCount > 1 && params.motion == nil {
                result.motion = MotionSummary(try await services.loader.motionInfo(params.source, access: access).0)
            }
        case .clip(let info, let bytes):
            result = Result(
                format: info.container, width: info.width, height: info.height, channels: info.hasAlpha ? 4 : 3,
                bitDepth: 8, hasAlpha: info.hasAlpha, orientation: 1, progressive: false, interlaced: false,
                iccProfileBytes: 0, frames: max(info.frameCount ?? 1, 1), colorProfile: nil, bytes: bytes,
                motion: MotionSummary(info))
        }
        if let motion = params.motion {
            result.motion = MotionSummary(try await services.loader.motionInfo(motion, access: access).0)
        }
        return result
    }
}

extension ImageInfoMethod {
    static let contract: MethodContract = #"""
        {
          "params": [
            {"name": "source", "schema": {"$ref": "#/components/schemas/Source"}, "required": true},
            {
              "name": "motion",
              "schema": {"$ref": "#/components/schemas/Source"},
              "required": false,
              "description": "A Live Photo's clip beside its still `source` (the still is described as usual, the clip under `motion`)."
            }
          ],
          "result": {
            "name": "ImageInfo",
            "schema": {
              "type": "object",
              "properties": {
                "format": {
                  "anyOf": [
                    {"$ref": "#/components/schemas/ImageFormat"},
                    {"type": "string", "enum": ["mp4", "mov", "webm", "matroska"]}
                  ],
                  "description": "The image format, or for a clip (a video source) its container."
                },
                "width": {
                  "type": "integer",
                  "minimum": 0,
                  "description": "As displayed: after EXIF orientation, or a clip's rotation."
                },
                "height": {"type": "integer", "minimum": 0},
                "channels": {"type": "integer", "minimum": 1, "maximum": 4},
                "bitDepth": {"type": "integer", "enum": [1, 2, 4, 8, 10, 12, 16]},
                "hasAlpha": {"type": "boolean"},
                "orientation": {
                  "type": "integer",
                  "minimum": 1,
                  "maximum": 8,
                  "description": "EXIF orientation (1 = upright). HEIF/AVIF transforms are part of the image and always 1 here."
                },
                "progressive": {"type": "boolean"},
                "interlaced": {"type": "boolean"},
                "iccProfileBytes": {"type": "integer", "minimum": 0},
                "bytes": {"type": "integer", "minimum": 0, "description": "Size of the encoded source."},
                "frames": {
                  "type": "integer",
                  "minimum": 1,
                  "description": "Animation frames (WebP, GIF), top-level images (HEIF; only the primary image is processed as a still), or a clip's frames (counted from the packets when its container does not declare them)."
                },
                "colorProfile": {
                  "type": "string",
                  "description": "The colour space the file declares: an ICC profile's description (\"Adobe RGB (1998)\", \"Display P3\") or CICP code points. Absent: none, read as sRGB. Every job works on the pixels converted to sRGB."
                },
                "motion": {"$ref": "#/components/schemas/MotionInfo"}
              },
              "required": [
                "format",
                "width",
                "height",
                "channels",
                "bitDepth",
                "hasAlpha",
                "orientation",
                "progressive",
                "interlaced",
                "iccProfileBytes",
                "frames",
                "bytes"
              ],
              "additionalProperties": false
            }
          },
          "errors": [\#(WorkerError.sourceMethodErrors)]
        }
        """#
}

extension ImageInfoMethod {
    /// The shared schema `ImageFormat` of the OpenRPC document's components.
    static let contractSchemas: [ContractSchema] = [
        ContractSchema("ImageFormat", #"""
            {
              "type": "string",
              "enum": [\#(ContractSchema.list(ImageFormat.allCases.map(\.rawValue)))],
              "description": "Recognised from the content, never the name: heif covers HEIC (HEVC) and other HEIF brands, avif is HEIF with AV1."
            }
            """#),
    ]
}

extension ImageInfoMethod: MCPToolMethod {
    static let tool = MCPTool(title: "Image info", effects: .readsSources)
}
