import Compute

/// Fits an animation under a byte limit by encoding it again with less: lower quality first, then a lower frame
/// rate, then a shorter length, and says which encodings were tried.
///
/// The settings tried form a ladder of levels (frame rate and length) and, within each level, quality steps from
/// high to low. A level starts at the highest quality its predecessor's sizes (scaled by the frame count) say could
/// fit, so a clip that is twice too large does not pay for every quality again at every frame rate. With
/// ``probeFrames``, when the first encoding (the highest quality, the clip's own rate and length) is over the
/// limit, the clip's first frames are encoded at every quality, and the first encoding's size times their ratios
/// estimates the others: the first level goes on at the highest quality estimated to fit (or on to the next level
/// when none is), and a later level whose lowest quality is estimated over half again the limit is skipped (never
/// the last). The probes are not among the attempts reported.
public struct AnimationFitting: Sendable {
    /// One encoding tried.
    public struct Attempt: Sendable, Equatable {
        public var quality: Int
        /// Frames per second (the spool's own rate when the frames were replayed as stored).
        public var fps: Double
        public var length: Double
        public var frames: Int
        public var bytes: Int
        public var fits: Bool

        public init(quality: Int, fps: Double, length: Double, frames: Int, bytes: Int, fits: Bool) {
            (self.quality, self.fps, self.length, self.frames, self.bytes, self.fits) = (quality, fps, length, frames, bytes, fits)
        }

        /// "quality 60, 15 fps, 3 s: 201344 bytes" as `encodings` reports it.
        public var summary: String {
            "quality \(quality), \(Self.format(fps)) fps, \(Self.format(length)) s: \(bytes) bytes"
        }

        static func format(_ v: Double) -> String {
            let r = (v * 100).rounded() / 100
            return r == r.rounded() ? String(Int(r)) : String(r)
        }
    }

    /// The animation that fits, and every attempt in order (the last one is the file's).
    public struct Result: Sendable {
        public var bytes: [UInt8]
        public var attempts: [Attempt]
        public var chosen: Attempt { attempts.last! }
    }

    /// An encoding made before fitting began (frames encoded as they were made): used as the first attempt when it
    /// is that attempt, the spool's frames as stored over its whole length at the first quality.
    public struct Encoded: Sendable {
        public var bytes: [UInt8]
        public var frames: Int
        public var quality: Int

        public init(bytes: [UInt8], frames: Int, quality: Int) {
            (self.bytes, self.frames, self.quality) = (bytes, frames, quality)
        }
    }

    /// Why nothing fitted: the limit and the smallest file reached.
    public struct TooLarge: Error, Sendable, Equatable {
        public var limit: Int
        public var smallest: Int
        public var attempts: [Attempt]
    }

    public var settings: AnimationSettings
    public var maxBytes: Int
    /// Quality steps, highest first.
    public var qualities: [Int]
    /// Frame rates to step down to, highest first (those at or over the clip's own rate are skipped).
    public var frameRates: [Double]
    /// Lengths to cut to, longest first (those at or over the clip's length are skipped).
    public var lengths: [Double]
    /// Frames encoded at every quality to predict sizes (nil: no probing; clips under three times this are not
    /// probed, their own attempts being cheap).
    public var probeFrames: Int?

    public init(settings: AnimationSettings, maxBytes: Int, qualities: [Int]? = nil,
                frameRates: [Double] = [24, 20, 15, 12, 10, 8, 6], lengths: [Double] = [2.5, 2, 1.5, 1],
                probeFrames: Int? = 12) {
        self.probeFrames = probeFrames
        self.settings = settings
        self.maxBytes = maxBytes
        self.qualities = qualities ?? Self.defaultQualities(settings.format)
        self.frameRates = frameRates
        self.lengths = lengths
    }

    /// Per format, the qualities worth trying: APNG's are lossless, then palettes of 255, 128 and 64 colours.
    public static func defaultQualities(_ format: ImageFormat) -> [Int] {
        switch format {
        case .apng: return [100, 50, 35, 20]
        case .webp: return [85, 70, 55, 40, 25]
        case .gif: return [100, 60, 30]
        case .webm: return [75, 60, 45, 30, 15]
        // A still format: its encoder is refused (AnimationSettings.makeEncoder) before any quality is tried.
        default: return [75]
        }
    }

