import Compute

/// The cut of an animated sticker as a state machine: frames, key frames' cuts and the clip's end go in; what to do
/// next comes out (``Action``: cut a key frame, emit frames whose masks are settled). It runs nothing itself and
/// waits for nothing: its driver performs the actions, and may cut a key frame while later frames go on coming in.
///
/// Every `keyInterval`-th frame (from the first) is a key frame, cut by the network as a still is. The motion between
/// consecutive frames is measured both ways (``OpticalFlow``, dense) and checked against itself, so every frame knows
/// where each of its pixels was in the key frame before it and will be in the key frame after it (the flows composed
/// frame by frame, ``FlowField/composed(with:)``). A frame between two key frames gets both key frames' masks carried
/// to it along those motions (``FlowField/warp(_:)``) and blended by its place between them; where one carry is
/// unreliable (occluded, uncovered, off the frame) the other's value stands
/// (``KeyFrameMasks/blend(_:_:weight:aReliability:bReliability:)``).
///
/// A key frame's mask is settled by a vote with the key frames on either side, carried to it: the median of the
/// three (the clip's last key frame, with none after it, as if the next agreed with the one before); and a cut that
/// disagrees with the mask carried to it is set aside for a while (``leastKeyOverlap``). So frames wait here from a
/// key frame until the one after the next is cut.
///
/// Contract for the driver:
/// - ``add(_:duration:on:)`` each frame in order, then ``finishClip(on:)`` once; ``keyFrameCut(_:mask:on:)`` each key frame
///   asked for (`.cutKeyFrame`), in the order asked, whenever its cut is ready (before or after later frames come).
/// - `.emit` hands out frames in order, each exactly once; when ``isFinished``, every frame added has been emitted.
/// - With `followsPrompt`, a key frame is asked for only once the key frame before it is settled by its cut, and the
///   request carries the motion from that key frame (``KeyFrameMotion``), to carry a chosen subject along: such cuts
///   come one after another. Without it, a key frame is asked for as soon as it comes.
/// - Frames that are stickers already (`framesAreStickers`) are emitted as they come, their alpha their mask.
///
/// A value: a copy goes on from where the original was, independently. Only the flows' scratch
/// (``OpticalFlow/Scratch``, whose contents mean nothing between flows) is shared by copies.
public struct ClipCut: Sendable {
    /// What the driver is to do next.
    public enum Action: Sendable {
        /// Cut this key frame and hand the mask back with ``ClipCut/keyFrameCut(_:mask:on:)``.
        case cutKeyFrame(KeyFrameRequest)
        /// These frames are settled, in order after those emitted before.
        case emit([AnimatedFrame])
    }

    /// A key frame to cut.
    public struct KeyFrameRequest: Sendable {
        /// The frame's number in the clip (from 0).
        public let frame: Int
        public let image: Image
        /// With `followsPrompt`, from the key frame before (nil for the first).
        public let motion: KeyFrameMotion?
    }

    /// The motion from the key frame before to this one, and that key frame's mask carried here: where a subject
    /// chosen there is now (``SubjectPrompt/carried(along:onto:)``).
    public struct KeyFrameMotion: Sendable {
        public let flow: FlowField
        public let carried: Mask
    }

    public let width: Int, height: Int
    public let keyInterval: Int
    /// How a settled mask becomes each frame's alpha.
    let edge: AnimatedFrame.Edge
    let followsPrompt: Bool

    /// Pixels between the cells of the motion fields: the masks are carried on a grid this coarse (bilinear between
    /// cells), which keeps the fields held for two key intervals of frames small (bench/README.md, issue 64).
    public static let flowStep = 2
    /// A key frame's cut whose IoU with the mask carried to it from the key frame before is under this is set aside
    /// (bench/README.md, "Animated stickers", sixth and seventh passes).
    public static let leastKeyOverlap = 0.6
    /// At most this many key frames in a row are set aside: a new subject (or a scene cut) takes over after them.
    public static let keysHeldAtMost = 2

    /// A frame held until its mask is settled.
    private struct Held: Sendable {
        var frame: WaitingFrame?
        /// The frame's luma, until the motion to the next frame is measured.
        var luma: LumaPlane?
        /// Motion from this frame to the latest key frame before it; nil for a key frame itself.
        var toKey: FlowField?
        /// Motion from this frame to the next one; nil until that frame comes, and once `toNextKey` is known.
        var toNext: FlowField?
        /// Motion from this frame to the next key frame after it; set when that key frame's cut comes.
        var toNextKey: FlowField?
        /// For a key frame: the motion to the key frame before it, and its mask (its cut, or what stood in) once cut.
        var toPreviousKey: FlowField?
        var keyMask: Mask?
    }

