import Compute
import Foundation
import Imaging

/// The frames of an animated sticker between decoding and encoding: each frame's mask, then the frame cut out
/// (``KeyFrameMasks/cutOut(_:from:decontaminating:)``) and handed back in batches for an ``AnimationSink``.
///
/// Every `keyInterval`-th frame is a key frame, cut by the network as a still is. The motion between consecutive
/// frames is measured both ways (``OpticalFlow``, dense) and checked against itself, so every frame knows where each
/// of its pixels was in the key frame before it and will be in the key frame after it (the flows composed frame by
/// frame, ``FlowField/composed(with:)``). A frame between two key frames gets both key frames' masks carried to it
/// along those motions (``FlowField/warp(_:)``) and blended by its place between them; where one carry is unreliable
/// (occluded, uncovered, off the frame) the other's value stands (``KeyFrameMasks/blend(_:_:weight:aReliability:bReliability:)``).
///
/// A key frame's mask is settled by a vote with the key frames on either side, carried to it: the median of the
/// three (the clip's last key frame, with none after it, as if the next agreed with the one before:
/// ``finishClip()``); and a cut that disagrees with the mask carried to it is set aside for a while
/// (``keyLast(cut:)``). So frames wait here from a key frame until the one after the next is cut.
///
/// `@unchecked Sendable` is sound here: the request's handler owns the stage and touches it either itself or
/// through one compute job at a time that it awaits before going on, so no two threads use it at once and every
/// use is ordered after the previous one by those awaits.
final class AnimatedStickerStage: @unchecked Sendable {
    let width: Int, height: Int
    let keyInterval: Int
    /// Whether a soft edge takes the subject's own colour in every frame (the still's `decontaminate`).
    let decontaminates: Bool
    /// Whether each frame's mask goes with it (for the masks' file).
    let keepsMasks: Bool
    /// Whether the frames are already stickers whose alpha is their mask (each its own key frame, nothing carried).
    let framesAreStickers: Bool

    /// Pixels between the cells of the motion fields: the masks are carried on a grid this coarse (bilinear between
    /// cells), which keeps the fields held for two key intervals of frames small (bench/README.md, issue 64).
    static let flowStep = 2

    /// A frame held until its mask is known.
    private struct Held {
        var frame: WaitingFrame?
        /// The frame's luma, until the motion to the next frame is measured.
        var luma: LumaPlane?
        /// Motion from this frame to the latest key frame before it; nil for a key frame itself (and for a frame
        /// that is a sticker already, which needs none).
        var toKey: FlowField?
        /// Motion from this frame to the next one; nil until that frame comes.
        var toNext: FlowField?
        /// Motion from this frame to the next key frame after it; set when that key frame comes.
        var toNextKey: FlowField?
        /// For a key frame: the motion to the key frame before it, and its mask (its cut, or the mask that stood in).
        var toPreviousKey: FlowField?
        var keyMask: Mask?
    }

    /// The settled key frame (its mask final, its frame emitted), then every frame after it: the candidate key frame
    /// (cut, not yet settled) and the frames between, then the frames after the candidate.
    private var held: [Held] = []
    /// Where in `held` the candidate key frame is (nil while there is none).
    private var candidate: Int?
    /// The settled key frame's mask.
    private var settledMask: Mask?
    /// What ``followToLast()`` found, until the last frame is made a key frame.
    private var followed: [FlowField]?
    private var previousMask: Mask?
    /// Key frames in a row whose cut was set aside for the mask carried to them.
    private var heldKeys = 0
    private(set) var framesOut = 0
    private(set) var keyFrames = 0
    /// Frames added so far.
    private(set) var framesIn = 0
    private(set) var duration = 0.0
    private var flickerSum = 0.0

    init(width: Int, height: Int, keyInterval: Int, decontaminates: Bool, keepsMasks: Bool, framesAreStickers: Bool = false) {
        (self.width, self.height, self.keyInterval, self.decontaminates) = (width, height, keyInterval, decontaminates)
        self.keepsMasks = keepsMasks
        self.framesAreStickers = framesAreStickers
    }

