import Deadlines
import Foundation
import Glibc
import Testing
@testable import Imaging

@Suite("Video motion decoding", .timeLimit(.minutes(10)))
struct VideoMotionDecoderTests {
    @Test("H.264 in MP4, moov first or last: 12 frames at 1/12 s, close to the frames they were made from",
          arguments: ["pan.mp4", "pan-moov-at-end.mp4"])
    func h264(_ name: String) throws {
        let (info, frames) = try MotionCorpus.frames(name)
        #expect(info == MotionInfo(width: 96, height: 64, frameCount: 12, duration: 1, frameRate: 12, codec: "h264",
                                   container: "mp4", hasAlpha: false, loopCount: nil))
        #expect(frames.count == 12)
        for (k, frame) in frames.enumerated() {
            #expect(frame.index == k)
            #expect(abs(frame.time - Double(k) / 12) < 1e-6, "frame \(k) at \(frame.time)")
            #expect(abs(frame.duration - 1.0 / 12) < 1e-6, "frame \(k) lasts \(frame.duration)")
            #expect(frame.image.isOpaque)
        }
        // The pan moves 8 px per frame: frame k's column 8 is frame k+1's column 0.
        let a = frames[3].image, b = frames[4].image
        var moved = 0, still = 0
        for y in 0..<64 {
            for c in 0..<3 {
                moved += abs(Int(a[8, y].channel(c)) - Int(b[0, y].channel(c)))
                still += abs(Int(a[0, y].channel(c)) - Int(b[0, y].channel(c)))
            }
        }
        #expect(moved * 2 < still, "the pan: shifted difference \(moved), unshifted \(still)")
    }

    /// swscale's vector loops write whole blocks of pixels: converting straight into rows 90 pixels wide wrote past
    /// them and corrupted the heap (the worker aborted in malloc on a 360-pixel-wide clip).
    @Test("A clip whose width is no multiple of 8 decodes every frame, the same pan as its neighbours")
    func oddWidth() throws {
        let (info, frames) = try MotionCorpus.frames("odd-width.mp4")
        #expect(info.width == 90 && info.height == 60 && frames.count == 12, "\(info), \(frames.count) frames")
        for frame in frames {
            #expect(frame.image.width == 90 && frame.image.height == 60 && frame.image.isOpaque, "frame \(frame.index)")
        }
        // The same window as pan.mp4's (2 px lower, 6 narrower): the pictures agree where they overlap.
        let pan = try MotionCorpus.frames("pan.mp4").1
        var error = 0, count = 0
        for k in [0, 5, 11] {
            for y in 0..<58 {
                for x in 0..<90 {
                    for c in 0..<3 { error += abs(Int(frames[k].image[x, y].channel(c)) - Int(pan[k].image[x, y + 2].channel(c))) }
                    count += 3
                }
            }
        }
        #expect(Double(error) / Double(count) < 12, "mean difference \(Double(error) / Double(count))")
    }

    @Test("H.264, VP9 and VP8 of the cut-out clip decode close to the frames they were made from",
          arguments: [("cutout.mp4", "h264", "mp4"), ("cutout.webm", "vp9", "webm"), ("cutout.vp8.webm", "vp8", "webm")])
    func cutout(_ name: String, _ codec: String, _ container: String) throws {
        let (info, frames) = try MotionCorpus.frames(name)
        #expect(info.codec == codec && info.container == container, "\(info)")
        #expect(frames.count == 12)
        for (k, frame) in frames.enumerated() {
            let error = MotionCorpus.meanError(frame.image, try MotionCorpus.cutoutFrame(k))
            #expect(error < 12, "\(name) frame \(k): mean error \(error)")
        }
        // Against the wrong frame the error is much larger: the comparison can fail.
        let wrong = MotionCorpus.meanError(frames[0].image, try MotionCorpus.cutoutFrame(11))
        #expect(wrong > 20, "\(name): frame 0 against frame 11: \(wrong)")
    }

    @Test("WebM declares no frame count: the decoder says nil, info counts the packets")
    func webmCount() throws {
        let bytes = try MotionCorpus.bytes("cutout.webm")
        #expect(try MotionDecoder(bytes: bytes, on: .inTurn).info.frameCount == nil)
        let info = try MotionDecoder.info(bytes: bytes, on: .inTurn)
        #expect(info.frameCount == 12)
        #expect(info.duration == 1)
        #expect(info.frameRate == 12)
    }

    @Test("VP9 with alpha through libvpx: the frames' alpha follows the true masks")
    func vp9Alpha() throws {
        let (info, frames) = try MotionCorpus.frames("cutout-alpha.webm")
        #expect(info.hasAlpha)
        #expect(frames.count == 12)
        for (k, frame) in frames.enumerated() {
            let iou = MotionCorpus.alphaIoU(frame.image, try MotionCorpus.cutoutMask(k))
            #expect(iou > 0.85, "frame \(k): IoU \(iou)")
        }
    }

    @Test("HEVC in MOV with a 90-degree display matrix (alone, or beside an audio track as in a Live Photo): frames turned upright, info as displayed",
          arguments: ["zoom-hevc-rot90.mov", "live-photo.mov"])
    func rotation(_ name: String) throws {
        let (info, frames) = try MotionCorpus.frames(name)
        #expect(info == MotionInfo(width: 64, height: 96, frameCount: 12, duration: 1, frameRate: 12, codec: "hevc",
                                   container: "mov", hasAlpha: false, loopCount: nil, rotation: 90))
        #expect(frames.count == 12)
        let first = try #require(frames.first).image
        try #require(first.width == 64 && first.height == 96, "\(first.width)x\(first.height)")
        // Frame 0 is coffee.png at 96x64: turned clockwise it matches, turned the other way it does not.
        let coffee = try ImageCodec.decode(CodecCorpus.bytes("photos/coffee.png"), on: .inTurn).image
        let small = try Resampler.resize(coffee, width: 96, height: 64, on: .inTurn)
        let right = MotionCorpus.meanError(first, try Orientation.right.apply(to: small, on: .inTurn))
        let left = MotionCorpus.meanError(first, try Orientation.left.apply(to: small, on: .inTurn))
        #expect(right < 10 && left > 2 * right, "clockwise \(right), counter-clockwise \(left)")
    }

    @Test("a window seeks: the frames from the one showing at the start to the end of the window")
    func window() throws {
        let (_, frames) = try MotionCorpus.frames("pan.mp4", start: 0.5, duration: 0.25)
        #expect(frames.map { Int(($0.time * 12).rounded()) } == [6, 7, 8])
        #expect(frames.map(\.index) == [0, 1, 2])
        let (_, all) = try MotionCorpus.frames("pan.mp4")
        #expect(frames.map(\.image) == all[6...8].map(\.image))
    }

    @Test("read through a file descriptor: the same frames as from bytes")
    func fileDescriptor() throws {
        let fd = open(CodecCorpus.url("motion/zoom-hevc-rot90.mov").path, O_RDONLY)
        try #require(fd >= 0)
        let decoder = try MotionDecoder(fileDescriptor: fd, on: .inTurn)
        close(fd)  // the decoder holds its own duplicate
        var frames: [MotionFrame] = []
        while let frame = try decoder.next(on: .inTurn) { frames.append(frame) }
        let (_, fromBytes) = try MotionCorpus.frames("zoom-hevc-rot90.mov")
        #expect(frames.map(\.image) == fromBytes.map(\.image))
    }

    @Test("frames handed to another thread: the decoder is Sendable")
    func sendable() async throws {
        let decoder = try MotionDecoder(bytes: MotionCorpus.bytes("cutout.webm"), on: .inTurn)
        let count = try await Deadline.value(of: Task.detached {
            var n = 0
            while try decoder.next(on: .inTurn) != nil { n += 1 }
            return n
        }, "the frames decoded on another thread")
        #expect(count == 12)
    }

    @Test("limits: declared frames, duration and size refuse at open; undeclared frames at the first one past")
    func limits() throws {
        let pan = try MotionCorpus.bytes("pan.mp4")
        #expect(throws: MotionError.tooManyFrames(count: 12, limit: 5)) {
            _ = try MotionDecoder(bytes: pan, limits: MotionLimits(maxFrames: 5), on: .inTurn)
        }
        #expect(throws: MotionError.tooLong(seconds: 1, limit: 0.5)) {
            _ = try MotionDecoder(bytes: pan, limits: MotionLimits(maxDuration: 0.5), on: .inTurn)
        }
        #expect(throws: MotionError.tooLarge(width: 96, height: 64, limit: 1000)) {
            _ = try MotionDecoder(bytes: pan, limits: MotionLimits(maxPixels: 1000), on: .inTurn)
        }
        let webm = try MotionDecoder(bytes: MotionCorpus.bytes("cutout.webm"), limits: MotionLimits(maxFrames: 5), on: .inTurn)
        for _ in 0..<5 { #expect(try webm.next(on: .inTurn) != nil) }
        #expect(throws: MotionError.tooManyFrames(count: 6, limit: 5)) { _ = try webm.next(on: .inTurn) }
        #expect(try webm.next(on: .inTurn) == nil, "nothing after a refusal")
    }

    @Test("hostile files: refused with a precise error, or the frames that arrived",
          arguments: ["lying-size.mp4", "lying-duration.mp4", "truncated-moov-at-end.mp4", "not-a-video.mp4"])
    func hostile(_ name: String) throws {
        do {
            let (info, frames) = try MotionCorpus.frames("hostile/" + name)
            Issue.record("\(name) decoded: \(info), \(frames.count) frames")
        } catch let error as MotionError {
            switch (name, error) {
            case ("lying-size.mp4", .tooLarge(30000, 30000, _)), ("lying-duration.mp4", .tooLong),
                 ("truncated-moov-at-end.mp4", .indexMissing), ("not-a-video.mp4", .invalid): break
            default: Issue.record("\(name): \(error)")
            }
            #expect(!error.message.isEmpty)
        }
    }

    @Test("the duration limit holds the part decoded: a window within it is read from a longer clip")
    func durationLimitHoldsTheWindow() throws {
        let pan = try MotionCorpus.bytes("pan.mp4")  // 1 s
        let limits = MotionLimits(maxDuration: 0.5)
        #expect(throws: MotionError.tooLong(seconds: 1, limit: 0.5)) { _ = try MotionDecoder(bytes: pan, limits: limits, on: .inTurn) }
        #expect(throws: MotionError.windowTooLong(seconds: 0.75, limit: 0.5)) {
            _ = try MotionDecoder(bytes: pan, limits: limits, start: 0.25, on: .inTurn)
        }
        #expect(throws: MotionError.windowTooLong(seconds: 0.75, limit: 0.5)) {
            _ = try MotionDecoder(bytes: pan, limits: limits, duration: 0.75, on: .inTurn)
        }
        let window = try MotionDecoder(bytes: pan, limits: limits, start: 0.5, on: .inTurn)
        var frames = 0
        while try window.next(on: .inTurn) != nil { frames += 1 }
        #expect(frames == 6, "\(frames) frames in the last half second")
        // A window of exactly the limit starting between two frames (12 fps: 0.0833 s apart): its last frame runs past
        // its end, which is no reason to refuse a window the open let through.
        let between = try MotionDecoder(bytes: pan, limits: limits, start: 0.05, duration: 0.5, on: .inTurn)
        var inside = 0
        while try between.next(on: .inTurn) != nil { inside += 1 }
        #expect(inside == 7, "\(inside) frames from 0.05 s to 0.55 s")
        #expect(throws: MotionError.startPastEnd(start: 2, length: 1)) { _ = try MotionDecoder(bytes: pan, start: 2, on: .inTurn) }
    }

    @Test("a survey describes a clip over the limits and names them; a declared size over --max-pixels is not decoded")
    func surveyNamesTheLimits() throws {
        let pan = try MotionCorpus.bytes("pan.mp4")
        let survey = try MotionDecoder.survey(bytes: pan, limits: MotionLimits(maxFrames: 5, maxDuration: 0.5, maxPixels: 1000), on: .inTurn)
        #expect(survey.info.frameCount == 12 && survey.info.width == 96, "\(survey)")
        #expect(survey.exceeded.map(\.limit) == [.maxPixels, .maxFrames, .maxDurationSeconds], "\(survey.exceeded)")
        #expect(survey.exceeded.map(\.value) == [96 * 64, 12, 1], "\(survey.exceeded)")
        let lying = try MotionDecoder.survey(bytes: MotionCorpus.bytes("hostile/lying-size.mp4"), on: .inTurn)
        #expect(lying.info.width == 30000 && lying.info.codec == "h264", "\(lying)")
        #expect(lying.exceeded.first?.limit == .maxPixels, "\(lying.exceeded)")
        #expect(try MotionDecoder.survey(bytes: pan, on: .inTurn).exceeded.isEmpty)
    }

    @Test("errors in a person's words; the library's kept as the message")
    func plainWords() throws {
        do {
            _ = try MotionDecoder(bytes: MotionCorpus.bytes("hostile/truncated-moov-at-end.mp4"), on: .inTurn)
            Issue.record("a file without its index opened")
        } catch let error as MotionError {
            #expect(error.summary == "the file is cut off: its index (moov) is missing", "\(error)")
            #expect(error.isTruncated && error.reason == "cut-off" && error.message.contains("moov"), "\(error)")
        }
        #expect(MotionError.tooLong(seconds: 6.006, limit: 4).summary == "the clip is 6.0 s; this worker allows 4 s (--max-duration)")
        #expect(MotionError.tooManyFrames(count: 6, limit: 5).summary == "the clip has more than 5 frames; this worker allows 5 (--max-frames)")
    }

    @Test("truncated clips give the frames that arrived", arguments: ["truncated.mp4", "truncated.webm"])
    func truncated(_ name: String) throws {
        let (_, frames) = try MotionCorpus.frames("hostile/" + name)
        #expect(frames.count >= 1 && frames.count < 12, "\(name): \(frames.count) frames")
    }

    @Test("a still image or unknown bytes are not motion sources")
    func notMotion() throws {
        #expect(throws: MotionError.unknownFormat) { _ = try MotionDecoder(bytes: CodecCorpus.bytes("formats/girl.heic"), on: .inTurn) }
        #expect(throws: MotionError.unknownFormat) { _ = try MotionDecoder(bytes: CodecCorpus.bytes("photos/coffee.png"), on: .inTurn) }
    }
}

