import Compute
import CKernels
import Testing
@testable import Imaging

/// The guided upsampling's fit and full-resolution pass (C kernels) give the masks the Swift definition gives, bit
/// for bit, at every instruction-set level: soft masks and colours with flat, textured and near-singular windows,
/// enlargements by whole and uneven factors.
@Suite(.serialized, .timeLimit(.minutes(10))) struct GuidedUpsamplingKernelTests {
    /// The guided filter's window statistics, each plane through `box`: the means of p and of I's channels, of
    /// I·p per channel, and of the six distinct entries of I·Iᵀ (rr, rg, rb, gg, gb, bb).
    static func windowStatistics(mask: [Float], guide: [Float], box: ([Float]) -> [Float])
        -> (meanP: [Float], meanI: [[Float]], corrIP: [[Float]], corrII: [[Float]]) {
        let n = mask.count
        func plane(_ f: (Int) -> Float) -> [Float] { box((0..<n).map(f)) }
        let meanP = box(mask)
        var meanI: [[Float]] = [], corrIP: [[Float]] = []
        for c in 0..<3 {
            meanI.append(plane { guide[3 * $0 + c] })
            corrIP.append(plane { guide[3 * $0 + c] * mask[$0] })
        }
        let pairs = [(0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2)]
        let corrII = pairs.map { (c, d) in plane { guide[3 * $0 + c] * guide[3 * $0 + d] } }
        return (meanP, meanI, corrIP, corrII)
    }

    /// The Swift implementation before the kernels, with the reference box mean.
    static func reference(mask: [Float], guide: [Float], width w: Int, height h: Int, to image: Image, radius: Int,
                          epsilon: Float, level: Float) -> [UInt8] {
        let n = w * h
        func box(_ v: [Float]) -> [Float] { BoxMeanTests.reference(v, w, h, radius) }
        let (meanP, meanI, corrIP, corrII) = windowStatistics(mask: mask, guide: guide, box: box)
        var a = [[Float]](repeating: [Float](repeating: 0, count: n), count: 3)
        var b = [Float](repeating: 0, count: n)
        for i in 0..<n {
            let m0 = meanI[0][i], m1 = meanI[1][i], m2 = meanI[2][i], mp = meanP[i]
            let s00 = Double(corrII[0][i] - m0 * m0 + epsilon), s01 = Double(corrII[1][i] - m0 * m1)
            let s02 = Double(corrII[2][i] - m0 * m2), s11 = Double(corrII[3][i] - m1 * m1 + epsilon)
            let s12 = Double(corrII[4][i] - m1 * m2), s22 = Double(corrII[5][i] - m2 * m2 + epsilon)
            let v0 = Double(corrIP[0][i] - m0 * mp), v1 = Double(corrIP[1][i] - m1 * mp), v2 = Double(corrIP[2][i] - m2 * mp)
            let c00 = s11 * s22 - s12 * s12, c01 = s02 * s12 - s01 * s22, c02 = s01 * s12 - s02 * s11
            let c11 = s00 * s22 - s02 * s02, c12 = s01 * s02 - s00 * s12, c22 = s00 * s11 - s01 * s01
            let det = s00 * c00 + s01 * c01 + s02 * c02
            guard det > 1e-18 else { b[i] = mp; continue }
            let a0 = Float((c00 * v0 + c01 * v1 + c02 * v2) / det)
            let a1 = Float((c01 * v0 + c11 * v1 + c12 * v2) / det)
            let a2 = Float((c02 * v0 + c12 * v1 + c22 * v2) / det)
            a[0][i] = a0; a[1][i] = a1; a[2][i] = a2
            b[i] = mp - a0 * m0 - a1 * m1 - a2 * m2
        }
        let meanA = a.map(box), meanB = box(b)
        let W = image.width, H = image.height
        let enlarger = PlaneResampler.RowEnlarger(width: w, height: h, targetWidth: W, targetHeight: H)
        var rows = [[Float]](repeating: [Float](repeating: 0, count: W), count: 4)
        var out = [UInt8](repeating: 0, count: W * H)
        for y in 0..<H {
            for (p, plane) in (meanA + [meanB]).enumerated() {
                plane.withUnsafeBufferPointer { enlarger.row(y, of: $0, into: &rows[p]) }
            }
            for x in 0..<W {
                let i = y * W + x
                let dot = rows[0][x] * Float(image.pixels[4 * i]) + rows[1][x] * Float(image.pixels[4 * i + 1])
                    + rows[2][x] * Float(image.pixels[4 * i + 2])
                out[i] = rows[3][x] + dot * (1 / 255) >= level ? 255 : 0
            }
        }
        return out
    }

    /// Inline and in a piece of a two-thread pool (whose idle thread takes planes and bands: per-thread scratch,
    /// the fit in bands of 16384 pixels, the last one partial in the 150x120 case).
    @Test(arguments: [(24, 17, 96, 68), (40, 31, 101, 77), (9, 6, 9, 6), (150, 120, 301, 239)])
    func theKernelsFollowTheDefinition(sizes: (Int, Int, Int, Int)) async throws {
        let (w, h, W, H) = sizes
        var state: UInt64 = UInt64(w * 131 + H)
        func next() -> Float {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Float(state >> 40) / Float(1 << 24)
        }
        // A soft disc for the mask; colours flat on the left third (near-singular windows), noisy elsewhere.
        let mask = (0..<(w * h)).map { i -> Float in
            let dx = Float(i % w) - Float(w) / 2, dy = Float(i / w) - Float(h) / 2
            return max(0, min(1, 1.5 - (dx * dx + dy * dy).squareRoot() / Float(min(w, h)) * 3))
        }
        let guide = (0..<(3 * w * h)).map { k -> Float in (k / 3) % w < w / 3 ? 0.5 : next() }
        var image = Image(width: W, height: H)
        for i in 0..<(W * H) {
            image.pixels[4 * i] = UInt8(next() * 255); image.pixels[4 * i + 1] = UInt8(next() * 255)
            image.pixels[4 * i + 2] = UInt8(next() * 255); image.pixels[4 * i + 3] = 255
        }
        let supported = ck_supported_level()
        defer { ck_use_level(supported) }
        let pool = ComputePool(threads: 2)
        pool.start()
        defer { pool.stop() }
        for level in [Float(0.25), 0.5] {
            let expected = Self.reference(mask: mask, guide: guide, width: w, height: h, to: image, radius: 2,
                                          epsilon: 1e-3, level: level)
            for kernels in CK_BASELINE...supported {
                ck_use_level(kernels)
                let inline = try MaskUpsampler.upsample(mask: mask, guide: guide, width: w, height: h, to: image,
                                                        radius: 2, epsilon: 1e-3, level: level, on: .inTurn)
                let spread = try await pool.run(lease: .unleased) { [image] loop in
                    try MaskUpsampler.upsample(mask: mask, guide: guide, width: w, height: h, to: image, radius: 2,
                                               epsilon: 1e-3, level: level, on: loop)
                }
                for (how, got) in [("inline", inline), ("on the pool", spread)] {
                    let differing = zip(got, expected).filter { $0 != $1 }.count
                    #expect(got.count == expected.count && differing == 0,
                            "\(w)x\(h) -> \(W)x\(H), level \(level), kernels \(kernels), \(how): \(differing) of \(got.count) differ")
                }
            }
            #expect(expected.contains(255) && expected.contains(0), "the mask has both sides")
        }
    }
}