    /// Encodes `spool` (from `fps`, nil meaning as stored, and `length` seconds) at each step until a file is
    /// within ``maxBytes``.
    /// - Parameters:
    ///   - encoded: the first attempt made already, taken as it when it is that attempt (`fps` nil, `length` the
    ///     whole spool, ``qualities``' first, the spool's frame count) and otherwise ignored.
    ///   - progress: called after each attempt.
    ///   - encodedFrame: called after each frame encoded (every attempt's, and the probes').
    ///   - loop: where the encodings' parts spread, and whose cancellation stops the fitting.
    /// - Throws: ``TooLarge`` when no step fits, `ImagingError` from the encoders, `CancellationError`.
    public func fit(_ spool: FrameSpool, fps: Double?, length: Double, encoded: Encoded? = nil, on loop: some ParallelLoop,
                    progress: (Attempt) -> Void = { _ in }, encodedFrame: () -> Void = {}) throws -> Result {
        let whole = length >= spool.duration - 1e-9
        let encoded = encoded.flatMap { e in
            fps == nil && whole && e.quality == qualities.first && e.frames == spool.count ? e : nil
        }
        let length = min(length, spool.duration)
        let ownRate = fps ?? spool.frameRate
        var levels: [(fps: Double?, length: Double)] = [(fps, length)]
        for rate in frameRates where rate < ownRate - 0.01 { levels.append((rate, length)) }
        let lowest = levels.last!.fps
        for cut in lengths where cut < length - 0.01 { levels.append((lowest, cut)) }

        var attempts: [Attempt] = []
        var previous: [Int: Attempt] = [:]  // quality -> attempt at the level before
        let first = spool.replayCount(fps: fps, length: length)
        let probed = probeFrames.map { $0 > 0 && first >= $0 * 3 } ?? false
        for (index, level) in levels.enumerated() {
            let frames = spool.replayCount(fps: level.fps, length: level.length)
            guard frames > 0 else { continue }
            if probed, index < levels.count - 1, let lowest = qualities.last, let p = previous[lowest],
               Double(p.bytes) * Double(frames) / Double(max(1, p.frames)) > Double(maxBytes) * 1.5 {
                // Predicted far over even at the lowest quality: the next level, its estimates scaled again.
                continue
            }
            // The first quality whose size at the level before, scaled to these frames, is within the limit.
            var next = qualities.firstIndex { q in
                guard let p = previous[q] else { return true }
                return Double(p.bytes) * Double(frames) / Double(max(1, p.frames)) <= Double(maxBytes)
            } ?? qualities.count - 1
            var current: [Int: Attempt] = [:]
            while next < qualities.count {
                let quality = qualities[next]
                let (bytes, count): ([UInt8], Int)
                if let made = encoded, attempts.isEmpty {  // the first attempt only
                    (bytes, count) = (made.bytes, made.frames)
                } else {
                    (bytes, count) = try encode(spool, quality: quality, fps: level.fps, length: level.length,
                                                 on: loop, encodedFrame: encodedFrame)
                }
                let attempt = Attempt(quality: quality, fps: level.fps ?? spool.frameRate, length: level.length,
                                      frames: count, bytes: bytes.count, fits: bytes.count <= maxBytes)
                attempts.append(attempt)
                current[quality] = attempt
                progress(attempt)
                if attempt.fits { return Result(bytes: bytes, attempts: attempts) }
                next += 1
                if probed, attempts.count == 1, let probe = probeFrames {
                    // The first encoding is over: the first frames at every quality say how the others compare to
                    // it (ratios of equal lengths, so an inter-frame codec's key frame weighs the same in each).
                    let probeLength = level.length * Double(probe) / Double(count)
                    var sizes: [Int: Int] = [:]
                    for q in qualities {
                        sizes[q] = try encode(spool, quality: q, fps: level.fps, length: probeLength,
                                              on: loop, encodedFrame: encodedFrame).0.count
                    }
                    let top = Double(max(1, sizes[quality] ?? 1))
                    for q in qualities where q != quality {
                        current[q] = Attempt(quality: q, fps: attempt.fps, length: level.length, frames: count,
                                             bytes: Int(Double(bytes.count) * Double(sizes[q] ?? 0) / top), fits: false)
                    }
                    next = qualities.indices.first { i in
                        i >= next && Double(current[qualities[i]]!.bytes) <= Double(maxBytes)
                    } ?? qualities.count
                    if next == qualities.count {
                        // None would fit: the next level, or on the last the lowest quality if not yet tried.
                        if index < levels.count - 1 || quality == qualities.last { break }
                        next = qualities.count - 1
                    }
                }
            }
            // Qualities skipped at this level keep their estimate from the level before.
            for (q, a) in previous where current[q] == nil { current[q] = a }
            previous = current
        }
        throw TooLarge(limit: maxBytes, smallest: attempts.map(\.bytes).min() ?? 0, attempts: attempts)
    }

    /// One encoding of the spool's frames at `quality`: the file and its frame count.
    private func encode(_ spool: FrameSpool, quality: Int, fps: Double?, length: Double, on loop: some ParallelLoop,
                        encodedFrame: () -> Void) throws -> ([UInt8], Int)
    {
        try loop.checkCancellation()
        var settings = self.settings
        settings.quality = quality
        let encoder = try settings.makeEncoder()
        try spool.replay(fps: fps, length: length, on: loop) { image, duration in
            try encoder.add(image, duration: duration, on: loop)
            encodedFrame()
        }
        return (try encoder.finish(), encoder.frameCount)
    }
}
