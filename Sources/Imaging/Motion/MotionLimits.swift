/// What a motion decoder accepts, checked before anything the size of a frame is allocated.
///
/// A source whose container declares more frames or a longer duration than the limits is refused at open
/// (``MotionError/tooManyFrames(count:limit:)``, ``MotionError/tooLong(seconds:limit:)``); a source that
/// declares nothing (or lies) is refused at the first frame past a limit. Sources are refused rather than cut,
/// so a result never silently ends early. `maxPixels` bounds each frame as stored, and is also given to
/// FFmpeg's decoder as its own limit, so a bitstream bigger than its container says is refused by the decoder.
public struct MotionLimits: Sendable, Equatable {
    public var maxFrames: Int
    /// Seconds.
    public var maxDuration: Double
    public var maxPixels: Int

    /// 10,000 frames, 10 minutes, 100 Mpx: far beyond any sticker's source, small enough that a hostile GIF
    /// stops after a bounded walk.
    public init(maxFrames: Int = 10_000, maxDuration: Double = 600, maxPixels: Int = 100_000_000) {
        self.maxFrames = maxFrames
        self.maxDuration = maxDuration
        self.maxPixels = maxPixels
    }
}
