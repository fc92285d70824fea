import Imaging

/// The messengers' rules for animated stickers, and fitting an animation to them.
///
/// Telegram video stickers: WebM VP9 (with alpha), 512 px on the long side, at most 3 s, at most 30 fps, at most
/// 256 KB, no audio. WhatsApp animated stickers: WebP 512x512 inside the 16 px margin, at most 500 KB, at most 10 s,
/// every frame at least 8 ms. Signal animated stickers: APNG 512x512, at most 300 KB, at most 3 s.
extension MessengerTarget {
    /// The format the messenger takes for animated stickers.
    public var animatedFormat: ImageFormat {
        switch self {
        case .telegram: return .webm
        case .whatsapp: return .webp
        case .signal: return .apng
        }
    }

    /// The largest animated sticker file.
    public var animatedMaxBytes: Int {
        switch self {
        case .telegram: return 256 * 1024
        case .whatsapp: return 500 * 1024
        case .signal: return 300 * 1024
        }
    }

    /// The longest animation, seconds.
    public var animatedMaxDuration: Double {
        switch self {
        case .telegram, .signal: return 3
        case .whatsapp: return 10
        }
    }

    /// The highest frame rate: Telegram's 30; the others have none, and 30 is what the worker writes at most.
    public var animatedMaxFrameRate: Double { 30 }

    /// The shortest frame, seconds (WhatsApp's 8 ms; a frame rate of at most 30 keeps every frame over it).
    public var animatedMinFrameDuration: Double {
        switch self {
        case .whatsapp: return 0.008
        case .telegram, .signal: return 0.001
        }
    }

    /// The canvas of an animated sticker made from frames of `width` x `height`: Telegram's long side 512 and the
    /// other side even (VP9's 4:2:0 planes), the others 512x512.
    public func animatedCanvas(width: Int, height: Int) -> (width: Int, height: Int) {
        switch self {
        case .telegram:
            let scale = 512 / Double(max(width, height))
            func side(_ v: Int) -> Int { max(2, min(512, Int((Double(v) * scale / 2).rounded()) * 2)) }
            return (side(width), side(height))
        case .whatsapp, .signal:
            return (512, 512)
        }
    }

    /// One frame placed as ``layout(_:)`` places a still (the margin, the centring), on the animated canvas.
    public func layoutFrame(_ frame: Image) throws -> Image {
        switch self {
        case .telegram:
            let canvas = animatedCanvas(width: frame.width, height: frame.height)
            return try Resampler.resize(frame, width: canvas.width, height: canvas.height)
        case .whatsapp, .signal:
            return try layout(frame)
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
                             progress: (AnimationFitting.Attempt) -> Void = { _ in },
                             encodedFrame: () -> Void = {}) throws -> AnimationFitting.Result {
        let length = min(spool.duration, animatedMaxDuration)
        let rate = min(fps ?? spool.frameRate, animatedMaxFrameRate, 1 / animatedMinFrameDuration)
        // Replayed as stored (its own timing kept) when no frame is shorter than the frame rate and the messenger allow.
        let shortest = max(1 / animatedMaxFrameRate, animatedMinFrameDuration)
        let asStored = fps == nil && spool.minFrameDuration(within: length) >= shortest - 1e-6
        let replayRate: Double? = asStored ? nil : rate
        let fitting = animationFitting(width: spool.width, height: spool.height)
        do {
            return try fitting.fit(spool, fps: replayRate, length: length, encoded: encoded, progress: progress,
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