    /// The frames from the settled key frame (its mask final, its frame emitted; absent before the first key frame
    /// is cut) on: `held[i]` is frame `base + i`.
    private var held: [Held] = []
    private var base = 0
    /// The latest key frame whose cut came, not yet settled (nil while there is none).
    private var candidate: Int?
    /// The settled key frame's mask.
    private var settledMask: Mask?
    /// Key frames added whose cut has not come, in order; the first `asked` of them have been asked for.
    private var uncut: [Int] = []
    private var asked = 0
    /// The motion from the key frame before to the first uncut key frame, when measured to ask for its cut.
    private var followed: (frame: Int, chain: [FlowField])?
    private var previousMask: Mask?
    /// Key frames in a row whose cut was set aside for the mask carried to them.
    private var heldKeys = 0
    private var ended = false
    /// Where the flows work, kept from frame to frame.
    private let scratch = OpticalFlow.Scratch()

    public private(set) var framesIn = 0
    public private(set) var framesOut = 0
    public private(set) var keyFrames = 0
    /// Frames emitted with no subject at all (no pixel of their mask at half or more).
    public private(set) var framesWithoutSubject = 0
    /// Seconds of the frames emitted.
    public private(set) var duration = 0.0
    private var flickerSum = 0.0
    private var framesAreStickers: Bool { edge == .own }

    /// - Parameters:
    ///   - decontaminates: whether a soft edge takes the subject's own colour in every frame (the still's
    ///     `decontaminate`).
    ///   - framesAreStickers: frames whose alpha is their mask already (each its own key frame, nothing carried).
    ///   - followsPrompt: whether each key frame's cut needs the motion from the key frame before (a chosen subject).
    public init(width: Int, height: Int, keyInterval: Int, decontaminates: Bool, framesAreStickers: Bool = false,
                followsPrompt: Bool = false) {
        precondition(keyInterval >= 1, "a key frame interval of at least one frame")
        (self.width, self.height, self.keyInterval) = (width, height, keyInterval)
        edge = framesAreStickers ? .own : decontaminates ? .decontaminated : .plain
        self.followsPrompt = followsPrompt && !framesAreStickers
    }

    /// Mean flicker between consecutive emitted masks (``KeyFrameMasks/changedShare(_:_:)``).
    public var flicker: Double { framesOut > 1 ? flickerSum / Double(framesOut - 1) : 0 }

    /// Whether every frame added has been emitted after ``finishClip(on:)``.
    public var isFinished: Bool { ended && uncut.isEmpty && candidate == nil && held.allSatisfy { $0.frame == nil } }

    /// Whether a key frame waits to be asked for until a cut asked for before comes (with `followsPrompt`): the
    /// driver should hand that cut in rather than go on.
    public var waitsForCut: Bool { uncut.count > asked && asked > 0 }

    /// Adds the next frame: the motion between it and the frame before, both ways, checked against each other and
    /// followed to the latest key frame.
    /// - Throws: `ImagingError` from the flow, `CancellationError`.
    public mutating func add(_ image: Image, duration: Double, on loop: some ParallelLoop) throws -> [Action] {
        precondition(!ended, "a frame added after the clip's end")
        try loop.checkCancellation()
        precondition(image.width == width && image.height == height, "a frame of another size")
        let number = framesIn
        framesIn += 1
        if framesAreStickers {
            keyFrames += 1
            return [.emit([emitted(image, duration: duration, mask: KeyFrameMasks.alpha(of: image))])]
        }
        let frame = WaitingFrame(image, duration: duration)
        let luma = frame.luma
        if let previous = held.last {
            // One after the other in one scratch: side by side (`ParallelLoop.both`, a second scratch) was within the
            // noise on two cores and held 6 MiB more (bench/README.md).
            let forward = try OpticalFlow.between(previous.luma!, luma, step: Self.flowStep, scratch: scratch)
            let backward = try OpticalFlow.between(luma, previous.luma!, step: Self.flowStep, scratch: scratch)
            held[held.count - 1].toNext = forward.checked(against: backward)
            held[held.count - 1].luma = nil
            let back = backward.checked(against: forward)
            held.append(Held(frame: frame, luma: luma, toKey: previous.toKey.map { back.composed(with: $0) } ?? back))
        } else {
            held.append(Held(frame: frame, luma: luma))
        }
        guard number % keyInterval == 0 else { return [] }
        return try makeKey(number, image: image, on: loop)
    }

