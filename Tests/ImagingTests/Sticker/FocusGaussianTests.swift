import CKernels
import Foundation
import Testing
@testable import Imaging

/// The defocus cue's re-blur (C kernels) gives what its definition, the Swift loops it replaced, gives: bit for bit,
/// at every instruction-set level, on images narrower and shorter than the window and on wider ones.
@Suite(.serialized, .timeLimit(.minutes(10))) struct FocusGaussianTests {
    /// The Swift implementation before the kernels: each output summed from zero over the taps in order, edges
    /// clamped.
    static func reference(_ v: [Float], _ w: Int, _ h: Int, sigma: Float) -> [Float] {
        let r = max(1, Int((3 * sigma).rounded(.up)))
        var k = (-r...r).map { expf(-Float($0 * $0) / (2 * sigma * sigma)) }
        let total = k.reduce(0, +)
        k = k.map { $0 / total }
        var tmp = [Float](repeating: 0, count: w * h), out = tmp
        for y in 0..<h {
            for x in 0..<w {
                var s: Float = 0
                for d in -r...r { s += k[d + r] * v[y * w + min(w - 1, max(0, x + d))] }
                tmp[y * w + x] = s
            }
        }
        for y in 0..<h {
            for x in 0..<w {
                var s: Float = 0
                for d in -r...r { s += k[d + r] * tmp[min(h - 1, max(0, y + d)) * w + x] }
                out[y * w + x] = s
            }
        }
        return out
    }

    @Test(arguments: [(1, 1, Float(1)), (2, 5, 1), (7, 3, 1), (37, 23, 1), (70, 41, 2), (5, 90, 2.5)])
    func theKernelsFollowTheDefinition(size: (Int, Int, Float)) throws {
        let (w, h, sigma) = size
        var state = UInt64(w * 1000 + h)
        let v = (0..<(w * h)).map { _ -> Float in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Float(state >> 40) / Float(1 << 24) * 255
        }
        let expected = Self.reference(v, w, h, sigma: sigma)
        let supported = ck_supported_level()
        defer { ck_use_level(supported) }
        for level in CK_BASELINE...supported {
            ck_use_level(level)
            let got = try FocusFeatures.gaussian(v, w, h, sigma: sigma, on: .inTurn)
            let differing = zip(got, expected).filter { $0.bitPattern != $1.bitPattern }.count
            #expect(differing == 0, "\(w)x\(h) σ \(sigma) at level \(level): \(differing) differ; first \(got.prefix(4)) vs \(expected.prefix(4))")
        }
    }
}
