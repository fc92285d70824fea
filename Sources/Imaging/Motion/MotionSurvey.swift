/// What a motion source is, read whatever the worker's limits, and which of them it is over: a description
/// (`image.info`) is not a job, so a source too long, too large or with too many frames for a job is still described,
/// with what it breaks.
///
/// Reading stays bounded: frames are counted to ``countedFrames`` at most, and a clip whose declared frame size is
/// over the pixel limit is described from its container alone, without decoding a frame.
public struct MotionSurvey: Sendable, Equatable {
    /// As displayed (rotation applied to the size).
    public var info: MotionInfo
    /// The limits the source is over, in the order pixels, frames, duration; empty when a job may read it whole.
    public var exceeded: [Excess]

    public init(info: MotionInfo, exceeded: [Excess]) {
        self.info = info
        self.exceeded = exceeded
    }

    /// The most frames a survey counts (a GIF's records walked, a clip's packets demuxed) before it stops: a
    /// count of one more says "more than this".
    public static let countedFrames = 1 << 20

    /// One limit a source is over: the source's value and the limit's.
    public struct Excess: Sendable, Equatable {
        public enum Limit: String, Sendable, CaseIterable {
            /// `--max-pixels`, per frame.
            case maxPixels
            /// `--max-frames`.
            case maxFrames
            /// `--max-duration`, seconds.
            case maxDurationSeconds
        }

        public var limit: Limit
        /// Pixels of a frame, frames, or seconds.
        public var value: Double
        public var maximum: Double

        public init(limit: Limit, value: Double, maximum: Double) {
            self.limit = limit
            self.value = value
            self.maximum = maximum
        }

        /// The command-line flag that sets the limit.
        public var flag: String {
            switch limit {
            case .maxPixels: return "--max-pixels"
            case .maxFrames: return "--max-frames"
            case .maxDurationSeconds: return "--max-duration"
            }
        }

        /// In a person's words, as the error a job would get says it.
        public var summary: String {
            switch limit {
            case .maxPixels:
                return "\(Int(value)) pixels; this worker allows \(Int(maximum)) (--max-pixels)"
            case .maxFrames:
                return MotionError.tooManyFrames(count: Int(value), limit: Int(maximum)).summary
            case .maxDurationSeconds:
                return MotionError.tooLong(seconds: value, limit: maximum).summary
            }
        }
    }

    /// The limits `stored` (a reader's facts) is over.
    static func excesses(of stored: MotionInfo, limits: MotionLimits) -> [Excess] {
        var found: [Excess] = []
        let pixels = pixelCount(stored.width, stored.height)
        if pixels > limits.maxPixels {
            found.append(Excess(limit: .maxPixels, value: Double(pixels), maximum: Double(limits.maxPixels)))
        }
        if let count = stored.frameCount, count > limits.maxFrames {
            found.append(Excess(limit: .maxFrames, value: Double(count), maximum: Double(limits.maxFrames)))
        }
        if let duration = stored.duration, duration > limits.maxDuration + 1e-3 {
            found.append(Excess(limit: .maxDurationSeconds, value: duration, maximum: limits.maxDuration))
        }
        return found
    }
}
