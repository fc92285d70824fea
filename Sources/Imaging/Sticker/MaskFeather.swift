import Compute
import Foundation

/// Softens a full-resolution hard mask edge with a separable Gaussian blur, touching only the rows and
/// columns near the edge so large photos stay cheap.
enum MaskFeather {
    /// Rows of the mask a band of the blur writes.
    static let rowsPerBand = 64

    /// Blurs `values` (0...255) with standard deviation `sigma` pixels. A symmetric blur keeps the
    /// 128 level of a straight edge where it was, so the mask's thresholded shape barely changes.
    /// - Throws: `CancellationError`, checked per band of rows.
    ///
    /// In bands of `bandRows` rows (``rowsPerBand``; the whole height is the one-pass blur), which in a
    /// compute-pool piece idle threads of the pool take too (`loop`: the end of a lone
    /// sticker). The blur is in place, so the rows a band reads beyond its own (the kernel's radius above and
    /// below) are copied first: its neighbours overwrite them.
    static func feather(_ values: inout [UInt8], width w: Int, height h: Int, sigma: Double,
                        bandRows: Int = rowsPerBand, on loop: some ParallelLoop) throws {
        guard sigma > 0.05, w > 0, h > 0 else { return }
        let r = max(1, Int((3 * sigma).rounded(.up)))
        var kernel = (-r...r).map { Float(exp(-Double($0 * $0) / (2 * sigma * sigma))) }
        let total = kernel.reduce(0, +)
        for i in kernel.indices { kernel[i] /= total }
        let bands = (h + bandRows - 1) / bandRows
        // Band b's halo: the original rows above it (from max(0, y0 - r)) then those below it (up to y1 + r).
        let halos = (0..<bands).map { b -> [UInt8] in
            let y0 = b * bandRows, y1 = min(h, y0 + bandRows)
            return Array(values[max(0, y0 - r) * w..<y0 * w]) + Array(values[y1 * w..<min(h, y1 + r) * w])
        }
        try values.withUnsafeMutableBufferPointer { v in
            let mask = PixelBand(start: v.baseAddress!, count: w * h)
            try loop.forEach(bands) { [kernel] _, b in
                try loop.checkCancellation()
                let y0 = b * bandRows
                try blur(rows: y0..<min(h, y0 + bandRows), of: mask.start, width: w, height: h, halo: halos[b],
                         kernel: kernel, radius: r, on: loop)
            }
        }
    }

    /// Blurs rows `band` of `v` in place, reading the rows around it from `halo` (the original rows
    /// `max(0, band.lowerBound - r) ..< band.lowerBound`, then `band.upperBound ..< min(h, band.upperBound + r)`).
    private static func blur(rows band: Range<Int>, of v: UnsafeMutablePointer<UInt8>, width w: Int, height h: Int,
                             halo: [UInt8], kernel: [Float], radius r: Int, on loop: some ParallelLoop) throws {
        let y0 = band.lowerBound, y1 = band.upperBound
        let lo = max(0, y0 - r), hi = min(h, y1 + r)
        // The horizontal pass fills a ring of 2r+1 rows just ahead of the vertical pass, which then
        // overwrites the band behind it: memory stays O(r·w) instead of a full-size float plane.
        // Both passes convolve only where their window holds a transition (tracked with running
        // counts), so the cost follows the length of the mask's edge, not the photo's area.
        let window = 2 * r + 1
        var ring = [Float](repeating: 0, count: window * w)
        // Per column: how many vertically adjacent row pairs in the current window differ.
        var columnChanges = [Int32](repeating: 0, count: w)
        try halo.withUnsafeBufferPointer { halo in
            try ring.withUnsafeMutableBufferPointer { t in
                try columnChanges.withUnsafeMutableBufferPointer { changes in
                    /// Source row `y` as it was before any band wrote.
                    func source(_ y: Int) -> UnsafePointer<UInt8> {
                        if y < y0 { return halo.baseAddress! + (y - lo) * w }
                        if y >= y1 { return halo.baseAddress! + (y0 - lo + y - y1) * w }
                        return UnsafePointer(v + y * w)
                    }
                    /// Horizontal pass of source row `y` into its ring slot.
                    func horizontal(_ y: Int) {
                        let s = source(y), slot = (y % window) * w
                        // Transitions between columns i and i+1 for i in [x−r, x+r−1] ∩ [0, w−2].
                        var inWindow = 0
                        for i in 0..<min(r, w - 1) where s[i] != s[i + 1] { inWindow += 1 }
                        for x in 0..<w {
                            if inWindow == 0 {
                                t[slot + x] = Float(s[x])
                            } else {
                                var acc: Float = 0
                                for k in -r...r { acc += kernel[k + r] * Float(s[min(w - 1, max(0, x + k))]) }
                                t[slot + x] = acc
                            }
                            let add = x + r, drop = x - r
                            if add <= w - 2 && s[add] != s[add + 1] { inWindow += 1 }
                            if drop >= 0 && s[drop] != s[drop + 1] { inWindow -= 1 }
                        }
                    }
                    /// Adds (`by` 1) or removes (−1) the row pair (j, j+1), both in the ring, from the counts.
                    func count(pair j: Int, by delta: Int32) {
                        let a = (j % window) * w, b = ((j + 1) % window) * w
                        for x in 0..<w where t[a + x] != t[b + x] { changes[x] += delta }
                    }
                    // The rows before y0 + r and the pairs among them first. Row y+r is filtered just before
                    // row y is written (rows of the band below y are still unwritten then, so the pass reads
                    // the original mask); the pair leaving the window is removed before its upper row's ring
                    // slot is reused.
                    for y in lo..<min(hi, y0 + r) { horizontal(y) }
                    for j in lo..<max(lo, min(hi, y0 + r) - 1) { count(pair: j, by: 1) }
                    for y in y0..<y1 {
                        if (y - y0) & 63 == 0 && loop.isCancelled { throw CancellationError() }
                        if y - r - 1 >= lo { count(pair: y - r - 1, by: -1) }
                        if y + r < hi {
                            horizontal(y + r)
                            if y + r - 1 >= lo { count(pair: y + r - 1, by: 1) }
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
