import Compute
import Testing
@testable import Imaging

/// The area reduction (`PlaneResampler.reduce`) gives the definition's floats bit for bit, inline and spread over a
/// pool: each output averages exactly the source interval it covers, across each row first, then down, each sum in
/// source order.
@Suite(.timeLimit(.minutes(10))) struct PlaneReductionTests {
    /// Per output sample: the first source sample and the normalised weights of those it covers.
    static func weights(source: Int, target: Int) -> [(Int, [Float])] {
        let scale = Double(source) / Double(target)
        return (0..<target).map { o in
            let lo = Double(o) * scale, hi = min(Double(source), Double(o + 1) * scale)
            let first = Int(lo), last = min(source - 1, Int((hi - 1e-9).rounded(.down)))
            let covers = (first...max(first, last)).map { min(hi, Double($0 + 1)) - max(lo, Double($0)) }
            let total = covers.reduce(0, +)
            return (first, covers.map { Float(Double(Float($0)) / total) })
        }
    }

    static func reference(_ src: [UInt8], width: Int, height: Int, channels c: Int, to tw: Int, _ th: Int) -> [Float] {
        let fx = weights(source: width, target: tw), fy = weights(source: height, target: th)
        var rows = [Float](repeating: 0, count: tw * c * height)
        for y in 0..<height {
            for (ox, (start, w)) in fx.enumerated() {
                for ch in 0..<c {
                    var acc: Float = 0
                    for (k, wk) in w.enumerated() { acc += wk * Float(src[(y * width + start + k) * c + ch]) }
                    rows[(y * tw + ox) * c + ch] = acc
                }
            }
        }
        var out = [Float](repeating: 0, count: tw * c * th)
        for (oy, (start, w)) in fy.enumerated() {
            for (k, wk) in w.enumerated() {
                for i in 0..<(tw * c) { out[oy * tw * c + i] += wk * rows[(start + k) * tw * c + i] }
            }
        }
        return out
    }

    /// Sizes whose bands of 32 rows end partly filled, reductions by whole and uneven factors, one channel and four.
    @Test(arguments: [(97, 71, 4, 40, 29), (200, 150, 4, 200, 37), (61, 90, 1, 17, 90), (33, 33, 3, 5, 4)])
    func followsTheDefinition(sizes: (Int, Int, Int, Int, Int)) async throws {
        let (w, h, c, tw, th) = sizes
        var random = SplitMix64(seed: UInt64(w * 1000 + h))
        let src = (0..<(w * h * c)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        let expected = Self.reference(src, width: w, height: h, channels: c, to: tw, th)
        let pool = ComputePool(threads: 2)
        pool.start()
        defer { pool.stop() }
        let inline = try src.withUnsafeBufferPointer {
            try PlaneResampler.reduce($0, width: w, height: h, channels: c, targetWidth: tw, targetHeight: th, on: .inTurn)
        }
        let spread = try await pool.run(lease: .unleased) { loop in
            try src.withUnsafeBufferPointer {
                try PlaneResampler.reduce($0, width: w, height: h, channels: c, targetWidth: tw, targetHeight: th, on: loop)
            }
        }
        for (how, got) in [("inline", inline), ("on the pool", spread)] {
            let differing = zip(got, expected).filter { $0.bitPattern != $1.bitPattern }.count
            #expect(got.count == expected.count && differing == 0,
                    "\(w)x\(h)x\(c) -> \(tw)x\(th) \(how): \(differing) of \(expected.count) differ")
        }
    }

    /// The defocus cue's luma of the reduced photo, computed band by band without the four-channel copy, is the luma
    /// of ``PlaneResampler/reduce(_:width:height:channels:targetWidth:targetHeight:)``'s floats, bit for bit.
    @Test(arguments: [(97, 71, 40, 29), (200, 150, 180, 70)])
    func theLumaIsTheLumaOfTheReduction(sizes: (Int, Int, Int, Int)) throws {
        let (w, h, tw, th) = sizes
        var random = SplitMix64(seed: UInt64(w * 7 + h))
        let src = (0..<(w * h * 4)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        let rgba = try src.withUnsafeBufferPointer {
            try PlaneResampler.reduce($0, width: w, height: h, channels: 4, targetWidth: tw, targetHeight: th, on: .inTurn)
        }
        let expected = (0..<(tw * th)).map { ColorScience.luma601(rgba[4 * $0], rgba[4 * $0 + 1], rgba[4 * $0 + 2]) }
        let luma = try src.withUnsafeBufferPointer {
            try PlaneResampler.reducedLuma($0, width: w, height: h, targetWidth: tw, targetHeight: th, on: .inTurn)
        }
        let differing = zip(luma, expected).filter { $0.bitPattern != $1.bitPattern }.count
        #expect(luma.count == expected.count && differing == 0, "\(differing) of \(expected.count) differ")
    }
}
