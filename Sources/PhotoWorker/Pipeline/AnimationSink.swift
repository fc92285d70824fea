import Compute
import Imaging
import Synchronization

/// One finished frame of an animated sticker: masked, outlined and on the file's canvas; its mask over the whole
/// frame (at the cut's size) when the masks are written too.
struct AnimatedFrame: Sendable {
    var image: Image
    var mask: Mask?
    var duration: Double
}

/// Where an animated sticker's finished frames are encoded, away from the cut, so that encoding one batch runs
/// beside the decoding and cutting of the next rather than after the last: the file's encoder, or for a messenger
/// the spool kept for fitting and its first attempt (the first quality at the frames' own timing), encoded as the
/// frames come; the masks' encoder when asked for.
///
/// Frames must be added in order: the caller awaits each ``add(_:)`` before the next. The encoders are held
/// behind the mutex, so whichever compute thread adds a batch has them to itself.
final class AnimationSink: Sendable {
    private struct State: ~Copyable {
        /// Without a target the file's encoder; with one, the first fitting attempt's.
        var encoder: any AnimationEncoder
        var spool: FrameSpool?
        var maskEncoder: (any AnimationEncoder)?
    }

    private let state: Mutex<State>
    let target: MessengerTarget?
    /// The first fitting attempt's quality (with a target).
    private let firstQuality: Int?

    /// - Parameters:
    ///   - canvas: the file's canvas (a target's, where frames are laid out).
    ///   - output: the file's settings without a target (its format, size and quality).
    ///   - maskSettings: the masks' encoding, nil when they are not written.
    init(target: MessengerTarget?, canvas: (width: Int, height: Int), output: AnimationSettings,
         maskSettings: AnimationSettings?) throws {
        self.target = target
        let maskEncoder = try maskSettings?.makeEncoder()
        if let target {
            let fitting = target.animationFitting(width: canvas.width, height: canvas.height)
            var first = fitting.settings
            first.quality = fitting.qualities[0]
            firstQuality = first.quality
            state = Mutex(State(encoder: try first.makeEncoder(), spool: FrameSpool(width: canvas.width, height: canvas.height),
                                maskEncoder: maskEncoder))
        } else {
            firstQuality = nil
            state = Mutex(State(encoder: try output.makeEncoder(), spool: nil, maskEncoder: maskEncoder))
        }
    }

    /// Encodes `frames` (in order, after those added before). Runs on a compute thread.
    /// - Throws: `ImagingError` from the encoders, `CancellationError`.
    func add(_ frames: [AnimatedFrame]) throws {
        try state.withLock { state in
            for frame in frames {
                try Cancellation.check()
                try state.spool?.append(frame.image, duration: frame.duration)
                try state.encoder.add(frame.image, duration: frame.duration)
                if let mask = frame.mask, let maskEncoder = state.maskEncoder {
                    try maskEncoder.add(mask.greyImage, duration: frame.duration)
                }
            }
        }
    }

    /// The sticker file and its fitting (nil without a target), and the masks' file if asked for.
    /// - Parameter attempted: called with each fitting attempt's summary as it ends.
    /// - Throws: `ImagingError`, ``WorkerError`` from fitting (`size-limit`), `CancellationError`.
    func finish(path: String, attempted: (String) -> Void = { _ in }) throws
        -> (bytes: [UInt8], fit: AnimationFitting.Result?, mask: [UInt8]?)
    {
        try state.withLock { state in
            let mask = try state.maskEncoder?.finish()
            let bytes = try state.encoder.finish()
            guard let target, let spool = state.spool, let firstQuality else { return (bytes, nil, mask) }
            let first = AnimationFitting.Encoded(bytes: bytes, frames: state.encoder.frameCount, quality: firstQuality)
            let fit = try target.fitAnimation(spool, fps: nil, path: path, encoded: first) { attempted($0.summary) }
            return (fit.bytes, fit, mask)
        }
    }
}
