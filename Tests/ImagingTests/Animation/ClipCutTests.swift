import Foundation
import Testing
@testable import Imaging

/// `ClipCut`, the animated sticker's cut as a state machine: the frames between two key frames get their masks
/// carried with the subject, whenever the key frames' cuts come; tested without tasks.
@Suite("The cut of a clip", .timeLimit(.minutes(10)))
struct ClipCutTests {
    /// Frames of 320 x 192 with a 60-px square: the test's positions are in half pixels (x is drawn at 2x), so a
    /// subject the size of a phone clip's at the cut's 512 px moves as in the positions given.
    static let (width, height, side) = (320, 192, 60)

    /// Blotches 8 px apart (random values, blended between), the square's texture at a coarse scale.
    static let blotches: [Double] = {
        var random = SplitMix64(seed: 5)
        return (0..<(9 * 9)).map { _ in Double(random.next() % 201) - 100 }
    }()

    /// A textured square at (2x, 60) over flat grey, and its true mask; what lies past the right edge is cut off. The
    /// texture has structure at every scale (blotches and grain) and repeats nowhere, as a subject's, for the flow
    /// to follow.
    static func frame(_ x: Int) -> (Image, Mask) {
        var image = Image(width: width, height: height, fill: RGBA(r: 120, g: 120, b: 120, a: 255))
        var random = SplitMix64(seed: 11)
        var mask = Mask(width: width, height: height, repeating: 0)
        for v in 0..<side {
            for u in 0..<side {
                let (gx, gy) = (Double(u) / 8, Double(v) / 8)
                let (i, j) = (Int(gx), Int(gy))
                let (fx, fy) = (gx - Double(i), gy - Double(j))
                let b = { (a: Int, c: Int) in Self.blotches[c * 9 + a] }
                let blotch = (b(i, j) * (1 - fx) + b(i + 1, j) * fx) * (1 - fy) + (b(i, j + 1) * (1 - fx) + b(i + 1, j + 1) * fx) * fy
                let value = UInt8(clamping: 128 + Int(blotch) + Int(random.next() % 41) - 20)
                guard 2 * x + u < width else { continue }
                image[2 * x + u, 60 + v] = RGBA(r: value, g: 255 - value, b: value / 2, a: 255)
                mask.values[(60 + v) * width + 2 * x + u] = 255
            }
        }
        return (image, mask)
    }

    static func iou(_ a: Mask, _ b: Mask) -> Double { a.intersectionOverUnion(b) }

    /// When a driver hands in each key frame's cut: as soon as it is asked for, or only once the next key frame is
    /// asked for (a cut running beside the next frames' motion), or at the clip's end.
    enum Delivery: CaseIterable {
        case atOnce, atTheNextKey, atTheEnd
    }