extension RGBA {
    fileprivate func channel(_ c: Int) -> UInt8 { c == 0 ? r : c == 1 ? g : b }
}

extension VideoMotionDecoderTests {
    @Test("Frames asked for smaller come out at that size, scaled while converted, close to resampling the full frame")
    func scaledFrames() throws {
        let decoder = try MotionDecoder(bytes: MotionCorpus.bytes("pan.mp4"), on: .inTurn)
        let full = try MotionDecoder(bytes: MotionCorpus.bytes("pan.mp4"), on: .inTurn)
        #expect(try decoder.scaleFrames(toWidth: 48, height: 32))
        var count = 0
        while let frame = try decoder.next(on: .inTurn), let reference = try full.next(on: .inTurn) {
            #expect(frame.image.width == 48 && frame.image.height == 32, "\(frame.image.width)x\(frame.image.height)")
            let resampled = try Resampler.resize(reference.image, width: 48, height: 32, on: .inTurn)
            let error = MotionCorpus.meanError(frame.image, resampled)
            #expect(error < 6, "frame \(count): mean error \(error) against the resampled full frame")
            #expect(frame.time == reference.time && frame.duration == reference.duration)
            count += 1
        }
        #expect(count == 12)
        // Larger than the source on a side: refused, the frames keep the source's size.
        let larger = try MotionDecoder(bytes: MotionCorpus.bytes("pan.mp4"), on: .inTurn)
        #expect(try larger.scaleFrames(toWidth: 192, height: 32) == false)
        #expect(try larger.next(on: .inTurn)?.image.width == 96)
    }

