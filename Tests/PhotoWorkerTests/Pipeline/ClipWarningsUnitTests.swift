import Imaging
import Testing
@testable import PhotoWorker

/// `ClipWarnings`: each fact that changed what was asked, in words, and none when nothing did.
@Suite("Clip warnings", .timeLimit(.minutes(10)))
struct ClipWarningsUnitTests {
    static func facts() -> ClipWarnings.Facts {
        var f = ClipWarnings.Facts(sourceWidth: 1920, sourceHeight: 1080, cutLongSide: 512, declaredDuration: 3,
                                   declaredFrameRate: 30, start: 0, duration: nil, fps: nil, target: .telegram,
                                   outputFrameRate: nil)
        (f.framesRead, f.readUntil, f.framesOut) = (90, 3, 90)
        (f.firstQuality, f.madeFrameRate, f.madeDuration) = (75, 30, 3)
        f.chosen = AnimationFitting.Attempt(quality: 75, fps: 30, length: 3, frames: 90, bytes: 100_000, fits: true)
        return f
    }

    @Test("Nothing changed: nothing said")
    func nothing() {
        #expect(ClipWarnings.warnings(Self.facts()).isEmpty, "\(ClipWarnings.warnings(Self.facts()))")
    }

    @Test("Each fact in words")
    func eachFact() {
        var f = Self.facts()
        (f.framesRead, f.readUntil) = (9, 0.3)
        f.declaredDuration = 6
        (f.sourceWidth, f.sourceHeight) = (16, 16)
        (f.declaredFrameRate, f.outputFrameRate) = (60, 30)
        f.chosen = AnimationFitting.Attempt(quality: 40, fps: 15, length: 2, frames: 30, bytes: 250_000, fits: true)
        f.framesWithoutSubject = 4
        f.decoderMessages = Array(repeating: "[h264 @ 0x1] error while decoding MB 3 4", count: 3) + ["a", "b", "c", "d", "e"]
        let said = ClipWarnings.warnings(f)
        #expect(said == [
            "the clip stops at 0.3 s though it declares 6.0 s: it may be cut off (9 frames read)",
            "the clip is 6.0 s from its start; telegram takes at most 3 s, so its first 3 s were used (give start to choose another part)",
            "the 16x16 source was scaled up 32.0x to 512 px on its long side (give size to cut it smaller)",
            "the source's 60.0 fps was resampled to 30 fps",
            "quality lowered from 75 to 40 to fit telegram's 256 KB",
            "frame rate lowered from 30.0 to 15.0 fps to fit telegram's 256 KB",
            "cut to 2.0 s of 3.0 s to fit telegram's 256 KB",
            "no subject was found in 4 of 90 frames (they are left clear)",
            "decoder: [h264 @ 0x1] error while decoding MB 3 4", "decoder: a", "decoder: b", "decoder: c", "decoder: d",
            "the decoder said more (8 messages in all)",
        ], "\(said)")
    }

    @Test("A duration asked for is not a trim, and a clip that ends where it says is not cut off")
    func askedIsNotChanged() {
        var f = Self.facts()
        (f.declaredDuration, f.duration) = (10, 2)
        (f.readUntil, f.madeDuration) = (2, 2)
        f.chosen = AnimationFitting.Attempt(quality: 75, fps: 30, length: 2, frames: 60, bytes: 100_000, fits: true)
        #expect(ClipWarnings.warnings(f).isEmpty, "\(ClipWarnings.warnings(f))")
    }
}