    /// Adds the frames with the square at each of `xs` to `machine`, each key frame cut as `keyMask(k)` (its true
    /// mask unless told) and handed in as `delivery` says, and returns the frames emitted, checking the contract on
    /// the way: key frames asked for in order, each frame emitted once and in order, the machine finished at the end.
    static func feed(_ machine: inout ClipCut, _ xs: [Int], delivery: Delivery = .atOnce,
                     keyMask: ((Int) -> Mask)? = nil) throws -> [AnimatedFrame] {
        var emitted: [AnimatedFrame] = []
        var asked: [Int] = []
        var pending: [Int] = []
        func perform(_ actions: [ClipCut.Action]) throws {
            for action in actions {
                switch action {
                case .emit(let frames): emitted += frames
                case .cutKeyFrame(let request):
                    #expect(request.image == frame(xs[request.frame]).0, "key frame \(request.frame)'s picture")
                    if delivery == .atTheNextKey { try handIn() }
                    asked.append(request.frame)
                    pending.append(request.frame)
                    if delivery == .atOnce { try handIn() }
                }
            }
        }
        func handIn() throws {
            while let k = pending.first {
                pending.removeFirst()
                try perform(try machine.keyFrameCut(k, mask: keyMask?(k) ?? frame(xs[k]).1, on: .inTurn))
            }
        }
        for x in xs {
            try perform(try machine.add(frame(x).0, duration: 0.1, on: .inTurn))
            if machine.waitsForCut { try handIn() }
        }
        try perform(try machine.finishClip(on: .inTurn))
        while !pending.isEmpty { try handIn() }
        let keys = Array(stride(from: 0, to: xs.count, by: machine.keyInterval)) +
            ((xs.count - 1) % machine.keyInterval == 0 ? [] : [xs.count - 1])
        #expect(asked == keys || machine.edge == .own, "key frames asked for: \(asked)")
        #expect(machine.isFinished && emitted.count == xs.count && machine.framesOut == xs.count,
                "\(emitted.count) of \(xs.count) frames emitted")
        return emitted
    }

    static func machine(keyInterval: Int, framesAreStickers: Bool = false, decontaminates: Bool = false,
                        followsPrompt: Bool = false) -> ClipCut {
        ClipCut(width: width, height: height, keyInterval: keyInterval, decontaminates: decontaminates,
                framesAreStickers: framesAreStickers, followsPrompt: followsPrompt)
    }

    @Test("Between key frames the masks move with the subject instead of cross-fading between its two places",
          arguments: Delivery.allCases)
    func masksFollowTheSubject(_ delivery: Delivery) throws {
        var machine = Self.machine(keyInterval: 6)
        // 5 px a frame: the key frames' masks 30 px apart do not overlap, so a cross-fade would lose the subject.
        let finished = try Self.feed(&machine, (0...6).map { 10 + 5 * $0 }, delivery: delivery)
        #expect(finished.count == 7 && machine.keyFrames == 2)
        for (k, frame) in finished.enumerated() {
            let truth = Self.frame(10 + 5 * k).1
            #expect(Self.iou(frame.mask, truth) > 0.95, "frame \(k): IoU \(Self.iou(frame.mask, truth))")
        }
        // What the frames show once cut out is the mask applied: clear outside the subject, opaque on it.
        let cut = try finished[3].cutOut(on: .inTurn)
        #expect(cut[5, 5].a == 0 && cut[80, 90].a == 255)
    }

    @Test("The frames emitted are the same whenever the key frames' cuts come, with or without a prompt to follow")
    func theSameWheneverTheCutsCome() throws {
        let xs = (0...12).map { 10 + 3 * $0 }
        var first = Self.machine(keyInterval: 3)
        let reference = try Self.feed(&first, xs)
        for delivery in Delivery.allCases {
            for followsPrompt in [false, true] {
                var machine = Self.machine(keyInterval: 3, followsPrompt: followsPrompt)
                let frames = try Self.feed(&machine, xs, delivery: delivery)
                #expect(frames.map(\.mask) == reference.map(\.mask) && frames.map(\.duration) == reference.map(\.duration),
                        "\(delivery), prompt \(followsPrompt)")
                #expect(machine.flicker == first.flicker, "\(machine.flicker) against \(first.flicker)")
            }
        }
    }

    @Test("With a prompt, each key frame is asked for with the motion from the key frame before, once that one is cut")
    func aPromptFollowsTheMotion() throws {
        var machine = Self.machine(keyInterval: 3, followsPrompt: true)
        var requests: [ClipCut.KeyFrameRequest] = []
        for k in 0..<4 {
            for action in try machine.add(Self.frame(10 + 4 * k).0, duration: 0.1, on: .inTurn) {
                if case .cutKeyFrame(let request) = action { requests.append(request) }
            }
        }
        // Frame 3 is a key frame, but frame 0's cut has not come: it waits.
        #expect(requests.map(\.frame) == [0] && machine.waitsForCut, "\(requests.map(\.frame))")
        for action in try machine.keyFrameCut(0, mask: Self.frame(10).1, on: .inTurn) {
            if case .cutKeyFrame(let request) = action { requests.append(request) }
        }
        #expect(requests.map(\.frame) == [0, 3] && !machine.waitsForCut && requests[0].motion == nil)
        // The motion is frame 0's to frame 3 (8 px at 2x: 24 px to the right), the mask carried with it.
        let motion = try #require(requests[1].motion)
        let (dx, _, _) = motion.flow.vector(atX: 2 * 10 + 30, y: 90)
        #expect(abs(dx - 24) < 1, "\(dx)")
        #expect(Self.iou(motion.carried, Self.frame(22).1) > 0.9, "\(Self.iou(motion.carried, Self.frame(22).1))")
    }

    @Test("A subject leaving the frame keeps what the frame still shows of it between key frames")
    func aSubjectLeavingTheFrame() throws {
        var machine = Self.machine(keyInterval: 6)
        // 5 px a frame from x = 110: whole until frame 4, 10 px past the right edge at key frame 6. The frames nearer
        // key frame 6 are given its mask moved back, which knows nothing of the 10 px it never saw.
        let finished = try Self.feed(&machine, (0...6).map { 110 + 5 * $0 })
        let ious = finished.enumerated().map { k, frame in Self.iou(frame.mask, Self.frame(110 + 5 * k).1) }
        #expect(ious.count == 7 && ious.allSatisfy { $0 > 0.95 }, "\(ious)")
    }

    /// The IoUs with the truth of nine frames of a subject moving 3 px a frame, key frames every other frame, where
    /// key frame `wrong`'s cut misses the subject's left 8 columns (IoU 0.73 with the truth, above the gate).
    static func iousWithACutMissingPart(atKey wrong: Int) throws -> [Double] {
        var machine = machine(keyInterval: 2)
        let finished = try feed(&machine, (0...8).map { 10 + 3 * $0 }) { k in
            var mask = frame(10 + 3 * k).1
            if k == wrong {
                for y in 0..<height { for x in 0..<(2 * (10 + 3 * k) + 16) { mask.values[y * width + x] = 0 } }
            }
            return mask
        }
        return finished.enumerated().map { k, out in iou(out.mask, frame(10 + 3 * k).1) }
    }

    @Test("A key frame's cut that loses part of the subject for one key frame is outvoted by the key frames round it")
    func aOneKeyChangeOfMindIsOutvoted() throws {
        // Only the key frames on either side (2 and 6, which agree) can tell key frame 4's cut changed its mind.
        let ious = try Self.iousWithACutMissingPart(atKey: 4)
        #expect(ious.count == 9 && ious.allSatisfy { $0 > 0.95 }, "\(ious)")
    }

    @Test("The clip's last key frame, with none after it to confirm a change, keeps the subject followed to it")
    func theLastKeyFrameIsNotTakenAlone() throws {
        let ious = try Self.iousWithACutMissingPart(atKey: 8)
        #expect(ious.count == 9 && ious.allSatisfy { $0 > 0.95 }, "\(ious)")
    }

    @Test("A key frame's cut of something else is set aside for the subject followed to it, twice at most")
    func aCutThatDisagreesIsHeldOff() throws {
        // Every key frame after the first is cut as another object (a square at the frame's far right). The subject
        // moves 3 px a frame; key frames are every other frame.
        var machine = Self.machine(keyInterval: 2)
        let finished = try Self.feed(&machine, (0...8).map { 10 + 3 * $0 }) { k in
            k == 0 ? Self.frame(10).1 : Self.frame(125).1
        }
        let held = finished.enumerated().map { k, frame in Self.iou(frame.mask, Self.frame(10 + 3 * k).1) }
        // Key frames 2 and 4 keep the subject; 6, the third in a row, takes the other object (the frames before it
        // blend towards it).
        #expect(held.count == 9 && held[...4].allSatisfy { $0 > 0.8 } && held[6] == 0 && held[8] == 0, "\(held)")
    }

    @Test("Frames that are stickers already are emitted as they come, their own alpha their mask, nothing asked")
    func stickersKeepTheirOwnAlpha() throws {
        var machine = Self.machine(keyInterval: 1, framesAreStickers: true)
        var seeThrough = Self.frame(20).0
        seeThrough[3, 4] = RGBA(r: 1, g: 2, b: 3, a: 40)
        let actions = try machine.add(seeThrough, duration: 0.1, on: .inTurn)
        guard actions.count == 1, case .emit(let frames) = actions[0] else {
            Issue.record("\(actions)")
            return
        }
        #expect(frames.count == 1 && frames[0].mask.values[4 * Self.width + 3] == 40 && frames[0].edge == .own)
        #expect(try frames[0].cutOut(on: .inTurn) == seeThrough)
        #expect(try machine.finishClip(on: .inTurn).isEmpty && machine.isFinished)
    }

    @Test("One frame, and a clip that ends between key frames, are emitted whole")
    func shortClips() throws {
        var one = Self.machine(keyInterval: 15)
        #expect(try Self.feed(&one, [10]).count == 1)
        for delivery in Delivery.allCases {
            var two = Self.machine(keyInterval: 15)
            let frames = try Self.feed(&two, [10, 12], delivery: delivery)
            #expect(two.keyFrames == 2 && Self.iou(frames[1].mask, Self.frame(12).1) > 0.95, "\(delivery)")
        }
        var none = Self.machine(keyInterval: 15)
        #expect(try none.finishClip(on: .inTurn).isEmpty && none.isFinished)
    }

    @Test("A waiting frame gives back the frame it was given and its luma, opaque (held without its alpha) or not")
    func waitingFramesRoundTrip() {
        let opaque = Self.frame(20).0
        #expect(WaitingFrame(opaque, duration: 0.1).image == opaque)
        // Held as RGB, its luma taken from those bytes is the image's.
        #expect(WaitingFrame(opaque, duration: 0.1).luma == LumaPlane(opaque))
        var seeThrough = opaque
        seeThrough[3, 4] = RGBA(r: 1, g: 2, b: 3, a: 40)
        let waiting = WaitingFrame(seeThrough, duration: 0.25)
        #expect(waiting.image == seeThrough && waiting.duration == 0.25)
        #expect(waiting.luma == LumaPlane(seeThrough))
    }
}