    @Test("A rotated clip is asked for its displayed size, and its frames come out upright at that size")
    func scaledRotated() throws {
        let decoder = try MotionDecoder(bytes: MotionCorpus.bytes("zoom-hevc-rot90.mov"), on: .inTurn)
        let upright = try MotionDecoder(bytes: MotionCorpus.bytes("zoom-hevc-rot90.mov"), on: .inTurn)
        #expect(decoder.info.width == 64 && decoder.info.height == 96, "\(decoder.info)")
        #expect(try decoder.scaleFrames(toWidth: 32, height: 48))
        let frame = try #require(try decoder.next(on: .inTurn))
        let reference = try #require(try upright.next(on: .inTurn))
        #expect(frame.image.width == 32 && frame.image.height == 48, "\(frame.image.width)x\(frame.image.height)")
        let error = MotionCorpus.meanError(frame.image, try Resampler.resize(reference.image, width: 32, height: 48, on: .inTurn))
        #expect(error < 6, "mean error \(error) against the resampled upright frame")
    }

    /// The animated sticker closes its decoder after the last frame, before the last key frame's cut and the encode: a
    /// 4K HEVC stream's reference frames were held beside them (bench/README.md).
    @Test("A decoder closed early releases its reader (the descriptor it duplicated), hands out no more frames and keeps its warnings")
    func closedEarly() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("closed-\(UUID().uuidString).mp4").path
        try Data(MotionCorpus.bytes("pan.mp4")).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        #expect(fd >= 0, "open \(path): errno \(errno)")
        defer { close(fd) }
        // Descriptors of this process open on the file: the caller's, and the reader's duplicate while it lives.
        func opened() -> Int {
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            return fds.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)) == path }.count
        }
        let decoder = try MotionDecoder(fileDescriptor: fd, on: .inTurn)
        #expect(try decoder.next(on: .inTurn) != nil)
        #expect(opened() == 2, "descriptors on the clip while reading: \(opened())")
        let warned = decoder.warnings
        decoder.close()
        #expect(opened() == 1, "descriptors on the clip after close: \(opened())")
        #expect(try decoder.next(on: .inTurn) == nil, "a frame after close")
        #expect(decoder.warnings == warned, "warnings after close: \(decoder.warnings), before: \(warned)")
        #expect(decoder.info.frameCount == 12, "\(decoder.info)")
    }
}