    /// Ends the clip: its last frame, if it is not a key frame, becomes one (nothing after it could settle it).
    public mutating func finishClip(on loop: some ParallelLoop) throws -> [Action] {
        precondition(!ended, "the clip ended twice")
        ended = true
        var actions: [Action] = []
        if !framesAreStickers, framesIn > 0, (framesIn - 1) % keyInterval != 0 {
            let number = framesIn - 1
            actions = try makeKey(number, image: held[number - base].frame!.image, on: loop)
        }
        return actions + (try finishIfDone(on: loop))
    }

    /// Hands in the cut of key frame `frame` (the first asked for and not yet handed in) and returns what it settles.
    /// A cut that disagrees with the latest key frame's mask carried to this frame (``leastKeyOverlap``) is set
    /// aside for that mask first, for at most ``keysHeldAtMost`` key frames in a row. The candidate key frame before
    /// this one is then settled: where the key frames on both sides agree, carried to it, their value stands against
    /// its own cut (a median of the three), so a cut that changes its mind for one key frame is outvoted without
    /// holding back a change that lasts; the frames between the settled key frame and it get both masks carried to
    /// them and blended.
    public mutating func keyFrameCut(_ frame: Int, mask cut: Mask, on loop: some ParallelLoop) throws -> [Action] {
        precondition(asked > 0 && uncut.first == frame, "a cut handed in that was not the next asked for")
        precondition(cut.width == width && cut.height == height, "a cut of another size")
        uncut.removeFirst()
        asked -= 1
        keyFrames += 1
        let k = frame - base
        var actions: [Action] = []
        if let key = latestKey, let keyMask = held[key - base].keyMask {
            let chain = try followed.flatMap { $0.frame == frame ? $0.chain : nil } ?? forwardChain(from: key, to: frame, on: loop)
            followed = nil
            for (i, flow) in chain.enumerated() where key + i < frame {
                held[key - base + i].toNextKey = flow
                held[key - base + i].toNext = nil
            }
            var mask = cut
            // Only where the carry is reliable: a wrong match must not make a good cut look like a change of mind.
            let carry = held[k].toPreviousKey!.warp(keyMask)
            let carried = KeyFrameMasks.carried(carry.mask, reliability: carry.reliability, elsewhere: cut)
            if heldKeys < Self.keysHeldAtMost && carried.intersectionOverUnion(cut) < Self.leastKeyOverlap {
                mask = carried
                heldKeys += 1
            } else {
                heldKeys = 0
            }
            held[k].keyMask = mask
            if let c = candidate, let settled = settledMask {
                // The candidate's mask: the median of the settled key frame's mask carried to it, its own cut, and
                // this key frame's carried back to it (where one of those two is unreliable, the cut's value counts).
                let before = held[c - base].toPreviousKey!.warp(settled)
                let after = held[c - base].toNextKey!.warp(mask)
                let voted = KeyFrameMasks.median(before.mask, held[c - base].keyMask!, after.mask,
                                                 firstReliability: before.reliability, lastReliability: after.reliability)
                actions.append(.emit(try settle(upTo: c, as: voted, on: loop)))
            }
            candidate = frame
        } else {
            // The first key frame: nothing before it to vote with, settled at once.
            precondition(k == 0, "frames before the first key frame")
            actions.append(.emit([emitted(held[0].frame!.image, duration: held[0].frame!.duration, mask: cut)]))
            held[0].frame = nil
            held[0].keyMask = cut
            settledMask = cut
        }
        actions += try askNext(on: loop)
        return actions + (try finishIfDone(on: loop))
    }

    /// Where the latest key frame whose cut came is: the candidate, or the settled key frame.
    private var latestKey: Int? { candidate ?? (held.first?.keyMask != nil ? base : nil) }

