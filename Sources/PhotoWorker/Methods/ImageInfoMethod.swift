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
        /// The worker's limits the source (or the `motion` clip) is over: a job reading it whole would be refused.
        /// Absent when none.
        var exceeds: [LimitExcess]?
    }

    /// One limit a source is over, as `image.info` reports it.
    struct LimitExcess: Encodable, Sendable {
        /// `source`, or `motion` for the Live Photo's clip.
        var of: String
        /// As `initialize`'s limits name it: `maxPixels`, `maxFrames`, `maxDurationSeconds`.
        var limit: String
        /// The command-line flag that sets it.
        var flag: String
        /// The source's: pixels of a frame, frames, or seconds.
        var value: Double
        var maximum: Double
        /// In a person's words: "the clip is 6.0 s; this worker allows 4 s (--max-duration)".
        var message: String

        init(_ excess: MotionSurvey.Excess, of param: String) {
            of = param
            limit = excess.limit.rawValue
            flag = excess.flag
            value = (excess.value * 1000).rounded() / 1000
            maximum = excess.maximum
            message = excess.summary
        }
    }

    let services: WorkerServices

    /// Describes whatever it can read, the worker's limits or not (a description is not a job), and lists the limits
    /// the source is over in `exceeds`.
    func handle(_ params: Params, context: RequestContext) async throws -> Result {
        let compute = services.computeJob(for: context)
        let access = await services.access()
        var result: Result
        var exceeds: [LimitExcess] = []
        switch try await services.loader.describe(params.source, access: access, on: compute) {
        case .still(let info, let bytes):
            result = Result(
                format: info.format.rawValue, width: info.width, height: info.height, channels: info.channels,
                bitDepth: info.bitDepth, hasAlpha: info.hasAlpha, orientation: info.orientation,
                progressive: info.isProgressive, interlaced: info.isInterlaced,
                iccProfileBytes: info.iccProfileBytes, frames: info.frameCount,
                colorProfile: info.color?.description, bytes: bytes)
            let pixels = Double(info.width) * Double(info.height), limit = Double(services.options.maxPixels)
            if pixels > limit {
                exceeds.append(LimitExcess(.init(limit: .maxPixels, value: pixels, maximum: limit), of: "source"))
            }
            if (info.format == .gif || info.format == .webp) && info.frameCount > 1 && params.motion == nil {
                let survey = try await services.loader.motionSurvey(params.source, access: access, on: compute)
                result.motion = MotionSummary(survey.info)
                exceeds += survey.exceeded.filter { $0.limit != .maxPixels }.map { LimitExcess($0, of: "source") }
            }
        case .clip(let survey, let bytes):
            let info = survey.info
            result = Result(
                format: info.container, width: info.width, height: info.height, channels: info.hasAlpha ? 4 : 3,
                bitDepth: 8, hasAlpha: info.hasAlpha, orientation: 1, progressive: false, interlaced: false,
                iccProfileBytes: 0, frames: max(info.frameCount ?? 1, 1), colorProfile: nil, bytes: bytes,
                motion: MotionSummary(info))
            exceeds += survey.exceeded.map { LimitExcess($0, of: "source") }
        }
        if let motion = params.motion {
            let survey = try await services.loader.motionSurvey(motion, access: access, on: compute)
            result.motion = MotionSummary(survey.info)
            exceeds += survey.exceeded.map { LimitExcess($0, of: "motion") }
        }
        result.exceeds = exceeds.isEmpty ? nil : exceeds
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
                "motion": {"$ref": "#/components/schemas/MotionInfo"},
                "exceeds": {
                  "type": "array",
                  "description": "The worker's limits the source (or the motion clip) is over: it is described all the same, and a job reading it whole is refused (a clip's job may still use a part within --max-duration with start and duration). Absent when none.",
                  "items": {
                    "type": "object",
                    "properties": {
                      "of": {"enum": ["source", "motion"]},
                      "limit": {"enum": ["maxPixels", "maxFrames", "maxDurationSeconds"], "description": "As initialize's limits name it."},
                      "flag": {"enum": ["--max-pixels", "--max-frames", "--max-duration"]},
                      "value": {"type": "number", "description": "The source's: pixels of a frame, frames, or seconds."},
                      "maximum": {"type": "number"},
                      "message": {"type": "string", "description": "In a person's words."}
                    },
                    "required": ["of", "limit", "flag", "value", "maximum", "message"],
                    "additionalProperties": false
                  }
                }
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
              "enum": [\#(ContractSchema.list(ImageFormat.read.map(\.rawValue)))],
              "description": "Recognised from the content, never the name: heif covers HEIC (HEVC) and other HEIF brands, avif is HEIF with AV1."
            }
            """#),
    ]
}

extension ImageInfoMethod: MCPToolMethod {
    static let tool = MCPTool(title: "Image info", effects: .readsSources)
}
