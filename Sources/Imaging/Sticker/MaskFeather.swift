import Foundation

/// Softens a full-resolution hard mask edge with a separable Gaussian blur, touching only the rows and
/// columns near the edge so large photos stay cheap.
enum MaskFeather {
    /// Blurs `values` (0...255) with standard deviation `sigma` pixels. A symmetric blur keeps the
    /// 128 level of a straight edge where it was, so the mask's thresholded shape barely changes.
    /// - Throws: `CancellationError`, checked per band of rows.
    static func feather(_ values: inout [UInt8], width w: Int, height h: Int, sigma: Double) throws {
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
}