    /// Makes frame `number` (the last added) a key frame and asks for its cut, or keeps it until it can be asked for.
    private mutating func makeKey(_ number: Int, image: Image, on loop: some ParallelLoop) throws -> [Action] {
        let k = number - base
        held[k].toPreviousKey = held[k].toKey
        held[k].toKey = nil
        uncut.append(number)
        return try askNext(image: image, on: loop)
    }

    /// Asks for the cut of the next key frame not asked for, when it can be: at once without a prompt, and with one
    /// once every key frame before it has its cut (the motion from the latest then measured to it).
    private mutating func askNext(image: Image? = nil, on loop: some ParallelLoop) throws -> [Action] {
        guard uncut.count > asked else { return [] }
        let number = uncut[asked]
        let picture = image.flatMap { number == framesIn - 1 ? $0 : nil } ?? held[number - base].frame!.image
        guard followsPrompt else {
            asked += 1
            return [.cutKeyFrame(KeyFrameRequest(frame: number, image: picture, motion: nil))]
        }
        guard asked == 0 else { return [] }
        asked = 1
        guard let key = latestKey, let mask = held[key - base].keyMask else {
            return [.cutKeyFrame(KeyFrameRequest(frame: number, image: picture, motion: nil))]
        }
        let chain = try forwardChain(from: key, to: number, on: loop)
        followed = (number, chain)
        let carried = held[number - base].toPreviousKey!.warp(mask).mask
        return [.cutKeyFrame(KeyFrameRequest(frame: number, image: picture,
                                             motion: KeyFrameMotion(flow: chain[0], carried: carried)))]
    }

    /// The motion from each frame from `key` on to frame `last`: element i is frame `key + i`'s.
    private func forwardChain(from key: Int, to last: Int, on loop: some ParallelLoop) throws -> [FlowField] {
        var chain = [FlowField.zero(width: width, height: height, step: Self.flowStep)]
        for i in stride(from: last - 1, through: key, by: -1) {
            try loop.checkCancellation()
            chain.append(held[i - base].toNext!.composed(with: chain.last!))
        }
        return chain.reversed()
    }

    /// After the clip's end and every cut: the last candidate settled as if the next key frame agreed with the
    /// settled one (the settled mask carried to it stands wherever it is reliable, its cut only where it is not:
    /// what came into view), since no key frame after it can confirm that its cut changed its mind.
    private mutating func finishIfDone(on loop: some ParallelLoop) throws -> [Action] {
        guard ended, uncut.isEmpty, let c = candidate, let settled = settledMask else { return [] }
        let before = held[c - base].toPreviousKey!.warp(settled)
        let voted = KeyFrameMasks.carried(before.mask, reliability: before.reliability, elsewhere: held[c - base].keyMask!)
        let finished = try settle(upTo: c, as: voted, on: loop)
        candidate = nil
        return [.emit(finished)]
    }

    /// Settles the frames between the settled key frame (`held[0]`) and the candidate at frame `c`, both key frames'
    /// masks carried to each and blended, then the candidate with `mask`, which becomes the settled key frame.
    private mutating func settle(upTo c: Int, as mask: Mask, on loop: some ParallelLoop) throws -> [AnimatedFrame] {
        let end = c - base
        var finished: [AnimatedFrame] = []
        finished.reserveCapacity(end)
        let settled = settledMask!
        for k in 1..<end {
            try loop.checkCancellation()
            let from = held[k].toKey!.warp(settled), to = held[k].toNextKey!.warp(mask)
            let blended = KeyFrameMasks.blend(from.mask, to.mask, weight: Double(k) / Double(end),
                                              aReliability: from.reliability, bReliability: to.reliability)
            finished.append(emitted(held[k].frame!.image, duration: held[k].frame!.duration, mask: blended))
        }
        finished.append(emitted(held[end].frame!.image, duration: held[end].frame!.duration, mask: mask))
        held[end].frame = nil
        held[end].keyMask = mask
        held.removeFirst(end)
        base = c
        settledMask = mask
        return finished
    }

    /// The frame with its settled mask, counted.
    private mutating func emitted(_ image: Image, duration shown: Double, mask: Mask) -> AnimatedFrame {
        if let previousMask { flickerSum += KeyFrameMasks.changedShare(previousMask, mask) }
        if !mask.values.contains(where: { $0 >= 128 }) { framesWithoutSubject += 1 }
        previousMask = mask
        framesOut += 1
        duration += shown
        return AnimatedFrame(image: image, mask: mask, duration: shown, edge: edge)
    }
}
