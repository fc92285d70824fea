import Compute
import CKernels
import Testing
@testable import Imaging

/// The saliency map's channels, prepared on a pool's idle threads and scanned eight at a time, are summed in the
/// channels' order: the map is the same inline and on a two-thread pool, with and without texture and focus; the
/// eight-lane scans give each channel the one-channel scans' floats at every instruction-set level.
@Suite(.timeLimit(.minutes(10)))
struct SaliencyChannelsTests {
    static func photo() -> Image {
        var image = Image(width: 96, height: 72)
        var state: UInt64 = 7
        for y in 0..<72 {
            for x in 0..<96 {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                let inside = (x - 48) * (x - 48) + (y - 36) * (y - 36) < 400
                let noise = UInt8(state >> 59)
                let i = 4 * (y * 96 + x)
                image.pixels[i] = inside ? 200 + noise : 40 + noise
                image.pixels[i + 1] = inside ? 60 : 120 + noise
                image.pixels[i + 2] = UInt8(x * 2)
                image.pixels[i + 3] = 255
            }
        }
        return image
    }

    @Test func theMapIsTheSameInlineAndOnAPool() async throws {
        let image = Self.photo()
        let work = try LabImage(image, maxSide: 96, on: .inTurn)
        let texture = try TextureFeatures(work, on: .inTurn).values
        let focus = try FocusFeatures(image, width: work.width, height: work.height, on: .inTurn).values
        let pool = ComputePool(threads: 2)
        pool.start()
        defer { pool.stop() }
        for (withTexture, withFocus) in [(false, false), (true, false), (false, true), (true, true)] {
            let make = { @Sendable (loop: any ParallelLoop) throws -> SaliencyMap in
                try SaliencyMap(work, texture: withTexture ? texture : nil, textureWeight: 2.5,
                                focus: withFocus ? focus : nil, focusWeight: 30, on: loop)
            }
            let inline = try make(InTurnLoop()), spread = try await pool.run(lease: .unleased) { loop in try make(loop) }
            #expect(inline.values == spread.values && inline.threshold == spread.threshold
                    && inline.rawStrength == spread.rawStrength,
                    "texture \(withTexture), focus \(withFocus): thresholds \(inline.threshold) / \(spread.threshold), strengths \(inline.rawStrength) / \(spread.rawStrength), \(zip(inline.values, spread.values).filter { $0 != $1 }.count) values differ")
            #expect(inline.rawStrength > 2, "the disc stands out: raw strength \(inline.rawStrength)")
        }
    }

    /// The definition: one channel's minimum-barrier distances by scalar scans (the saliency map's code before
    /// `ck_barrier_scans`).
    static func barrierDistance(_ v: [Float], width w: Int, height h: Int) -> [Float] {
        let n = w * h
        var dist = [Float](repeating: .greatestFiniteMagnitude, count: n)
        var hi = v, lo = v
        for x in 0..<w { dist[x] = 0; dist[(h - 1) * w + x] = 0 }
        for y in 0..<h { dist[y * w] = 0; dist[y * w + w - 1] = 0 }
        dist.withUnsafeMutableBufferPointer { d in
            hi.withUnsafeMutableBufferPointer { u in
                lo.withUnsafeMutableBufferPointer { l in
                    v.withUnsafeBufferPointer { v in
                        @inline(__always) func relax(_ p: Int, _ q: Int) {
                            let uu = max(u[q], v[p]), ll = min(l[q], v[p])
                            if uu - ll < d[p] { d[p] = uu - ll; u[p] = uu; l[p] = ll }
                        }
                        for pass in 0..<4 {
                            if pass % 2 == 0 {
                                for y in 1..<max(1, h - 1) {
                                    for x in 1..<max(1, w - 1) {
                                        let p = y * w + x
                                        relax(p, p - 1); relax(p, p - w)
                                    }
                                }
                            } else {
                                for y in stride(from: h - 2, through: 1, by: -1) {
                                    for x in stride(from: w - 2, through: 1, by: -1) {
                                        let p = y * w + x
                                        relax(p, p + 1); relax(p, p + w)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return dist
    }

    /// Channels of noise over steps and ramps (ties between neighbours, so the selections' order shows), one to eight
    /// of them, on grids down to a single inner pixel.
    @Test(arguments: [(37, 29, 8), (40, 30, 7), (3, 3, 1), (1, 5, 2), (64, 2, 3)])
    func eightLanesAreEightChannels(sizes: (Int, Int, Int)) {
        let (w, h, count) = sizes
        var random = SplitMix64(seed: UInt64(w * 100 + h))
        let channels = (0..<count).map { k in
            (0..<(w * h)).map { i -> Float in
                let step: Float = (i % w) > w / 2 ? 30 : 0, ramp = Float(i / w) * Float(k)
                return step + ramp + Float(random.next() % 8) * (k % 2 == 0 ? 1 : 0.37)
            }
        }
        let expected = channels.map { Self.barrierDistance($0, width: w, height: h) }
        let supported = ck_supported_level()
        defer { ck_use_level(supported) }
        for level in CK_BASELINE...supported {
            ck_use_level(level)
            let got = SaliencyMap.barrierDistances(channels, width: w, height: h)
            for k in 0..<count {
                let differing = zip(got[k], expected[k]).filter { $0.bitPattern != $1.bitPattern }.count
                #expect(differing == 0, "\(w)x\(h), channel \(k) of \(count), level \(level): \(differing) of \(w * h) differ")
            }
        }
    }

    /// The sums the saliency map takes are the channels' distances added in order, over the colour channels and
    /// over all (the same floats), for fewer channels than the colour ones too.
    @Test(arguments: [(37, 29, 7, 3), (40, 30, 2, 3), (5, 4, 8, 1)])
    func distanceSumsAreTheDistancesAdded(sizes: (Int, Int, Int, Int)) {
        let (w, h, count, colourChannels) = sizes
        var random = SplitMix64(seed: UInt64(w * 31 + h))
        let channels = (0..<count).map { k in
            (0..<(w * h)).map { i -> Float in Float(i % w > w / 3 ? 20 : 0) + Float(random.next() % 16) * Float(k + 1) / 8 }
        }
        let distances = SaliencyMap.barrierDistances(channels, width: w, height: h)
        var colour = [Float](repeating: 0, count: w * h), all = colour
        for (k, d) in distances.enumerated() {
            for i in 0..<(w * h) { all[i] += d[i] }
            if k == colourChannels - 1 { colour = all }
        }
        let sums = SaliencyMap.barrierDistanceSums(channels, colourChannels: colourChannels, width: w, height: h)
        let differing = (zip(sums.colour, colour).filter { $0.bitPattern != $1.bitPattern }.count,
                         zip(sums.all, all).filter { $0.bitPattern != $1.bitPattern }.count)
        #expect(sums.colour.count == w * h && sums.all.count == w * h && differing == (0, 0),
                "\(w)x\(h), \(count) channels: \(sums.colour.count) / \(sums.all.count) values, \(differing) differ")
    }
}
