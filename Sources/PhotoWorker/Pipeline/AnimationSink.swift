import Compute
import Imaging
import Synchronization

/// Where an animated sticker's settled frames go, away from the cut, so that this work for one batch runs beside the
/// decoding and cutting of the next rather than after the last: each frame's subject cut out with its mask
/// (``AnimatedFrame/cutOut(on:)``, its edge's colours estimated), then placed and encoded.
///
/// With the canvas the whole frame, each frame is placed (``FramePlacement``) and encoded as it comes: the file's
/// encoder, or for a messenger the spool kept for fitting and its first attempt (the first quality at the frames'
/// own timing). Cropped to the subject, the canvas is only known after the last frame: the cut frames are kept
/// compressed (``FrameSpool``) and placed and encoded in ``finish(path:attempted:)``. The masks' encoder, when asked
/// for, takes every mask as it comes.
///
/// Frames must be added in order: the caller awaits each ``add(_:)`` before the next. The encoders are held
/// behind the mutex, so whichever compute thread adds a batch has them to itself.
final class AnimationSink: Sendable {
    private struct State: ~Copyable {
        var canvas: ClipCanvas
        /// The file's encoder (with a target, the first fitting attempt's); made once the canvas is known.
        var encoder: (any AnimationEncoder)?
        /// With a target: the placed frames, for fitting (cropped to the subject, the cut frames replayed placed).
        var fitting: FrameSpool?
        /// Cropped to the subject: the cut frames, until the canvas is known.
        var cut: FrameSpool?
        var maskEncoder: (any AnimationEncoder)?
        var firstFrame: Image?
    }

    private let state: Mutex<State>
    let placement: FramePlacement
    let output: AnimationSettings
    /// Called on the encoding thread after each frame encoded into the file (or a fitting attempt), for progress.
    let encodedFrame: @Sendable () -> Void

    /// - Parameters:
    ///   - frameWidth, frameHeight: the cut frames' size.
    ///   - output: the file's format and quality without a target (its canvas is the placement's).
    ///   - maskSettings: the masks' encoding, nil when they are not written.
    init(placement: FramePlacement, frameWidth: Int, frameHeight: Int, output: AnimationSettings,
         maskSettings: AnimationSettings?, encodedFrame: @escaping @Sendable () -> Void = {}) throws {
        self.placement = placement
        self.output = output
        self.encodedFrame = encodedFrame
        let canvas = ClipCanvas(frameWidth: frameWidth, frameHeight: frameHeight)
        var state = State(canvas: canvas, maskEncoder: try maskSettings?.makeEncoder())
        if placement.cropsToSubject {
            state.cut = FrameSpool(width: frameWidth, height: frameHeight)
        } else {
            try Self.open(&state, placement: placement, output: output, rect: placement.rect(canvas))
        }
        self.state = Mutex(state)
    }

    /// The encoder (and the fitting's spool) for frames placed in `rect`.
    private static func open(_ state: inout State, placement: FramePlacement, output: AnimationSettings,
                             rect: PixelRect) throws {
        let (width, height) = placement.fileCanvas(rect)
        if let target = placement.target {
            let fitting = target.animationFitting(width: width, height: height)
            var first = fitting.settings
            first.quality = fitting.qualities[0]
            state.encoder = try first.makeEncoder()
            // Cropped to the subject, the fitting replays the cut frames, placed again (`finish`).
            state.fitting = state.cut == nil ? FrameSpool(width: width, height: height) : nil
        } else {
            var settings = output
            (settings.width, settings.height) = (width, height)
            state.encoder = try settings.makeEncoder()
        }
    }

    /// Takes `frames` (in order, after those added before). Runs on a compute thread, its parts over `loop`.
    /// - Throws: `ImagingError` from the encoders, `CancellationError`.
    func add(_ frames: [AnimatedFrame], on loop: some ParallelLoop) throws {
        try state.withLock { state in
            for frame in frames {
                try loop.checkCancellation()
                if let maskEncoder = state.maskEncoder {
                    try maskEncoder.add(frame.mask.greyImage, duration: frame.duration, on: loop)
                }
                let image = try frame.cutOut(on: loop)
                if state.cut != nil {
                    state.canvas.include(image)
                    try state.cut!.append(image, duration: frame.duration, on: loop)
                } else {
                    try Self.encode(&state, placement.place(image, in: placement.rect(state.canvas), on: loop),
                                    duration: frame.duration, on: loop)
                    encodedFrame()
                }
            }
        }
    }

    private static func encode(_ state: inout State, _ placed: Image, duration: Double, on loop: some ParallelLoop) throws {
        if state.firstFrame == nil { state.firstFrame = placed }
        try state.fitting?.append(placed, duration: duration, on: loop)
        try state.encoder!.add(placed, duration: duration, on: loop)
    }

    /// The sticker file, its canvas, its first frame as written (what a pack's sheet shows) and its fitting (nil
    /// without a target), and the masks' file if asked for.
    /// - Parameters:
    ///   - loop: where the placing and encoding's parts spread, and whose cancellation stops them.
    ///   - attempted: called with each fitting attempt as it ends.
    /// - Throws: `ImagingError`, ``WorkerError`` from fitting (`size-limit`), `CancellationError`.
    func finish(path: String, on loop: some ParallelLoop, attempted: (AnimationFitting.Attempt) -> Void = { _ in }) throws
        -> (bytes: [UInt8], canvas: (width: Int, height: Int), firstFrame: Image?, fit: AnimationFitting.Result?,
            mask: [UInt8]?)
    {
        try state.withLock { state in
            let mask = try state.maskEncoder?.finish()
            let rect = placement.rect(state.canvas)
            if let cut = state.cut {
                try Self.open(&state, placement: placement, output: output, rect: rect)
                state.cut = nil
                try cut.replay(fps: nil, length: cut.duration, on: loop) { frame, duration in
                    try Self.encode(&state, placement.place(frame, in: rect, on: loop), duration: duration, on: loop)
                    encodedFrame()
                }
                if placement.target != nil {
                    let (width, height) = placement.fileCanvas(rect)
                    let placement = self.placement
                    state.fitting = cut.replayed(as: width, height) { try placement.place($0, in: rect, on: $1) }
                }
            }
            let bytes = try state.encoder!.finish()
            let canvas = placement.fileCanvas(rect)
            guard let target = placement.target, let spool = state.fitting else {
                return (bytes, canvas, state.firstFrame, nil, mask)
            }
            let first = AnimationFitting.Encoded(bytes: bytes, frames: state.encoder!.frameCount,
                                                 quality: target.animationFitting(width: canvas.width, height: canvas.height).qualities[0])
            let fit = try target.fitAnimation(spool, fps: nil, path: path, encoded: first, on: loop, progress: attempted,
                                              encodedFrame: encodedFrame)
            return (fit.bytes, canvas, state.firstFrame, fit, mask)
        }
    }
}
