import Foundation
import Testing
@testable import Imaging

/// The feather in bands (``MaskFeather/bandRows`` rows, each with a copy of the rows around it, spread over a
/// pool's idle threads) gives the bytes the one-pass version gave: masks with many edges, touching every border,
/// heights of one band and of several with a partial last one (of a single row, too), a kernel of radius 48 (sigma
/// 16) reaching across most of a band, masks of one row and of one column.
@Suite struct MaskFeatherBandTests {
    /// The one-pass feather the bands replaced, as it was.
    static func reference(_ values: inout [UInt8], width w: Int, height h: Int, sigma: Double) throws {
        guard sigma > 0.05 else { return }
        let r = max(1, Int((3 * sigma).rounded(.up)))
        var kernel = (-r...r).map { Float(exp(-Double($0 * $0) / (2 * sigma * sigma))) }
        let total = kernel.reduce(0, +)
        for i in kernel.indices { kernel[i] /= total }
        // The horizontal pass fills a ring of 2r+1 rows just ahead of the vertical pass, which then
        // overwrites `values` behind it: memory stays O(r·w) instead of a full-size float plane.
        // Both passes convolve only where their window holds a transition (tracked with running
        // counts), so the cost follows the length of the mask's edge, not the photo's area.
        let window = 2 * r + 1
        var ring = [Float](repeating: 0, count: window * w)
        // Per column: how many vertically adjacent row pairs in the current window differ.
        var columnChanges = [Int32](repeating: 0, count: w)
        try values.withUnsafeMutableBufferPointer { v in
            try ring.withUnsafeMutableBufferPointer { t in
                try columnChanges.withUnsafeMutableBufferPointer { changes in
                    /// Horizontal pass of source row `y` into its ring slot.
                    func horizontal(_ y: Int) {
                        let row = y * w, slot = (y % window) * w
                        // Transitions between columns i and i+1 for i in [x−r, x+r−1] ∩ [0, w−2].
                        var inWindow = 0
                        for i in 0..<min(r, w - 1) where v[row + i] != v[row + i + 1] { inWindow += 1 }
                        for x in 0..<w {
                            if inWindow == 0 {
                                t[slot + x] = Float(v[row + x])
                            } else {
                                var acc: Float = 0
                                for k in -r...r { acc += kernel[k + r] * Float(v[row + min(w - 1, max(0, x + k))]) }
                                t[slot + x] = acc
                            }
                            let add = x + r, drop = x - r
                            if add <= w - 2 && v[row + add] != v[row + add + 1] { inWindow += 1 }
                            if drop >= 0 && v[row + drop] != v[row + drop + 1] { inWindow -= 1 }
                        }
                    }
                    /// Adds (`by` 1) or removes (−1) the row pair (j, j+1), both in the ring, from the counts.
                    func count(pair j: Int, by delta: Int32) {
                        let a = (j % window) * w, b = ((j + 1) % window) * w
                        for x in 0..<w where t[a + x] != t[b + x] { changes[x] += delta }
                    }
                    // Rows 0...r−1 and the pairs among them first. Row y+r is filtered just before row y
                    // is written (source rows below y are still unwritten then, so the pass reads the
                    // original mask); the pair leaving the window is removed before its upper row's
                    // ring slot is reused.
                    for y in 0..<min(h, r) { horizontal(y) }
                    for j in 0..<max(0, min(h, r) - 1) { count(pair: j, by: 1) }
                    for y in 0..<h {
                        if y & 63 == 0 && Cancellation.isRequested { throw CancellationError() }
                        if y - r - 1 >= 0 { count(pair: y - r - 1, by: -1) }
                        if y + r < h {
                            horizontal(y + r)
                            if y + r >= 1 { count(pair: y + r - 1, by: 1) }
                        }
                        let centreSlot = (y % window) * w
                        for x in 0..<w {
                            let centre = t[centreSlot + x]
                            guard changes[x] != 0 else {
                                v[y * w + x] = UInt8(max(0, min(255, centre.rounded())))
                                continue
                            }
                            var acc: Float = 0
                            for k in -r...r { acc += kernel[k + r] * t[(min(h - 1, max(0, y + k)) % window) * w + x] }
                            v[y * w + x] = UInt8(max(0, min(255, acc.rounded())))
                        }
                    }
                }
            }
        }
    }

    @Test(arguments: [(300, 200, 1.0), (97, 130, 2.5), (40, 64, 1.5), (1, 150, 2.0), (150, 1, 2.0), (50, 129, 16.0)])
    func bandsGiveTheOnePassBytes(size: (Int, Int, Double)) async throws {
        let (w, h, sigma) = size
        var state: UInt64 = UInt64(w * 7919 + h)
        var mask = [UInt8](repeating: 0, count: w * h)
        // Discs and bars of subject, some cut by the border.
        for _ in 0..<8 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let cx = Int(state >> 33) % (w + 20) - 10, cy = Int(state >> 13) % (h + 20) - 10
            let radius = 2 + Int(state >> 50) % 12
            for y in 0..<h where abs(y - cy) <= radius {
                for x in 0..<w where (x - cx) * (x - cx) + (y - cy) * (y - cy) <= radius * radius {
                    mask[y * w + x] = 255
                }
            }
        }
        for y in 0..<h where y % 37 < 3 { for x in 0..<w / 2 { mask[y * w + x] = 255 } }
        var expected = mask
        try Self.reference(&expected, width: w, height: h, sigma: sigma)
        var inline = mask
        try MaskFeather.feather(&inline, width: w, height: h, sigma: sigma)
        let pool = ComputePool(threads: 2)
        pool.start()
        defer { pool.stop() }
        let spread = try await pool.run { [mask] in
            var values = mask
            try MaskFeather.feather(&values, width: w, height: h, sigma: sigma)
            return values
        }
        for (how, got) in [("inline", inline), ("on the pool", spread)] {
            let differing = zip(got, expected).filter { $0 != $1 }.count
            #expect(differing == 0, "\(w)x\(h), sigma \(sigma), \(how): \(differing) of \(got.count) bytes differ")
        }
        #expect(mask.contains(255) && mask.contains(0) && expected != mask, "the mask has edges to blur")
    }
}