    /// A key frame's cut whose IoU with the mask carried to it from the key frame before is under this is set aside
    /// (bench/README.md, "Animated stickers", sixth and seventh passes).
    static let leastKeyOverlap = 0.6
    /// At most this many key frames in a row are set aside: a new subject (or a scene cut) takes over after them.
    static let keysHeldAtMost = 2

    /// Mean flicker between consecutive output masks (``KeyFrameMasks/changedShare(_:_:)``).
    var flicker: Double { framesOut > 1 ? flickerSum / Double(framesOut - 1) : 0 }

    /// Whether the last frame added is to be a key frame (every `keyInterval`-th, from the first).
    var lastIsKey: Bool { framesIn > 0 && (framesIn - 1) % keyInterval == 0 }

    /// Whether any frame added is still waiting for a key frame after it.
    var lastIsWaiting: Bool { !held.isEmpty && held.last!.keyMask == nil }

    /// The last frame added, as it was added.
    var lastImage: Image? { held.last?.frame?.image }

    /// Adds the next frame: the motion between it and the frame before, both ways, checked against each other and
    /// followed to the latest key frame. A frame that is a sticker already needs none (its alpha is its mask).
    /// - Throws: `ImagingError` from the flow, `CancellationError`.
    func add(_ image: Image, duration: Double) throws {
        try Cancellation.check()
        let frame = WaitingFrame(image, duration: duration)
        framesIn += 1
        guard !framesAreStickers else { return held.append(Held(frame: frame)) }
        let luma = frame.luma
        guard let previous = held.last else { return held.append(Held(frame: frame, luma: luma)) }
        let forward = try OpticalFlow.between(previous.luma!, luma, step: Self.flowStep)
        let backward = try OpticalFlow.between(luma, previous.luma!, step: Self.flowStep)
        held[held.count - 1].toNext = forward.checked(against: backward)
        held[held.count - 1].luma = nil
        let back = backward.checked(against: forward)
        held.append(Held(frame: frame, luma: luma, toKey: previous.toKey.map { back.composed(with: $0) } ?? back))
    }

    /// The motion from the latest key frame to the last frame added, and the latest key frame's mask carried to
    /// it: where a subject chosen on the key frame before is now (``SubjectPrompt/carried(along:onto:)``). Nil
    /// before the first key frame. What it follows is kept for ``keyLast(cut:)``.
    func followToLast() throws -> (flow: FlowField, carried: Mask)? {
        guard let key = latestKeyIndex, key < held.count - 1, let mask = held[key].keyMask else { return nil }
        let chain = try followed ?? forwardChain(from: key)
        followed = chain
        return (chain[0], held[held.count - 1].toKey!.warp(mask).mask)
    }

    /// Where the latest key frame is in `held` (the candidate, or the settled key frame).
    private var latestKeyIndex: Int? { candidate ?? (held.first?.keyMask != nil ? 0 : nil) }

    /// The motion from each frame from `key` on to the last one: element k is frame `key + k`'s.
    private func forwardChain(from key: Int) throws -> [FlowField] {
        var chain = [FlowField.zero(width: width, height: height, step: Self.flowStep)]
        for i in stride(from: held.count - 2, through: key, by: -1) {
            try Cancellation.check()
            chain.append(held[i].toNext!.composed(with: chain.last!))
        }
        return chain.reversed()
    }

