import Compute
import Foundation
import Imaging

/// The frames of an animated sticker between decoding and encoding: each frame scaled, masked by
/// ``KeyFrameMasks`` (the network's cut on every `keyInterval`-th frame; between two key frames both key masks moved
/// with the subject, ``MaskMotion``, and blended by the frame's place between them), outlined and laid out on the
/// file's canvas, then handed back in batches for an ``AnimationSink``. Frames wait here only between two key frames.
/// A key frame's cut that disagrees with the subject followed to it is set aside for a while (``addKey(_:duration:mask:)``).
///
/// `@unchecked Sendable` is sound here: the request's handler owns the stage and touches it either itself or
/// through one compute job at a time that it awaits before going on, so no two threads use it at once and every
/// use is ordered after the previous one by those awaits.
final class AnimatedStickerStage: @unchecked Sendable {
    let width: Int, height: Int
    let keyInterval: Int
    let outline: OutlineSpec?
    let target: MessengerTarget?
    /// Whether each frame's mask goes with it (for the masks' file).
    let keepsMasks: Bool
    /// Whether the frames are already stickers whose alpha is their mask (it is not applied again).
    let framesAreStickers: Bool
    /// Frames since the last key frame, waiting for the next key frame's mask.
    private var pending: [(image: Image, duration: Double)] = []
    private var lastKey: (mask: Mask, luma: MaskMotion.Luma)?
    /// What ``follow(to:)`` found for the next key frame, until it is added.
    private var followed: (luma: MaskMotion.Luma, shifts: [MaskMotion.Shift])?
    private var previousMask: Mask?
    /// Key frames in a row whose cut was set aside for the mask followed to them.
    private var heldKeys = 0
    /// The first output frame as written (on the file's canvas): what a pack's sheet shows of the sticker.
    private(set) var firstFrame: Image?
    private(set) var framesOut = 0
    private(set) var keyFrames = 0
    private(set) var duration = 0.0
    private var flickerSum = 0.0

    init(width: Int, height: Int, keyInterval: Int, outline: OutlineSpec?, target: MessengerTarget?, keepsMasks: Bool,
         framesAreStickers: Bool = false) {
        (self.width, self.height, self.keyInterval, self.outline, self.target) = (width, height, keyInterval, outline, target)
        self.keepsMasks = keepsMasks
        self.framesAreStickers = framesAreStickers
    }

    /// A key frame's cut whose IoU with the last key frame's mask, followed to it, is under this is set aside
    /// (bench/README.md, "Animated stickers", sixth and seventh passes).
    static let leastKeyOverlap = 0.6
    /// At most this many key frames in a row are set aside: a new subject (or a scene cut) takes over after them.
    static let keysHeldAtMost = 2

    /// Mean flicker between consecutive output masks (``KeyFrameMasks/changedShare(_:_:)``).
    var flicker: Double { framesOut > 1 ? flickerSum / Double(framesOut - 1) : 0 }

    /// The frame index the next added frame will have.
    var nextIndex: Int { framesOut + pending.count }

    /// Whether the frame about to be added is a key frame.
    var nextIsKey: Bool { nextIndex % keyInterval == 0 }

    /// The canvas of the sticker file.
    var outputCanvas: (width: Int, height: Int) {
        target.map { $0.animatedCanvas(width: width, height: height) } ?? (width, height)
    }

    /// Adds a frame that is not a key frame: it waits for the next key frame.
    func addBetween(_ image: Image, duration: Double) {
        pending.append((image, duration))
    }

    /// The subject's motion from the last key frame to `image`, the next key frame (followed through every frame
    /// waiting between them), and the last key frame's mask moved by it; nil before the first key frame. What it
    /// followed is kept for ``addKey(_:duration:mask:)`` of the same frame.
    func follow(to image: Image) throws -> (shift: MaskMotion.Shift, carried: Mask)? {
        guard let lastKey else { return nil }
        let track = try followed ?? track(to: image, from: lastKey)
        followed = track
        let toKey = track.shifts.last!
        return (toKey, MaskMotion.translated(lastKey.mask, by: toKey))
    }

