/// One frame of a motion source (GIF, animated WebP, video) as shown: a full canvas, upright.
///
/// `image` is RGBA8 with straight alpha in sRGB, with the stream's rotation applied and, for GIF and WebP, the
/// previous frames' disposal and blending already composited, so every frame stands on its own.
public struct MotionFrame: Sendable {
    public var image: Image
    /// Position in decode order from the first frame handed out (0-based; after a seek, from the first kept).
    public var index: Int
    /// Presentation start, seconds from the source's start.
    public var time: Double
    /// How long the frame is shown, seconds.
    public var duration: Double
    /// The data ended inside this frame: it holds only the rows that arrived, and it is the last.
    public var truncated: Bool

    public init(image: Image, index: Int, time: Double, duration: Double, truncated: Bool = false) {
        self.image = image
        self.index = index
        self.time = time
        self.duration = duration
        self.truncated = truncated
    }
}
