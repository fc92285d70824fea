import Compute

/// An animation's frames kept compressed (PNG at zlib level 1, a fifth to a tenth of the raw bytes for a sticker)
/// so that it can be encoded again at other settings (``AnimationFitting``) without the raw clip in memory or a
/// second decode of the source.
public struct FrameSpool: Sendable {
    /// One stored frame: its PNG, start time and duration in seconds.
    struct Frame: Sendable {
        var png: [UInt8]
        var time: Double
        var duration: Double
    }

    public let width: Int
    public let height: Int
    private(set) var frames: [Frame] = []
    /// What each stored frame becomes when replayed (``replayed(as:_:by:)``), nil: the frame as stored; handed the
    /// replay's loop.
    private var transform: (@Sendable (Image, any ParallelLoop) throws -> Image)?

    public init(width: Int, height: Int) {
        (self.width, self.height) = (width, height)
    }

    /// These frames as `transform` makes them, `width` x `height`, when replayed: a crop and a layout applied as the
    /// frames are encoded again, rather than a second spool of the frames so made. Nothing can be appended to it.
    /// `transform` is handed the loop of the replay that runs it.
    /// - Precondition: this spool is not such a view itself.
    public func replayed(as width: Int, _ height: Int,
                         by transform: @escaping @Sendable (Image, any ParallelLoop) throws -> Image) -> FrameSpool {
        precondition(self.transform == nil, "a replayed view of a spool is not replayed again")
        var spool = FrameSpool(width: width, height: height)
        spool.frames = frames
        spool.transform = transform
        return spool
    }

    public var count: Int { frames.count }
    /// The end of the last frame (seconds), 0 when empty.
    public var duration: Double { frames.last.map { $0.time + $0.duration } ?? 0 }
    /// The compressed bytes held.
    public var storedBytes: Int { frames.reduce(0) { $0 + $1.png.count } }
    /// Frames per second over the whole spool.
    public var frameRate: Double { duration > 0 ? Double(count) / duration : 0 }

    /// Appends a frame that follows the last one, its PNG's bands compressed over `loop`.
    /// - Throws: `ImagingError.encodingFailed` for a frame of another size or a bad duration; `CancellationError`
    ///   when `loop` is cancelled.
    public mutating func append(_ image: Image, duration: Double, on loop: some ParallelLoop) throws {
        precondition(transform == nil, "frames are appended to a spool as stored, not to a replayed view of one")
        try checkFrame(image, width: width, height: height, duration: duration, format: .apng)
        let png = try image.pixels.withUnsafeBufferPointer { p in
            try PNGEncoder.write(p, width: width, height: height, inChannels: 4, outChannels: 4, level: 1, on: loop)
        }
        frames.append(Frame(png: png, time: self.duration, duration: duration))
    }

    /// The frames shown at `fps` (nil: as stored) for the first `length` seconds, the last one cut at `length`;
    /// calls `body` with each frame and its duration. A stored frame shown several times in a row is decoded once.
    /// The decoding and the transform run on `loop`, which says when to stop.
    /// - Throws: whatever `body` throws, `ImagingError` when a stored frame does not decode, `CancellationError`.
    public func replay(fps: Double?, length: Double, on loop: some ParallelLoop,
                       _ body: (Image, Double) throws -> Void) throws {
        let end = min(length, duration)
        var decodedIndex = -1
        var decoded: Image?
        func image(_ index: Int) throws -> Image {
            if index != decodedIndex {
                let stored = try ImageCodec.decode(frames[index].png, options: DecodeOptions(convertToSRGB: false),
                                                   on: loop).image
                decoded = try transform.map { try $0(stored, loop) } ?? stored
                decodedIndex = index
            }
            return decoded!
        }
        guard let fps, fps > 0 else {
            for (index, frame) in frames.enumerated() where frame.time < end - 1e-9 {
                try loop.checkCancellation()
                try body(try image(index), min(frame.duration, end - frame.time))
            }
            return
        }
        let step = 1 / fps
        var index = 0, k = 0
        while Double(k) * step < end - 1e-9 {
            try loop.checkCancellation()
            let t = Double(k) * step
            while index + 1 < frames.count && frames[index + 1].time <= t + 1e-9 { index += 1 }
            try body(try image(index), min(step, end - t))
            k += 1
        }
    }

    /// The frames `replay(fps:length:)` would give.
    public func replayCount(fps: Double?, length: Double) -> Int {
        let end = min(length, duration)
        guard let fps, fps > 0 else { return frames.filter { $0.time < end - 1e-9 }.count }
        return Int((end * fps - 1e-9).rounded(.up))
    }
}

extension FrameSpool {
    /// The shortest stored frame starting before `length` seconds (0 when none).
    public func minFrameDuration(within length: Double) -> Double {
        frames.filter { $0.time < length - 1e-9 }.map(\.duration).min() ?? 0
    }
}
