import Compute
import Imaging

/// Fitting an animation to a messenger's rules for animated stickers (its row of ``MessengerTarget/limits``).
extension MessengerTarget {
    /// The format the messenger takes for animated stickers.
    public var animatedFormat: ImageFormat { limits.animated.format }

    /// The largest animated sticker file.
    public var animatedMaxBytes: Int { limits.animated.maxBytes }

    /// The longest animation, seconds.
    public var animatedMaxDuration: Double { limits.motion.maxDuration }

    /// The highest frame rate.
    public var animatedMaxFrameRate: Double { limits.motion.maxFrameRate }

    /// The shortest frame, seconds; 0 when the messenger sets none (a frame rate of at most
    /// ``animatedMaxFrameRate`` keeps every frame over WhatsApp's 8 ms).
    public var animatedMinFrameDuration: Double { limits.motion.minFrameDuration ?? 0 }

    /// The canvas of an animated sticker made from frames of `width` x `height`: on a long side, both sides even
    /// (VP9's 4:2:0 planes); a square is the square.
    public func animatedCanvas(width: Int, height: Int) -> (width: Int, height: Int) {
        switch limits.canvas {
        case .longSide(let long):
            let scale = Double(long) / Double(max(width, height))
            func side(_ v: Int) -> Int { max(2, min(long, Int((Double(v) * scale / 2).rounded()) * 2)) }
            return (side(width), side(height))
        case .square(let side, _):
            return (side, side)
        }
    }

    /// One frame placed as ``layout(_:)`` places a still (the margin, the centring), on the animated canvas.
    public func layoutFrame(_ frame: Image, on loop: some ParallelLoop) throws -> Image {
        switch limits.canvas {
        case .longSide:
            let canvas = animatedCanvas(width: frame.width, height: frame.height)
            return try Resampler.resize(frame, width: canvas.width, height: canvas.height, on: loop)
        case .square:
            return try layout(frame, on: loop)
        }
    }

    /// The fitting of an animation on `width` x `height` to the messenger's limits (``AnimationFitting``): its
    /// first attempt is the first quality at the frames' own rate and length.
    public func animationFitting(width: Int, height: Int) -> AnimationFitting {
        AnimationFitting(settings: AnimationSettings(format: animatedFormat, width: width, height: height),
                         maxBytes: animatedMaxBytes)
    }

    /// Encodes `spool` within the messenger's limits: its length cut to the longest allowed, its frame rate to the
    /// highest, then quality, frame rate and length stepped down until the file fits (``AnimationFitting``).
    /// - Parameter encoded: the first attempt, encoded as the frames were made (used when the spool's own timing
    ///   and length are within the limits, otherwise ignored).
    /// - Throws: ``WorkerError/outputFailed(path:reason:rule:)`` with rule `size-limit` naming the limit when
    ///   nothing fits; `CancellationError`.
    public func fitAnimation(_ spool: FrameSpool, fps: Double?, path: String, encoded: AnimationFitting.Encoded? = nil,
                             on loop: some ParallelLoop, progress: (AnimationFitting.Attempt) -> Void = { _ in },
                             encodedFrame: () -> Void = {}) throws -> AnimationFitting.Result {
        let length = min(spool.duration, animatedMaxDuration)
        let rate = min(fps ?? spool.frameRate, animatedMaxFrameRate, animatedMinFrameDuration > 0 ? 1 / animatedMinFrameDuration : .infinity)
        // Replayed as stored (its own timing kept) when no frame is shorter than the frame rate and the messenger allow.
        let shortest = max(1 / animatedMaxFrameRate, animatedMinFrameDuration)
        let asStored = fps == nil && spool.minFrameDuration(within: length) >= shortest - 1e-6
        let replayRate: Double? = asStored ? nil : rate
        let fitting = animationFitting(width: spool.width, height: spool.height)
        do {
            return try fitting.fit(spool, fps: replayRate, length: length, encoded: encoded, on: loop, progress: progress,
                                   encodedFrame: encodedFrame)
        } catch let tooLarge as AnimationFitting.TooLarge {
            throw WorkerError.outputFailed(path: path, reason:
                "the \(rawValue) animated sticker does not fit the limit of \(tooLarge.limit) bytes (\(animatedMaxBytes / 1024) KB): "
                + "the smallest encoding was \(tooLarge.smallest) bytes after \(tooLarge.attempts.count) attempts "
                + "down to quality \(fitting.qualities.last!), \(fitting.frameRates.last!) fps and \(fitting.lengths.last!) s",
                rule: "size-limit")
        } catch let error as ImagingError {
            throw WorkerError.encodingFailed(detail: error.message)
        }
    }
}
