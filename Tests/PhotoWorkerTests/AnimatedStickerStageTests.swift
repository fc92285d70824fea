import Foundation
import Imaging
import Testing
@testable import PhotoWorker

/// The frames between two key frames: their masks carried with the subject, then encoded by the sink in order.
@Suite("Animated sticker stage")
struct AnimatedStickerStageTests {
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

    /// Adds the frames with the square at each of `xs` to `stage`, each key frame cut as `keyMask(k)` (its true
    /// mask unless told), the last one a key frame too, and returns the frames it finished.
    static func feed(_ stage: AnimatedStickerStage, _ xs: [Int], keyMask: ((Int) -> Mask)? = nil) throws -> [AnimatedFrame] {
        var finished: [AnimatedFrame] = []
        for (k, x) in xs.enumerated() {
            let (image, mask) = frame(x)
            try stage.add(image, duration: 0.1)
            #expect(stage.lastIsKey == (k % stage.keyInterval == 0), "frame \(k)")
            if stage.lastIsKey || k == xs.count - 1 {
                finished += try stage.keyLast(cut: keyMask?(k) ?? mask)
            }
        }
        return finished + (try stage.finishClip())
    }

    static func stage(keyInterval: Int, framesAreStickers: Bool = false, decontaminates: Bool = false) -> AnimatedStickerStage {
        AnimatedStickerStage(width: width, height: height, keyInterval: keyInterval, decontaminates: decontaminates,
                             keepsMasks: true, framesAreStickers: framesAreStickers)
    }

    @Test("Between key frames the masks move with the subject instead of cross-fading between its two places")
    func masksFollowTheSubject() throws {
        let stage = Self.stage(keyInterval: 6)
        // 5 px a frame: the key frames' masks 30 px apart do not overlap, so a cross-fade would lose the subject.
        let finished = try Self.feed(stage, (0...6).map { 10 + 5 * $0 })
        #expect(finished.count == 7 && stage.keyFrames == 2)
        for (k, frame) in finished.enumerated() {
            let truth = Self.frame(10 + 5 * k).1
            let mask = try #require(frame.mask)
            #expect(Self.iou(mask, truth) > 0.95, "frame \(k): IoU \(Self.iou(mask, truth))")
        }
        // What the frames show is the mask applied: clear outside the subject, opaque on it.
        #expect(finished[3].image[5, 5].a == 0 && finished[3].image[80, 90].a == 255)
    }

