import Imaging
import Testing
@testable import PhotoWorker

/// The frames between two key frames: their masks carried with the subject, then encoded by the sink in order.
@Suite("Animated sticker stage")
struct AnimatedStickerStageTests {
    static let (width, height, side) = (160, 96, 30)

    /// A textured square at (x, 30) over flat grey, and its true mask; what lies past the right edge is cut off.
    static func frame(_ x: Int) -> (Image, Mask) {
        var image = Image(width: width, height: height, fill: RGBA(r: 120, g: 120, b: 120, a: 255))
        var random = SplitMix64(seed: 11)
        var mask = Mask(width: width, height: height, repeating: 0)
        for v in 0..<side {
            for u in 0..<side {
                let value = UInt8(truncatingIfNeeded: random.next())
                guard x + u < width else { continue }
                image[x + u, 30 + v] = RGBA(r: value, g: 255 - value, b: value / 2, a: 255)
                mask.values[(30 + v) * width + x + u] = 255
            }
        }
        return (image, mask)
    }

    static func iou(_ a: Mask, _ b: Mask) -> Double { a.intersectionOverUnion(b) }

    /// Adds the frames with the square at each of `xs` to `stage`, each key frame cut as `keyMask(k)` (its true
    /// mask unless told), and returns the frames it finished.
    static func feed(_ stage: AnimatedStickerStage, _ xs: [Int], keyMask: ((Int) -> Mask)? = nil) throws -> [AnimatedFrame] {
        var finished: [AnimatedFrame] = []
        for (k, x) in xs.enumerated() {
            let (image, mask) = frame(x)
            #expect(stage.nextIsKey == (k % stage.keyInterval == 0), "frame \(k)")
            if stage.nextIsKey {
                finished += try stage.addKey(image, duration: 0.1, mask: keyMask?(k) ?? mask)
            } else {
                stage.addBetween(image, duration: 0.1)
            }
        }
        return finished + (try stage.finishClip())
    }

    @Test("Between key frames the masks move with the subject instead of cross-fading between its two places")
    func masksFollowTheSubject() throws {
        let stage = AnimatedStickerStage(width: Self.width, height: Self.height, keyInterval: 6, outline: nil,
                                         target: nil, keepsMasks: true)
        // 5 px a frame: the key frames' masks 30 px apart do not overlap, so a cross-fade would lose the subject.
        #expect(stage.nextIsKey)
        let finished = try Self.feed(stage, (0...6).map { 10 + 5 * $0 })
        #expect(finished.count == 7 && stage.keyFrames == 2)
        for (k, frame) in finished.enumerated() {
            let truth = Self.frame(10 + 5 * k).1
            let mask = try #require(frame.mask)
            #expect(Self.iou(mask, truth) > 0.95, "frame \(k): IoU \(Self.iou(mask, truth))")
        }
        // What the frames show is the mask applied: clear outside the subject, opaque on it.
        #expect(finished[3].image[5, 5].a == 0 && finished[3].image[10 + 15 + 15, 45].a == 255)
    }

    @Test("A subject leaving the frame keeps what the frame still shows of it between key frames")
    func aSubjectLeavingTheFrame() throws {
        let stage = AnimatedStickerStage(width: Self.width, height: Self.height, keyInterval: 6, outline: nil,
                                         target: nil, keepsMasks: true)
        // 5 px a frame from x = 110: whole until frame 4, 10 px past the right edge at key frame 6. The frames nearer
        // key frame 6 are given its mask moved back, which knows nothing of the 10 px it never saw.
        let finished = try Self.feed(stage, (0...6).map { 110 + 5 * $0 })
        let ious = try finished.enumerated().map { k, frame in Self.iou(try #require(frame.mask), Self.frame(110 + 5 * k).1) }
        #expect(ious.count == 7 && ious.allSatisfy { $0 > 0.95 }, "\(ious)")
    }

    /// The IoUs with the truth of nine frames of a subject moving 3 px a frame, key frames every other frame, where
    /// key frame `wrong`'s cut misses the subject's left 8 columns (IoU 0.73 with the truth, above the gate).
    static func iousWithACutMissingPart(atKey wrong: Int) throws -> [Double] {
        let stage = AnimatedStickerStage(width: width, height: height, keyInterval: 2, outline: nil, target: nil,
                                         keepsMasks: true)
        let finished = try feed(stage, (0...8).map { 10 + 3 * $0 }) { k in
            var mask = frame(10 + 3 * k).1
            if k == wrong {
                for y in 0..<height { for x in 0..<(10 + 3 * k + 8) { mask.values[y * width + x] = 0 } }
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
            let stage = AnimatedStickerStage(width: Self.width, height: Self.height, keyInterval: 2, outline: nil,
                                             target: nil, keepsMasks: true, framesAreStickers: framesAreStickers)
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
        #expect(WaitingFrame(opaque, duration: 0.1).luma == MaskMotion.Luma(opaque))
        var seeThrough = opaque
        seeThrough[3, 4] = RGBA(r: 1, g: 2, b: 3, a: 40)
        let waiting = WaitingFrame(seeThrough, duration: 0.25)
        #expect(waiting.image == seeThrough && waiting.duration == 0.25)
        #expect(waiting.luma == MaskMotion.Luma(seeThrough))
    }

    @Test("The sink encodes batches in order and its first fitting attempt is the file when it fits")
    func sinkFirstAttempt() throws {
        let canvas = MessengerTarget.telegram.animatedCanvas(width: Self.width, height: Self.height)
        let sink = try AnimationSink(target: .telegram, canvas: canvas,
                                     output: AnimationSettings(format: .webm, width: 2, height: 2), maskSettings: nil)
        let stage = AnimatedStickerStage(width: Self.width, height: Self.height, keyInterval: 1, outline: nil,
                                         target: .telegram, keepsMasks: false)
        for k in 0..<6 {
            let (image, mask) = Self.frame(10 + 5 * k)
            try sink.add(try stage.addKey(image, duration: 1.0 / 12, mask: mask))
        }
        try sink.add(try stage.finishClip())
        var steps: [String] = []
        let (bytes, fit, mask) = try sink.finish(path: "t.webm") { steps.append($0) }
        let chosen = try #require(fit?.chosen)
        #expect(mask == nil && fit?.attempts.count == 1 && steps.count == 1, "\(steps)")
        #expect(chosen.frames == 6 && chosen.quality == 75 && bytes.count == chosen.bytes, "\(chosen.summary)")
        let decoded = try MotionDecoder(bytes: bytes)
        #expect(decoded.info.width == canvas.width && decoded.info.height == canvas.height, "\(decoded.info)")
    }
}
