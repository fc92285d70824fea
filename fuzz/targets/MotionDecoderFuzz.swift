// libFuzzer target: MotionDecoder.info + every frame through MotionDecoder on one kind of motion source, with
// small limits. Links the instrumented Imaging module that fuzz/run.sh builds once; FUZZ_MOTION_WEBP or
// FUZZ_MOTION_VIDEO selects the kind at compile time, otherwise it is the GIF one.
import Imaging

// Inputs that do not start with the kind's magic get it prepended, so the mutator spends its time inside giflib,
// libwebpdemux or FFmpeg's demuxers instead of in the sniffer. For video the first byte picks the container: an
// ISO file (mp4/mov) or Matroska.

#if FUZZ_MOTION_WEBP
private let magics: [[UInt8]] = [Array("RIFF".utf8)]
#elseif FUZZ_MOTION_VIDEO
private let magics: [[UInt8]] = [[0, 0, 0, 0x18] + Array("ftypisom".utf8) + [0, 0, 2, 0] + Array("isomiso2".utf8),
                                 [0x1A, 0x45, 0xDF, 0xA3]]
#else
private let magics: [[UInt8]] = [Array("GIF89a".utf8)]
#endif

/// 1 Mpx per frame, 64 frames, 60 s: enough for the seeds, small enough to keep executions fast and to reach the
/// limits' refusals.
private let fuzzLimits = MotionLimits(maxFrames: 64, maxDuration: 60, maxPixels: 1 << 20)

@_cdecl("LLVMFuzzerTestOneInput")
public func motionDecoderFuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    guard let start, count > 0 else { return 0 }
    var bytes = Array(UnsafeBufferPointer(start: start, count: count))
    let magic = magics[Int(bytes[0]) % magics.count]
    if !magics.contains(where: { bytes.starts(with: $0) }) { bytes = magic + bytes }
    let info = try? MotionDecoder.info(bytes: bytes, limits: fuzzLimits, on: .inTurn)
    do {
        // Bit 0 of the length asks for a window, so the seek paths run too.
        let windowed = count & 1 == 1
        let decoder = try MotionDecoder(bytes: bytes, limits: fuzzLimits, start: windowed ? 0.2 : 0,
                                        duration: windowed ? 0.5 : nil, on: .inTurn)
        // A window is checked against the frames it hands out, not the whole source's declared duration.
        precondition(windowed || info != nil, "a decoder opened where info failed")
        var frames = 0
        while let frame = try decoder.next(on: .inTurn) {
            precondition(frame.image.width == decoder.info.width && frame.image.height == decoder.info.height,
                         "a frame of another size than the info says")
            precondition(frame.image.pixels.count == frame.image.width * frame.image.height * 4)
            precondition(frame.image.pixelCount <= fuzzLimits.maxPixels, "a frame over the pixel limit")
            precondition(frame.index == frames, "frames out of order")
            precondition(frame.duration >= 0 && frame.time.isFinite, "a frame without a time")
            frames += 1
            precondition(frames <= fuzzLimits.maxFrames, "more frames than the limit")
        }
        _ = decoder.warnings
    } catch {
        // Every failure must be a typed MotionError (no cancellation here).
        precondition(error is MotionError, "untyped error \(type(of: error)): \(error)")
    }
    return 0
}
