import Testing
@testable import Imaging

@Suite("WebP motion decoding", .timeLimit(.minutes(10)))
struct WebPMotionDecoderTests {
    @Test("every frame of a lossless animated WebP equals the frame it was made from")
    func cutout() throws {
        let (info, frames) = try MotionCorpus.frames("cutout.webp")
        #expect(info.width == 96 && info.height == 64 && info.frameCount == 12 && info.frameRate == nil
                && info.codec == "webp" && info.container == "webp" && info.loopCount == 0, "\(info)")
        #expect(abs((info.duration ?? 0) - 12 * 0.083) < 1e-9, "\(info)")
        #expect(frames.count == 12)
        for (k, frame) in frames.enumerated() {
            #expect(frame.index == k)
            #expect(abs(frame.time - Double(k) * 0.083) < 1e-9, "frame \(k) at \(frame.time)")
            #expect(abs(frame.duration - 0.083) < 1e-9)
            let made = try MotionCorpus.cutoutFrame(k)
            #expect(frame.image == made, "frame \(k): mean error \(MotionCorpus.meanError(frame.image, made))")
        }
    }

    @Test("alpha is kept: each frame's alpha is the true mask")
    func alpha() throws {
        let (info, frames) = try MotionCorpus.frames("cutout-alpha.webp")
        #expect(info.hasAlpha)
        #expect(frames.count == 12)
        for (k, frame) in frames.enumerated() {
            let mask = try MotionCorpus.cutoutMask(k)
            let alpha = stride(from: 3, to: frame.image.pixels.count, by: 4).map { frame.image.pixels[$0] }
            #expect(alpha == mask, "frame \(k): IoU \(MotionCorpus.alphaIoU(frame.image, mask))")
        }
    }

    @Test("a still WebP is one frame; a truncated animation is refused")
    func stillAndTruncated() throws {
        let (info, frames) = try MotionCorpus.frames("../formats/girl-lossy.webp")
        #expect(info.frameCount == 1 && frames.count == 1)
        #expect(info.loopCount == nil)
        #expect(throws: MotionError.self) { _ = try MotionCorpus.frames("hostile/truncated.webp") }
        do {
            _ = try MotionCorpus.frames("hostile/truncated.webp")
        } catch let error as MotionError {
            guard case .truncated = error else { Issue.record("\(error)"); return }
        }
    }

    @Test("frame and duration limits refuse at open")
    func limits() throws {
        let bytes = try MotionCorpus.bytes("cutout.webp")
        #expect(throws: MotionError.tooManyFrames(count: 12, limit: 11)) {
            _ = try MotionDecoder(bytes: bytes, limits: MotionLimits(maxFrames: 11), on: .inTurn)
        }
        do {
            _ = try MotionDecoder(bytes: bytes, limits: MotionLimits(maxDuration: 0.5), on: .inTurn)
            Issue.record("a 0.996 s animation passed a 0.5 s limit")
        } catch let error as MotionError {
            guard case .tooLong(let seconds, 0.5) = error, abs(seconds - 0.996) < 1e-9 else { Issue.record("\(error)"); return }
        }
        #expect(throws: MotionError.tooLarge(width: 96, height: 64, limit: 6143)) {
            _ = try MotionDecoder(bytes: bytes, limits: MotionLimits(maxPixels: 6143), on: .inTurn)
        }
    }
}