    @Test("A subject leaving the frame keeps what the frame still shows of it between key frames")
    func aSubjectLeavingTheFrame() throws {
        let stage = Self.stage(keyInterval: 6)
        // 5 px a frame from x = 110: whole until frame 4, 10 px past the right edge at key frame 6. The frames nearer
        // key frame 6 are given its mask moved back, which knows nothing of the 10 px it never saw.
        let finished = try Self.feed(stage, (0...6).map { 110 + 5 * $0 })
        let ious = try finished.enumerated().map { k, frame in Self.iou(try #require(frame.mask), Self.frame(110 + 5 * k).1) }
        #expect(ious.count == 7 && ious.allSatisfy { $0 > 0.95 }, "\(ious)")
    }

    /// The IoUs with the truth of nine frames of a subject moving 3 px a frame, key frames every other frame, where
    /// key frame `wrong`'s cut misses the subject's left 8 columns (IoU 0.73 with the truth, above the gate).
    static func iousWithACutMissingPart(atKey wrong: Int) throws -> [Double] {
        let stage = stage(keyInterval: 2)
        let finished = try feed(stage, (0...8).map { 10 + 3 * $0 }) { k in
            var mask = frame(10 + 3 * k).1
            if k == wrong {
                for y in 0..<height { for x in 0..<(2 * (10 + 3 * k) + 16) { mask.values[y * width + x] = 0 } }
            }
            return mask
        }
        return try finished.enumerated().map { k, out in iou(try #require(out.mask), frame(10 + 3 * k).1) }
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
        func run(framesAreStickers: Bool) throws -> [Double] {
            let stage = Self.stage(keyInterval: framesAreStickers ? 1 : 2, framesAreStickers: framesAreStickers)
            let finished = try Self.feed(stage, (0...8).map { 10 + 3 * $0 }) { k in
                k == 0 ? Self.frame(10).1 : Self.frame(125).1
            }
            return try finished.enumerated().map { k, frame in Self.iou(try #require(frame.mask), Self.frame(10 + 3 * k).1) }
        }
        let held = try run(framesAreStickers: false)
        // Key frames 2 and 4 keep the subject; 6, the third in a row, takes the other object (the frames before it
        // blend towards it).
        #expect(held.count == 9 && held[...4].allSatisfy { $0 > 0.8 } && held[6] == 0 && held[8] == 0, "\(held)")
        // A sticker's own alpha is its mask, never set aside.
        let own = try run(framesAreStickers: true)
        #expect(own[2] == 0 && own[4] == 0, "\(own)")
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

    @Test("The sink encodes batches in order and its first fitting attempt is the file when it fits")
    func sinkFirstAttempt() throws {
        let placement = FramePlacement(outline: nil, target: .telegram, cropsToSubject: false, format: .webm)
        let sink = try AnimationSink(placement: placement, frameWidth: Self.width, frameHeight: Self.height,
                                     output: AnimationSettings(format: .webm, width: 2, height: 2), maskSettings: nil)
        let stage = Self.stage(keyInterval: 1)
        for k in 0..<6 {
            let (image, mask) = Self.frame(10 + 5 * k)
            try stage.add(image, duration: 1.0 / 12)
            try sink.add(try stage.keyLast(cut: mask))
        }
        try sink.add(try stage.finishClip())
        var steps: [String] = []
        let (bytes, canvas, first, fit, mask) = try sink.finish(path: "t.webm") { steps.append($0) }
        let chosen = try #require(fit?.chosen)
        #expect(mask == nil && fit?.attempts.count == 1 && steps.count == 1, "\(steps)")
        #expect(chosen.frames == 6 && chosen.quality == 75 && bytes.count == chosen.bytes, "\(chosen.summary)")
        let decoded = try MotionDecoder(bytes: bytes)
        #expect(decoded.info.width == canvas.width && decoded.info.height == canvas.height && canvas.width == 512,
                "\(decoded.info)")
        #expect(first?.width == canvas.width, "\(String(describing: first?.width))")
    }

    @Test("Cropped to the subject, every frame shows the box of the subject over the whole clip")
    func sinkCropsToTheSubjectOverTheClip() throws {
        // The square (60 px) moves 10 px a frame from x = 20 for six frames: its box over the clip is 110 x 60.
        let placement = FramePlacement(outline: OutlineSpec(width: 4), target: nil, cropsToSubject: true, format: .apng)
        let sink = try AnimationSink(placement: placement, frameWidth: Self.width, frameHeight: Self.height,
                                     output: AnimationSettings(format: .apng, width: 2, height: 2, quality: 100),
                                     maskSettings: nil)
        let stage = Self.stage(keyInterval: 1)
        for k in 0..<6 {
            let (image, mask) = Self.frame(10 + 5 * k)
            try stage.add(image, duration: 0.1)
            try sink.add(try stage.keyLast(cut: mask))
        }
        try sink.add(try stage.finishClip())
        let (_, canvas, first, _, _) = try sink.finish(path: "t.png")
        // The outline's room: its width and two pixels on each side (and a pixel or two of the masks' soft edge, carried
        // from the key frames on either side).
        #expect((122...126).contains(canvas.width) && (72...76).contains(canvas.height), "\(canvas)")
        let image = try #require(first)
        #expect(image.width == canvas.width && image[6, 6].a == 255 && image[100, 6].a == 0,
                "\(image.width) \(image[6, 6]) \(image[100, 6])")
    }
}
