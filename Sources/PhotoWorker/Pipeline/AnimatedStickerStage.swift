import Compute
import Foundation
import Imaging

/// The frames of an animated sticker between decoding and the file: each frame scaled, masked by
/// ``KeyFrameMasks`` (the network's cut on every `keyInterval`-th frame, masks blended between), outlined, and
/// handed to the encoder (or, for a messenger, to a ``FrameSpool`` fitted at the end); the masks go to a second
/// encoder when asked for. Frames wait here only between two key frames.
///
/// `@unchecked Sendable` is sound here: the request's handler owns the stage and touches it either itself or
/// through one compute job at a time that it awaits before going on, so no two threads use it at once and every
/// use is ordered after the previous one by those awaits.
final class AnimatedStickerStage: @unchecked Sendable {
    let width: Int, height: Int
    let keyInterval: Int
    let outline: OutlineSpec?
    let target: MessengerTarget?
    private var encoder: (any AnimationEncoder)?
    private var spool: FrameSpool?
    private var maskEncoder: (any AnimationEncoder)?
    /// Frames since the last key frame, waiting for the next key frame's mask.
    private var pending: [(image: Image, duration: Double)] = []
    private var lastKey: Mask?
    private var previousMask: Mask?
    private(set) var framesOut = 0
    private(set) var keyFrames = 0
    private(set) var duration = 0.0
    private var flickerSum = 0.0

    init(width: Int, height: Int, keyInterval: Int, outline: OutlineSpec?, target: MessengerTarget?,
         output: AnimationSettings, maskFormat: AnimationFormat?) throws {
        (self.width, self.height, self.keyInterval, self.outline, self.target) = (width, height, keyInterval, outline, target)
        if let target {
            let canvas = target.animatedCanvas(width: width, height: height)
            spool = FrameSpool(width: canvas.width, height: canvas.height)
        } else {
            encoder = try output.makeEncoder()
        }
        if let maskFormat {
            // Masks keep exact values: lossless APNG, or WebP at its best quality.
            maskEncoder = try AnimationSettings(format: maskFormat, width: width, height: height, quality: 100).makeEncoder()
        }
    }

    /// Mean flicker between consecutive output masks (``KeyFrameMasks/changedShare(_:_:)``).
    var flicker: Double { framesOut > 1 ? flickerSum / Double(framesOut - 1) : 0 }

    /// The frame index the next added frame will have.
    var nextIndex: Int { framesOut + pending.count }

    /// Whether the frame about to be added is a key frame.
    var nextIsKey: Bool { nextIndex % keyInterval == 0 }

    /// Adds a frame that is not a key frame: it waits for the next key frame.
    func addBetween(_ image: Image, duration: Double) {
        pending.append((image, duration))
    }

    /// Adds a key frame with its mask: the frames waiting since the last key frame are written with blended masks,
    /// then this one.
    func addKey(_ image: Image, duration: Double, mask: Mask) throws {
        if let lastKey {
            let span = Double(pending.count + 1)
            for (k, frame) in pending.enumerated() {
                try Cancellation.check()
                try write(frame.image, duration: frame.duration,
                          mask: KeyFrameMasks.interpolate(lastKey, mask, weight: Double(k + 1) / span))
            }
        }
        pending = []
        try write(image, duration: duration, mask: mask)
        lastKey = mask
        keyFrames += 1
    }

    /// The last frame waiting, if the clip ended between key frames: it becomes a key frame.
    func takeLastPending() -> (image: Image, duration: Double)? {
        pending.popLast()
    }

    private func write(_ image: Image, duration: Double, mask: Mask) throws {
        var frame = image
        KeyFrameMasks.apply(mask, to: &frame)
        if let outline, outline.width > 0 { try StickerOutline.apply(to: &frame, width: outline.width, color: outline.color) }
        if let target {
            try spool!.append(try target.layoutFrame(frame), duration: duration)
        } else {
            try encoder!.add(frame, duration: duration)
        }
        if let maskEncoder {
            var grey = [UInt8](repeating: 255, count: mask.values.count * 4)
            for (i, v) in mask.values.enumerated() { grey[i * 4] = v; grey[i * 4 + 1] = v; grey[i * 4 + 2] = v }
            try maskEncoder.add(Image(width: width, height: height, pixels: grey), duration: duration)
        }
        if let previousMask { flickerSum += KeyFrameMasks.changedShare(previousMask, mask) }
        previousMask = mask
        framesOut += 1
        self.duration += duration
    }

    /// The sticker file and its fitting (nil without a target), and the masks' file if asked for.
    /// - Parameter attempted: called with each fitting attempt's summary as it ends.
    func finish(path: String, attempted: (String) -> Void = { _ in }) throws
        -> (bytes: [UInt8], fit: AnimationFitting.Result?, mask: [UInt8]?)
    {
        let mask = try maskEncoder?.finish()
        if let target, let spool {
            let fit = try target.fitAnimation(spool, fps: nil, path: path) { attempted($0.summary) }
            return (fit.bytes, fit, mask)
        }
        return (try encoder!.finish(), nil, mask)
    }

    /// The canvas of the sticker file.
    var outputCanvas: (width: Int, height: Int) {
        spool.map { ($0.width, $0.height) } ?? (width, height)
    }
}