    /// The luma of `image` and the subject's shift at each frame from the last key frame's (zero) through the frames
    /// waiting to `image`'s.
    private func track(to image: Image, from lastKey: (mask: Mask, luma: MaskMotion.Luma))
        throws -> (luma: MaskMotion.Luma, shifts: [MaskMotion.Shift]) {
        var lumas = [lastKey.luma]
        var shifts = [MaskMotion.Shift.zero]
        for frame in pending {
            try Cancellation.check()
            lumas.append(MaskMotion.Luma(frame.image))
        }
        let luma = MaskMotion.Luma(image)
        lumas.append(luma)
        for i in 1..<lumas.count {
            let carried = MaskMotion.translated(lastKey.mask, by: shifts[i - 1])
            shifts.append(shifts[i - 1] + MaskMotion.shift(from: lumas[i - 1], mask: carried, to: lumas[i]))
        }
        return (luma, shifts)
    }

    /// Adds a key frame with its mask (`cut`): the frames waiting since the last key frame are finished with the two
    /// key masks carried to them and blended, then this one; returns them in order. A cut that disagrees with the
    /// last key frame's mask followed to this frame (``leastKeyOverlap``) is set aside for that mask, for at most
    /// ``keysHeldAtMost`` key frames in a row (not for frames that are stickers already: their alpha is their mask).
    func addKey(_ image: Image, duration: Double, mask cut: Mask) throws -> [AnimatedFrame] {
        var finished: [AnimatedFrame] = []
        finished.reserveCapacity(pending.count + 1)
        let luma: MaskMotion.Luma
        var mask = cut
        if let lastKey {
            // The subject followed from the last key frame through every frame to this one.
            let (keyLuma, shifts) = try followed ?? track(to: image, from: lastKey)
            luma = keyLuma
            let toKey = shifts.last!
            // A cut that disagrees with the subject followed to it took something else for the subject (an unsure
            // map changing its mind): the followed mask stands in, for a while; a change that lasts takes over.
            if !framesAreStickers {
                let carried = MaskMotion.translated(lastKey.mask, by: toKey)
                if heldKeys < Self.keysHeldAtMost && carried.intersectionOverUnion(cut) < Self.leastKeyOverlap {
                    mask = carried
                    heldKeys += 1
                } else {
                    heldKeys = 0
                }
            }
            let span = Double(pending.count + 1)
            for (k, frame) in pending.enumerated() {
                try Cancellation.check()
                let (here, back) = (shifts[k + 1], shifts[k + 1] - toKey)
                // A subject leaving the frame (or entering it) is whole in one key frame's mask and cut by the
                // frame's edge in the other's: each mask's part from beyond its own frame is left to the other.
                let blended = KeyFrameMasks.blend(MaskMotion.translated(lastKey.mask, by: here),
                                                  MaskMotion.translated(mask, by: back),
                                                  weight: Double(k + 1) / span,
                                                  aSeen: here.seenPart(width: width, height: height),
                                                  bSeen: back.seenPart(width: width, height: height))
                finished.append(try finish(frame.image, duration: frame.duration, mask: blended))
            }
        } else {
            luma = MaskMotion.Luma(image)
        }
        pending = []
        followed = nil
        finished.append(try finish(image, duration: duration, mask: mask))
        lastKey = (mask, luma)
        keyFrames += 1
        return finished
    }

    /// The last frame waiting, if the clip ended between key frames: it becomes a key frame.
    func takeLastPending() -> (image: Image, duration: Double)? {
        followed = nil
        return pending.popLast()
    }

    private func finish(_ image: Image, duration: Double, mask: Mask) throws -> AnimatedFrame {
        var frame = image
        if !framesAreStickers { KeyFrameMasks.apply(mask, to: &frame) }
        if let outline, outline.width > 0 { try StickerOutline.apply(to: &frame, width: outline.width, color: outline.color) }
        if let target { frame = try target.layoutFrame(frame) }
        if let previousMask { flickerSum += KeyFrameMasks.changedShare(previousMask, mask) }
        previousMask = mask
        if framesOut == 0 { firstFrame = frame }
        framesOut += 1
        self.duration += duration
        return AnimatedFrame(image: frame, mask: keepsMasks ? mask : nil, duration: duration)
    }
}
