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
        var tmp = [Float](repeating: 0, count: w * h)
        try values.withUnsafeMutableBufferPointer { v in
            try tmp.withUnsafeMutableBufferPointer { t in
                // Horizontal pass; rows without an edge are copied as they are.
                for y in 0..<h {
                    if y & 63 == 0 && Cancellation.isRequested { throw CancellationError() }
                    let row = y * w
                    var uniform = true
                    for x in 1..<w where v[row + x] != v[row] { uniform = false; break }
                    if uniform {
                        for x in 0..<w { t[row + x] = Float(v[row + x]) }
                        continue
                    }
                    for x in 0..<w {
                        var acc: Float = 0
                        for k in -r...r { acc += kernel[k + r] * Float(v[row + min(w - 1, max(0, x + k))]) }
                        t[row + x] = acc
                    }
                }
                // Vertical pass; only where the column neighbourhood is not constant.
                for y in 0..<h {
                    if y & 63 == 0 && Cancellation.isRequested { throw CancellationError() }
                    for x in 0..<w {
                        let centre = t[y * w + x]
                        var acc: Float = 0
                        var varies = false
                        for k in -r...r {
                            let s = t[min(h - 1, max(0, y + k)) * w + x]
                            if s != centre { varies = true }
                            acc += kernel[k + r] * s
                        }
                        v[y * w + x] = UInt8(max(0, min(255, (varies ? acc : centre).rounded())))
                    }
                }
            }
        }
    }
}
