import Compute
import Foundation
import Imaging

/// The frames of an animated sticker between decoding and encoding: each frame scaled, masked by
/// ``KeyFrameMasks`` (the network's cut on every `keyInterval`-th frame; between two key frames both key masks moved
/// with the subject, ``MaskMotion``, and blended by the frame's place between them), outlined and laid out on the
/// file's canvas, then handed back in batches for an ``AnimationSink``. A key frame's mask is settled by a vote with the
/// key frames on either side (the clip's last key frame, with none after it, as if the next agreed with the one
/// before: ``finishClip()``), and a cut that disagrees with the subject followed to it is set aside for a while
/// (``addKey(_:duration:mask:)``): so frames wait here from a key frame until the one after the next is cut.
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
    private var pending: [WaitingFrame] = []
    /// The last key frame whose mask is settled, and the frames after it are finished up to it.
    private var lastKey: (mask: Mask, luma: MaskMotion.Luma)?
    /// The key frame after `lastKey`, cut but not yet settled: its mask waits for the next key frame's cut
    /// (``addKey(_:duration:mask:)``), with the frames between `lastKey` and it and the subject's shifts through them.
    private var candidate: Candidate?
    private struct Candidate {
        var key: WaitingFrame
        var cut: Mask
        var luma: MaskMotion.Luma
        var frames: [WaitingFrame]
        /// The subject's shift at each frame from `lastKey`'s (zero) through `frames` to this key frame's.
        var shifts: [MaskMotion.Shift]
    }
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
    var nextIndex: Int { framesOut + (candidate.map { $0.frames.count + 1 } ?? 0) + pending.count }

    /// Whether the frame about to be added is a key frame.
    var nextIsKey: Bool { nextIndex % keyInterval == 0 }

    /// The canvas of the sticker file.
    var outputCanvas: (width: Int, height: Int) {
        target.map { $0.animatedCanvas(width: width, height: height) } ?? (width, height)
    }

    /// Adds a frame that is not a key frame: it waits for the next key frame.
    func addBetween(_ image: Image, duration: Double) {
        pending.append(WaitingFrame(image, duration: duration))
    }

    /// The subject's motion from the last key frame to `image`, the next key frame (followed through every frame
    /// waiting between them), and the last key frame's mask moved by it; nil before the first key frame. What it
    /// followed is kept for ``addKey(_:duration:mask:)`` of the same frame.
    func follow(to image: Image) throws -> (shift: MaskMotion.Shift, carried: Mask)? {
        guard let key = latestKey else { return nil }
        let track = try followed ?? track(to: image, from: key)
        followed = track
        let toKey = track.shifts.last!
        return (toKey, MaskMotion.translated(key.mask, by: toKey))
    }

    /// The latest key frame's mask and luma: the candidate's cut, or the settled key frame's mask.
    private var latestKey: (mask: Mask, luma: MaskMotion.Luma)? {
        candidate.map { ($0.cut, $0.luma) } ?? lastKey
    }

    /// The luma of `image` and the subject's shift at each frame from the last key frame's (zero) through the frames
    /// waiting to `image`'s.
    private func track(to image: Image, from lastKey: (mask: Mask, luma: MaskMotion.Luma))
        throws -> (luma: MaskMotion.Luma, shifts: [MaskMotion.Shift]) {
        var lumas = [lastKey.luma]
        var shifts = [MaskMotion.Shift.zero]
        for frame in pending {
            try Cancellation.check()
            lumas.append(frame.luma)
        }
        let luma = MaskMotion.Luma(image)
        lumas.append(luma)
        for i in 1..<lumas.count {
            let carried = MaskMotion.translated(lastKey.mask, by: shifts[i - 1])
            shifts.append(shifts[i - 1] + MaskMotion.shift(from: lumas[i - 1], mask: carried, to: lumas[i]))
        }
        return (luma, shifts)
    }

    /// Adds a key frame with its mask (`cut`) and returns the frames this settles, in order. A key frame's mask is
    /// settled when the next one's cut is known: where the key frames on both sides agree, followed to it, their value
    /// stands against its own cut (a median of the three), so a cut that changes its mind for one key frame is
    /// outvoted without holding back a change that lasts. The frames between two settled key frames get both masks
    /// carried to them and blended. A cut that disagrees with the latest key frame's mask followed to this frame
    /// (``leastKeyOverlap``) is set aside for that mask first, for at most ``keysHeldAtMost`` key frames in a row.
    /// Frames that are stickers already keep their own alpha: each is its own key frame, settled at once.
    func addKey(_ image: Image, duration: Double, mask cut: Mask) throws -> [AnimatedFrame] {
        guard let key = latestKey, !framesAreStickers else {
            // The first key frame (nothing before it to vote with), or a sticker's frames: each its own alpha.
            var finished = try pending.map { frame in
                let image = frame.image
                return try finish(image, duration: frame.duration, mask: KeyFrameMasks.alpha(of: image))
            }
            finished.append(try finish(image, duration: duration, mask: cut))
            lastKey = (cut, MaskMotion.Luma(image))
            pending = []
            followed = nil
            keyFrames += 1
            return finished
        }
        // The subject followed from the latest key frame through every frame to this one.
        let (luma, shifts) = try followed ?? track(to: image, from: key)
        let toKey = shifts.last!
        var mask = cut
        // A cut that disagrees with the subject followed to it took something else for the subject (an unsure map
        // changing its mind): the followed mask stands in, for a while; a change that lasts takes over.
        let carried = MaskMotion.translated(key.mask, by: toKey)
        if heldKeys < Self.keysHeldAtMost && carried.intersectionOverUnion(cut) < Self.leastKeyOverlap {
            mask = carried
            heldKeys += 1
        } else {
            heldKeys = 0
        }
        var finished: [AnimatedFrame] = []
        if let c = candidate, let settledBefore = lastKey {
            // The candidate's mask: the median of the settled key frame's mask followed to it, its own cut, and this
            // key frame's followed back to it (where one of those two never saw a pixel, the cut's value counts).
            let (forward, back) = (c.shifts.last!, MaskMotion.Shift.zero - toKey)
            let settledMask = KeyFrameMasks.median(MaskMotion.translated(settledBefore.mask, by: forward), c.cut,
                                                   MaskMotion.translated(mask, by: back),
                                                   firstSeen: forward.seenPart(width: width, height: height),
                                                   lastSeen: back.seenPart(width: width, height: height))
            finished = try settle(c, as: settledMask, after: settledBefore)
        }
        candidate = Candidate(key: WaitingFrame(image, duration: duration), cut: mask, luma: luma, frames: pending,
                              shifts: shifts)
        pending = []
        followed = nil
        keyFrames += 1
        return finished
    }

    /// The frames still held when the clip has ended. No key frame comes after the last one to confirm that its cut
    /// changed its mind, so the vote is taken as if the next one agreed with the settled key frame: the settled mask
    /// followed to it stands wherever it saw, and the cut only where it did not (what came in past the frame's edge).
    func finishClip() throws -> [AnimatedFrame] {
        guard let c = candidate, let settledBefore = lastKey else { return [] }
        candidate = nil
        let forward = c.shifts.last!
        let followed = MaskMotion.translated(settledBefore.mask, by: forward)
        let seen = forward.seenPart(width: width, height: height)
        return try settle(c, as: KeyFrameMasks.median(followed, c.cut, followed, firstSeen: seen, lastSeen: seen),
                          after: settledBefore)
    }

    /// Finishes the candidate's frames (those between `from`, the settled key frame, and the candidate) with both
    /// key masks carried to them and blended, then the candidate with `mask`, which becomes the settled key frame.
    private func settle(_ c: Candidate, as mask: Mask, after from: (mask: Mask, luma: MaskMotion.Luma))
        throws -> [AnimatedFrame] {
        var finished: [AnimatedFrame] = []
        finished.reserveCapacity(c.frames.count + 1)
        let toKey = c.shifts.last!
        let span = Double(c.frames.count + 1)
        for (k, frame) in c.frames.enumerated() {
            try Cancellation.check()
            let (here, back) = (c.shifts[k + 1], c.shifts[k + 1] - toKey)
            // A subject leaving the frame (or entering it) is whole in one key frame's mask and cut by the frame's
            // edge in the other's: each mask's part from beyond its own frame is left to the other.
            let blended = KeyFrameMasks.blend(MaskMotion.translated(from.mask, by: here),
                                              MaskMotion.translated(mask, by: back),
                                              weight: Double(k + 1) / span,
                                              aSeen: here.seenPart(width: width, height: height),
                                              bSeen: back.seenPart(width: width, height: height))
            finished.append(try finish(frame.image, duration: frame.duration, mask: blended))
        }
        finished.append(try finish(c.key.image, duration: c.key.duration, mask: mask))
        lastKey = (mask, c.luma)
        return finished
    }

    /// The last frame waiting, if the clip ended between key frames: it becomes a key frame.
    func takeLastPending() -> (image: Image, duration: Double)? {
        followed = nil
        return pending.popLast().map { ($0.image, $0.duration) }
    }

    private func finish(_ image: consuming Image, duration: Double, mask: Mask) throws -> AnimatedFrame {
        var frame = consume image
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
