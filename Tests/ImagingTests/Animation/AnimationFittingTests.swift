import Testing
@testable import Imaging

@Suite("Animation fitting", .timeLimit(.minutes(10)))
struct AnimationFittingTests {
    func clip(frames: Int = 20, fps: Double = 20) throws -> FrameSpool {
        var spool = FrameSpool(width: 96, height: 96)
        for i in 0..<frames { try spool.append(StickerLikeClip.frame(i), duration: 1 / fps, on: .inTurn) }
        return spool
    }

    @Test("Quality is stepped first: a limit between two qualities' sizes is met by the lower one")
    func qualityFirst() throws {
        let spool = try clip()
        let settings = AnimationSettings(format: .webp, width: 96, height: 96)
        let open = try AnimationFitting(settings: settings, maxBytes: .max, probeFrames: nil).fit(spool, fps: nil, length: 1, on: .inTurn)
        #expect(open.attempts.count == 1 && open.chosen.quality == 85)
        let fitting = AnimationFitting(settings: settings, maxBytes: open.bytes.count - 1, probeFrames: nil)
        let result = try fitting.fit(spool, fps: nil, length: 1, on: .inTurn)
        #expect(result.attempts.count == 2 && result.chosen.quality == 70, "\(result.attempts.map(\.summary))")
        #expect(result.bytes.count <= open.bytes.count - 1 && result.chosen.fits)
        #expect(result.chosen.frames == 20 && abs(result.chosen.fps - 20) < 1e-9 && result.chosen.length == 1)
    }

    @Test("Then the frame rate, then the length; nothing fitting names the limit and the smallest size")
    func ladder() throws {
        let spool = try clip(frames: 40, fps: 20)
        let settings = AnimationSettings(format: .webp, width: 96, height: 96)
        let fitting = AnimationFitting(settings: settings, maxBytes: 10, qualities: [80, 40], frameRates: [10, 5],
                                       lengths: [1], probeFrames: nil)
        #expect {
            try fitting.fit(spool, fps: nil, length: 2, on: .inTurn)
        } throws: { error in
            guard let tooLarge = error as? AnimationFitting.TooLarge else { return false }
            let steps = tooLarge.attempts.map { "\($0.quality)@\(Int($0.fps.rounded()))x\($0.length)" }
            // The levels after the first start at the quality the sizes before predict could fit: the lowest.
            let expected = ["80@20x2.0", "40@20x2.0", "40@10x2.0", "40@5x2.0", "40@5x1.0"]
            guard steps == expected else { Issue.record("steps \(steps)"); return false }
            return tooLarge.limit == 10 && tooLarge.smallest == tooLarge.attempts.map(\.bytes).min()
                && tooLarge.attempts.last!.frames == 5
        }
    }

    @Test("Probing the first frames skips the encodings they predict too large, and the file still fits")
    func probing() throws {
        let spool = try clip(frames: 60, fps: 20)
        let settings = AnimationSettings(format: .webp, width: 96, height: 96)
        let plain = AnimationFitting(settings: settings, maxBytes: 15_000, probeFrames: nil)
        let probed = AnimationFitting(settings: settings, maxBytes: 15_000, probeFrames: 10)
        let a = try plain.fit(spool, fps: nil, length: 3, on: .inTurn), b = try probed.fit(spool, fps: nil, length: 3, on: .inTurn)
        #expect(a.bytes.count <= 15_000 && b.bytes.count <= 15_000 && b.chosen.fits)
        #expect(b.attempts.count < a.attempts.count,
                "probed \(b.attempts.map(\.summary)), plain \(a.attempts.map(\.summary))")
    }

    @Test("An encoding made as the frames came is the first attempt when it is that attempt, and only then")
    func encodedFirst() throws {
        let spool = try clip()
        let settings = AnimationSettings(format: .webp, width: 96, height: 96)
        let fitting = AnimationFitting(settings: settings, maxBytes: .max, probeFrames: nil)
        // Stand-in bytes: taken as they are, they show the spool was not encoded again.
        let made = AnimationFitting.Encoded(bytes: [1, 2, 3], frames: 20, quality: 85)
        let taken = try fitting.fit(spool, fps: nil, length: 1, encoded: made, on: .inTurn)
        #expect(taken.bytes == [1, 2, 3] && taken.attempts.count == 1 && taken.chosen.frames == 20,
                "\(taken.attempts.map(\.summary))")
        // Another rate, a shorter length, another quality or another frame count: encoded afresh.
        let others = [
            try fitting.fit(spool, fps: 10, length: 1, encoded: made, on: .inTurn),
            try fitting.fit(spool, fps: nil, length: 0.5, encoded: made, on: .inTurn),
            try fitting.fit(spool, fps: nil, length: 1, encoded: .init(bytes: [1, 2, 3], frames: 20, quality: 70), on: .inTurn),
            try fitting.fit(spool, fps: nil, length: 1, encoded: .init(bytes: [1, 2, 3], frames: 19, quality: 85), on: .inTurn),
        ]
        for other in others { #expect(other.bytes.count > 3, "\(other.attempts.map(\.summary))") }
        // Over the limit, the next attempts are encoded as before.
        let tight = AnimationFitting(settings: settings, maxBytes: 2, qualities: [85, 40], frameRates: [], lengths: [],
                                     probeFrames: nil)
        #expect(throws: AnimationFitting.TooLarge.self) { try tight.fit(spool, fps: nil, length: 1, encoded: made, on: .inTurn) }
    }
}
