import Testing
@testable import Imaging

@Suite("GIF motion decoding", .timeLimit(.minutes(10)))
struct GIFMotionDecoderTests {
    @Test("every frame of a GIF, composited, with its delays; no NETSCAPE2.0 block means no loop count")
    func cutout() throws {
        let (info, frames) = try MotionCorpus.frames("cutout.gif")
        #expect(frames.count == 12)
        #expect(frames.map(\.index) == Array(0..<12))
        // ffmpeg writes 1/12 s as delays of 8 and 9 centiseconds.
        #expect(frames.allSatisfy { $0.duration == 0.08 || $0.duration == 0.09 }, "\(frames.map(\.duration))")
        var time = 0.0
        for (k, frame) in frames.enumerated() {
            #expect(abs(frame.time - time) < 1e-9, "frame \(k) at \(frame.time), expected \(time)")
            time += frame.duration
            // ffmpeg's encoder leaves unchanged pixels transparent over the previous frame: composited, every
            // frame is whole and opaque, and close to the frame it was made from (64 colours, undithered).
            #expect(frame.image.isOpaque, "frame \(k)")
            let error = MotionCorpus.meanError(frame.image, try MotionCorpus.cutoutFrame(k))
            #expect(error < 8, "frame \(k): mean error \(error)")
        }
        #expect(info == MotionInfo(width: 96, height: 64, frameCount: 12, duration: (time * 100).rounded() / 100,
                                   frameRate: nil, codec: "gif", container: "gif", hasAlpha: true, loopCount: nil))
    }

    @Test("loop counts: 3, and 0 for forever")
    func loops() throws {
        #expect(try MotionDecoder.info(bytes: MotionCorpus.bytes("loop3.gif"), on: .inTurn).loopCount == 3)
        #expect(try MotionDecoder.info(bytes: MotionCorpus.bytes("endless.gif"), on: .inTurn).loopCount == 0)
    }

    @Test("disposal: none keeps, background clears to transparent, previous restores; transparency shows what is under",
          arguments: [("none", RGBA(r: 0, g: 255, b: 0, a: 255)), ("background", RGBA(r: 0, g: 0, b: 0, a: 0)),
                      ("previous", RGBA(r: 255, g: 0, b: 0, a: 255))])
    func disposal(_ mode: String, _ expected: RGBA) throws {
        let (info, frames) = try MotionCorpus.frames("disposal-\(mode).gif")
        #expect(info.hasAlpha)
        try #require(frames.count == 3)
        let red = RGBA(r: 255, g: 0, b: 0, a: 255), green = RGBA(r: 0, g: 255, b: 0, a: 255)
        let blue = RGBA(r: 0, g: 0, b: 255, a: 255)
        #expect(frames[0].image[3, 3] == red)
        #expect(frames[1].image[3, 3] == green)
        #expect(frames[1].image[0, 0] == red)
        #expect(frames[2].image[3, 3] == expected, "after frame 1's disposal \(mode): \(frames[2].image[3, 3])")
        #expect(frames[2].image[0, 0] == red, "a transparent pixel shows what was under it")
        #expect(frames[2].image[1, 0] == blue)
        #expect(frames[2].image[7, 7] == red)
        #expect(frames.map(\.duration) == [0.1, 0.2, 0.3])
        #expect(frames.map(\.time) == [0, 0.1, 0.30000000000000004])
    }

    @Test("delays under 20 ms play as 100 ms, as browsers play them")
    func fastDelays() throws {
        let (info, frames) = try MotionCorpus.frames("fast-delays.gif")
        #expect(frames.map(\.duration) == [0.1, 0.1, 0.02])
        #expect(info.duration == 0.22)
        #expect(info.frameRate == nil, "delays differ: no single rate")
    }

    @Test("a truncated GIF gives the frames and rows that arrived, the last marked truncated")
    func truncated() throws {
        let (info, frames) = try MotionCorpus.frames("hostile/truncated.gif")
        #expect(info.frameCount == 6, "the descriptors that arrived")
        #expect(frames.count == 6)
        #expect(frames.last?.truncated == true)
        #expect(frames.dropLast().allSatisfy { !$0.truncated })
    }

    @Test("a GIF without any colour map reads as a grey ramp, as a motion source and as a still")
    func noColorMap() throws {
        let bytes = try MotionCorpus.bytes("hostile/no-colormap.gif")
        let (_, frames) = try MotionCorpus.frames("hostile/no-colormap.gif")
        let still = try ImageCodec.decode(bytes, on: .inTurn).image
        let ramp: [RGBA] = (0..<16).map { (i: Int) -> RGBA in
            let grey = UInt8(i * 17)
            return RGBA(r: grey, g: grey, b: grey, a: 255)
        }
        for image in [try #require(frames.first).image, still] {
            let row: [RGBA] = (0..<16).map { image[$0, 0] }
            #expect(row == ramp)
        }
    }

    @Test("frames over the limit are refused at open, from the records alone")
    func frameLimit() throws {
        let bytes = try MotionCorpus.bytes("hostile/many-frames.gif")
        #expect(throws: MotionError.tooManyFrames(count: 101, limit: 100)) {
            _ = try MotionDecoder(bytes: bytes, limits: MotionLimits(maxFrames: 100), on: .inTurn)
        }
        let info = try MotionDecoder.info(bytes: bytes, on: .inTurn)
        #expect(info.frameCount == 1000)
        #expect(abs((info.duration ?? 0) - 20) < 1e-9)
        #expect(throws: MotionError.tooLong(seconds: 20, limit: 10)) {
            _ = try MotionDecoder(bytes: bytes, limits: MotionLimits(maxDuration: 10), on: .inTurn)
        }
        #expect(throws: MotionError.tooLarge(width: 96, height: 64, limit: 1000)) {
            _ = try MotionDecoder(bytes: MotionCorpus.bytes("cutout.gif"), limits: MotionLimits(maxPixels: 1000), on: .inTurn)
        }
    }

    @Test("a window: frames that end before the start are skipped, frames after its end not decoded")
    func window() throws {
        let (_, all) = try MotionCorpus.frames("cutout.gif")
        let (_, frames) = try MotionCorpus.frames("cutout.gif", start: 0.3, duration: 0.3)
        let expected = all.filter { $0.time + $0.duration > 0.3 && $0.time < 0.6 }
        #expect(frames.map(\.time) == expected.map(\.time))
        #expect(frames.map(\.index) == Array(0..<expected.count))
        #expect(frames.count >= 3 && frames[0].time <= 0.3 && frames[frames.count - 1].time < 0.6, "\(frames.map(\.time))")
        #expect(frames.map(\.image) == expected.map(\.image))
    }
}
