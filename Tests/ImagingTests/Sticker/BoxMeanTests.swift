import CKernels
import Testing
@testable import Imaging

/// The box mean (a C kernel) gives what its definition, in Swift with the same summed-area table, gives: bit for
/// bit, at every instruction-set level, on windows clipped on any side and wider than the image.
@Suite(.serialized, .timeLimit(.minutes(10))) struct BoxMeanTests {
    /// The Swift engine's implementation before the kernel: the reference.
    static func reference(_ v: [Float], _ w: Int, _ h: Int, _ r: Int) -> [Float] {
        var sat = [Double](repeating: 0, count: (w + 1) * (h + 1))
        for y in 0..<h {
            var row = 0.0
            for x in 0..<w {
                row += Double(v[y * w + x])
                sat[(y + 1) * (w + 1) + x + 1] = sat[y * (w + 1) + x + 1] + row
            }
        }
        var out = [Float](repeating: 0, count: w * h)
        for y in 0..<h {
            let y0 = max(0, y - r), y1 = min(h, y + r + 1)
            for x in 0..<w {
                let x0 = max(0, x - r), x1 = min(w, x + r + 1)
                let s = sat[y1 * (w + 1) + x1] - sat[y0 * (w + 1) + x1] - sat[y1 * (w + 1) + x0] + sat[y0 * (w + 1) + x0]
                out[y * w + x] = Float(s / Double((y1 - y0) * (x1 - x0)))
            }
        }
        return out
    }

    @Test(arguments: [(1, 1, 0), (1, 7, 2), (9, 4, 1), (37, 23, 2), (50, 31, 7), (12, 12, 20), (480, 3, 3)])
    func theKernelFollowsTheDefinition(size: (Int, Int, Int)) {
        let (w, h, r) = size
        var state: UInt64 = UInt64(w * 1000 + h * 10 + r)
        let v = (0..<(w * h)).map { _ -> Float in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Float(state >> 40) / Float(1 << 24) * 3 - 1
        }
        let expected = Self.reference(v, w, h, r)
        let supported = ck_supported_level()
        defer { ck_use_level(supported) }
        for level in CK_BASELINE...supported {
            ck_use_level(level)
            let got = MaskUpsampler.boxMean(v, w, h, r)
            let differing = zip(got, expected).filter { $0.bitPattern != $1.bitPattern }.count
            #expect(differing == 0, "\(w)x\(h) r \(r) at level \(level): \(differing) differ; first \(got.prefix(4)) vs \(expected.prefix(4))")
        }
    }
}
