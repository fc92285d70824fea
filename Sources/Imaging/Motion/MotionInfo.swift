/// What a motion source's container says, read without decoding more than its first frame.
public struct MotionInfo: Sendable, Equatable {
    /// As displayed: after the stream's rotation.
    public var width: Int
    public var height: Int
    /// Frames the container declares (GIF and WebP always; MP4/MOV from the sample table); nil when it does not say.
    public var frameCount: Int?
    /// Seconds; nil when the container does not say.
    public var duration: Double?
    /// Frames per second; nil when unknown or variable (a GIF whose delays differ).
    public var frameRate: Double?
    /// `gif`, `webp`, `h264`, `hevc`, `vp8`, `vp9`.
    public var codec: String
    /// `gif`, `webp`, `mp4`, `mov`, `webm`, `matroska`.
    public var container: String
    /// Frames carry alpha (GIF transparency or uncovered screen, WebP alpha, VP8/VP9 alpha through libvpx).
    public var hasAlpha: Bool
    /// 0 loops forever, n plays n more times; nil when the file does not say (GIF without NETSCAPE2.0, videos).
    public var loopCount: Int?
    /// Clockwise degrees (0, 90, 180, 270) turned to show the stored frames upright (a video's display matrix).
    public var rotation: Int

    public init(width: Int, height: Int, frameCount: Int?, duration: Double?, frameRate: Double?, codec: String,
                container: String, hasAlpha: Bool, loopCount: Int?, rotation: Int = 0) {
        self.width = width
        self.height = height
        self.frameCount = frameCount
        self.duration = duration
        self.frameRate = frameRate
        self.codec = codec
        self.container = container
        self.hasAlpha = hasAlpha
        self.loopCount = loopCount
        self.rotation = rotation
    }
}
