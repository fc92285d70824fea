import CCodecs
import CWebMInspection
import Testing
@testable import Imaging

/// A WebM read back through the shim (libavformat, libvpx-vp9 with its alpha): facts and frame `index`'s planes.
func inspectWebM(_ bytes: [UInt8], frame index: Int, width: Int, height: Int)
    throws -> (facts: cwi_webm_facts, alpha: [UInt8], luma: [UInt8])
{
    var facts = cwi_webm_facts()
    var alpha = [UInt8](repeating: 0, count: width * height), luma = alpha
    var error = [CChar](repeating: 0, count: 256)
    let status = bytes.withUnsafeBufferPointer { data in
        alpha.withUnsafeMutableBufferPointer { a in
            luma.withUnsafeMutableBufferPointer { l in
                cwi_webm_inspect(data.baseAddress, data.count, Int32(index), a.baseAddress, l.baseAddress, a.count,
                                &facts, &error, error.count)
            }
        }
    }
    guard status == CC_OK else {
        throw ImagingError.invalidImage(format: .png, message: String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
    return (facts, alpha, luma)
}

@Suite("WebM encoder", .timeLimit(.minutes(10)))
struct WebMEncoderTests {
    @Test("VP9 with alpha_mode 1: every frame, its time, its alpha; no audio")
    func roundTrip() throws {
        let durations = [0.04, 0.1, 0.0333]
        let bytes = try encodeMovingSquare(.webm, count: 7, durations: durations, quality: 80)
        var start = 0.0
        for i in 0..<7 {
            let (facts, alpha, _) = try inspectWebM(bytes, frame: i, width: 64, height: 48)
            #expect(facts.video_streams == 1 && facts.audio_streams == 0)
            #expect(facts.frames == 7, "\(facts.frames) frames")
            #expect(facts.alpha_mode == 1 && facts.has_alpha_plane == 1)
            #expect(facts.width == 64 && facts.height == 48)
            #expect(withUnsafeBytes(of: facts.codec) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) } == "vp9")
            #expect(facts.pts_ms == Int64((start * 1000).rounded()), "frame \(i) at \(facts.pts_ms) ms")
            start += durations[i % 3]
            let source = movingSquareFrame(i)
            var diff = 0
            for k in 0..<alpha.count { diff += abs(Int(alpha[k]) - Int(source.pixels[k * 4 + 3])) }
            #expect(Double(diff) / Double(alpha.count) < 6, "frame \(i) alpha error \(Double(diff) / Double(alpha.count))")
            #expect(alpha[24 * 64 + 4 + i * 3 + 10] > 230 && alpha[2 * 64 + 60] < 20, "frame \(i) alpha inside/outside")
        }
        let (facts, _, _) = try inspectWebM(bytes, frame: 0, width: 64, height: 48)
        #expect(abs(facts.duration_ms - Int64((start * 1000).rounded())) <= 1, "duration \(facts.duration_ms) ms")
    }

    @Test("Lower quality gives a smaller file; odd sides are refused")
    func quality() throws {
        let high = try encodeMovingSquare(.webm, count: 6, durations: [0.05], quality: 95, width: 128, height: 96)
        let low = try encodeMovingSquare(.webm, count: 6, durations: [0.05], quality: 10, width: 128, height: 96)
        #expect(low.count < high.count, "quality 10 \(low.count) bytes, 95 \(high.count)")
        #expect(throws: ImagingError.self) { try AnimationSettings(format: .webm, width: 63, height: 48).makeEncoder() }
    }
}
