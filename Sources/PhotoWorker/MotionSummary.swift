import JSONRPC
import Imaging

/// A motion source's facts as `image.info` reports them (`"motion": {...}`): absent fields are what the container
/// does not say.
struct MotionSummary: Encodable, Sendable {
    var width: Int
    var height: Int
    var frameCount: Int?
    var duration: Double?
    var frameRate: Double?
    var codec: String
    var container: String
    var hasAlpha: Bool
    var loopCount: Int?
    var rotation: Int

    init(_ info: MotionInfo) {
        width = info.width
        height = info.height
        frameCount = info.frameCount
        // Milliseconds are the precision any container here keeps; more digits are float noise.
        duration = info.duration.map { ($0 * 1000).rounded() / 1000 }
        frameRate = info.frameRate.map { ($0 * 1000).rounded() / 1000 }
        codec = info.codec
        container = info.container
        hasAlpha = info.hasAlpha
        loopCount = info.loopCount
        rotation = info.rotation
    }
}

extension MotionSummary {
    /// The shared schema `MotionInfo` of the OpenRPC document's components.
    static let contractSchemas: [ContractSchema] = [
        ContractSchema("MotionInfo", #"""
            {
              "type": "object",
              "description": "A motion source's facts, for a clip, an animated GIF or WebP, or the `motion` param's clip. Fields the container does not declare are absent. image.info describes a source whatever the limits and lists those it is over in `exceeds`. A job's limits: `--max-frames`, `--max-duration` (on the part decoded: the window used must fit) and `--max-pixels` per frame refuse a source at open from what it declares, else at the first frame past them (-32002 in words naming the flag, or -32003 for a frame over the pixel limit).",
              "properties": {
                "width": {"type": "integer", "minimum": 1, "description": "As displayed (after rotation)."},
                "height": {"type": "integer", "minimum": 1},
                "frameCount": {"type": "integer", "minimum": 1},
                "duration": {
                  "type": "number",
                  "minimum": 0,
                  "description": "Seconds. GIF delays under 20 ms count as 100 ms, as browsers play them."
                },
                "frameRate": {
                  "type": "number",
                  "exclusiveMinimum": 0,
                  "description": "Frames per second; absent when unknown or variable (a GIF whose delays differ)."
                },
                "codec": {"type": "string", "enum": ["gif", "webp", "h264", "hevc", "vp8", "vp9"]},
                "container": {"type": "string", "enum": ["gif", "webp", "mp4", "mov", "webm", "matroska"]},
                "hasAlpha": {
                  "type": "boolean",
                  "description": "GIF transparency, WebP alpha, or VP8/VP9 alpha (WebM BlockAdditional, read through libvpx)."
                },
                "loopCount": {
                  "type": "integer",
                  "minimum": 0,
                  "description": "0 loops forever; n plays n more times; absent when the file does not say (a GIF without a NETSCAPE2.0 block plays once)."
                },
                "rotation": {
                  "type": "integer",
                  "enum": [0, 90, 180, 270],
                  "description": "Clockwise degrees the stored frames are turned to show them upright (a video's display matrix); applied to every frame and to width and height."
                }
              },
              "required": ["width", "height", "codec", "container", "hasAlpha", "rotation"],
              "additionalProperties": false
            }
            """#),
    ]
}