    /// Makes the last frame added a key frame with `cut`, the network's mask of it, and returns the frames this
    /// settles, in order. A cut that disagrees with the latest key frame's mask carried to this frame
    /// (``leastKeyOverlap``) is set aside for that mask first, for at most ``keysHeldAtMost`` key frames in a row.
    /// The candidate key frame before this one is then settled: where the key frames on both sides agree, carried to
    /// it, their value stands against its own cut (a median of the three), so a cut that changes its mind for one key
    /// frame is outvoted without holding back a change that lasts; the frames between the settled key frame and it
    /// get both masks carried to them and blended. Frames that are stickers already keep their own alpha.
    func keyLast(cut: Mask) throws -> [AnimatedFrame] {
        precondition(!held.isEmpty && held.last!.keyMask == nil, "no frame waiting to be a key frame")
        keyFrames += 1
        let last = held.count - 1
        guard !framesAreStickers, let key = latestKeyIndex, let keyMask = held[key].keyMask else {
            // The first key frame (nothing before it to vote with), or a sticker's frame: settled at once.
            let finished = try finish(held[last], mask: cut)
            held = [Held(frame: nil, luma: held[last].luma, keyMask: cut)]
            settledMask = cut
            followed = nil
            return [finished]
        }
        let chain = try followed ?? forwardChain(from: key)
        followed = nil
        for (k, flow) in chain.enumerated() where key + k < last {
            held[key + k].toNextKey = flow
            held[key + k].toNext = nil
        }
        var mask = cut
        // Only where the carry is reliable: a wrong match must not make a good cut look like a change of mind.
        let carry = held[last].toKey!.warp(keyMask)
        let carried = KeyFrameMasks.carried(carry.mask, reliability: carry.reliability, elsewhere: cut)
        if heldKeys < Self.keysHeldAtMost && carried.intersectionOverUnion(cut) < Self.leastKeyOverlap {
            mask = carried
            heldKeys += 1
        } else {
            heldKeys = 0
        }
        held[last].toPreviousKey = held[last].toKey
        held[last].toKey = nil
        held[last].keyMask = mask
        var finished: [AnimatedFrame] = []
        if let c = candidate, let settled = settledMask {
            // The candidate's mask: the median of the settled key frame's mask carried to it, its own cut, and this
            // key frame's carried back to it (where one of those two is unreliable, the cut's value counts).
            let before = held[c].toPreviousKey!.warp(settled)
            let after = held[c].toNextKey!.warp(mask)
            let voted = KeyFrameMasks.median(before.mask, held[c].keyMask!, after.mask, firstReliability: before.reliability,
                                             lastReliability: after.reliability)
            finished = try settle(upTo: c, as: voted)
        }
        candidate = held.count - 1
        return finished
    }

    /// The frames still held when the clip has ended. No key frame comes after the last one to confirm that its cut
    /// changed its mind, so the vote is taken as if the next one agreed with the settled key frame: the settled mask
    /// carried to it stands wherever it is reliable, and the cut only where it is not (what came into view).
    func finishClip() throws -> [AnimatedFrame] {
        precondition(!lastIsWaiting, "a frame is waiting for a key frame")
        guard let c = candidate, let settled = settledMask else { return [] }
        let before = held[c].toPreviousKey!.warp(settled)
        let voted = KeyFrameMasks.carried(before.mask, reliability: before.reliability, elsewhere: held[c].keyMask!)
        let finished = try settle(upTo: c, as: voted)
        candidate = nil
        return finished
    }

    /// Finishes the frames between the settled key frame (`held[0]`) and the candidate at `c`, both key frames'
    /// masks carried to each and blended, then the candidate with `mask`, which becomes the settled key frame.
    private func settle(upTo c: Int, as mask: Mask) throws -> [AnimatedFrame] {
        var finished: [AnimatedFrame] = []
        finished.reserveCapacity(c)
        let settled = settledMask!
        for k in 1..<c {
            try Cancellation.check()
            let from = held[k].toKey!.warp(settled), to = held[k].toNextKey!.warp(mask)
            let blended = KeyFrameMasks.blend(from.mask, to.mask, weight: Double(k) / Double(c),
                                              aReliability: from.reliability, bReliability: to.reliability)
            finished.append(try finish(held[k], mask: blended))
        }
        finished.append(try finish(held[c], mask: mask))
        held[c].frame = nil
        held[c].keyMask = mask
        held.removeFirst(c)
        settledMask = mask
        return finished
    }

    /// The frame with its mask applied as alpha and, with ``decontaminates``, its soft edge in the subject's own
    /// colour (as a still sticker's): placing it on the file's canvas is ``FramePlacement``'s.
    private func finish(_ held: Held, mask: Mask) throws -> AnimatedFrame {
        let waiting = held.frame!
        var frame = waiting.image
        if !framesAreStickers { try KeyFrameMasks.cutOut(mask, from: &frame, decontaminating: decontaminates) }
        if let previousMask { flickerSum += KeyFrameMasks.changedShare(previousMask, mask) }
        previousMask = mask
        framesOut += 1
        self.duration += waiting.duration
        return AnimatedFrame(image: frame, mask: keepsMasks ? mask : nil, duration: waiting.duration)
    }
}
