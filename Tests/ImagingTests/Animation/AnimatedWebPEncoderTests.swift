import CCodecs
import Testing
@testable import Imaging

/// Frame `index` of an animated WebP read back with libwebpdemux: the composited canvas, its end time in ms, the
/// frame and loop counts.
func decodeWebPFrame(_ bytes: [UInt8], _ index: Int, width: Int, height: Int)
    -> (image: Image, endMs: Int, frames: Int, loops: Int)?
{
    var rgba = [UInt8](repeating: 0, count: width * height * 4)
    var w: UInt32 = 0, h: UInt32 = 0, frames: Int32 = 0, loops: Int32 = 0, end: Int32 = 0
    let status = bytes.withUnsafeBufferPointer { data in
        rgba.withUnsafeMutableBufferPointer { out in
            cc_webp_anim_frame_at(data.baseAddress, data.count, Int32(index), out.baseAddress, out.count,
                                      &w, &h, &frames, &loops, &end)
        }
    }
    guard status == CC_OK, Int(w) == width, Int(h) == height else { return nil }
    return (Image(width: width, height: height, pixels: rgba), Int(end), Int(frames), Int(loops))
}

@Suite("Animated WebP encoder", .timeLimit(.minutes(10)))
struct AnimatedWebPEncoderTests {
    @Test("Every frame comes back close, alpha kept, timestamps in ms, looping forever")
    func roundTrip() throws {
        let durations = [0.04, 0.1, 0.0333]
        let bytes = try encodeMovingSquare(.webp, count: 7, durations: durations, quality: 90)
        #expect(ImageCodec.sniff(bytes) == .webp)
        var end = 0.0
        for i in 0..<7 {
            let frame = try #require(decodeWebPFrame(bytes, i, width: 64, height: 48), "frame \(i)")
            end += durations[i % 3]
            #expect(frame.frames == 7 && frame.loops == 0, "\(frame.frames) frames, \(frame.loops) loops")
            #expect(frame.endMs == Int((end * 1000).rounded()), "frame \(i) ends at \(frame.endMs) ms")
            let source = movingSquareFrame(i)
            #expect(meanDifference(source, frame.image, channel: 3) <= 2, "frame \(i) alpha")
            let opaque = { (p: RGBA) in p.a == 255 }
            for c in 0..<3 {
                #expect(meanDifference(source, frame.image, channel: c, where: opaque) <= 12, "frame \(i) channel \(c)")
            }
        }
    }

    @Test("Lower quality gives a smaller file")
    func quality() throws {
        let high = try encodeMovingSquare(.webp, count: 5, durations: [0.05], quality: 95, width: 128, height: 96)
        let low = try encodeMovingSquare(.webp, count: 5, durations: [0.05], quality: 20, width: 128, height: 96)
        #expect(low.count < high.count, "quality 20 \(low.count) bytes, 95 \(high.count)")
    }
}
