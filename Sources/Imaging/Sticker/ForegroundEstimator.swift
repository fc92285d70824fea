import Compute
import Foundation

/// The subject's own colour where its alpha is soft: foreground estimation by blur fusion (Forte & Pitié 2021,
/// "Approximate Fast Foreground Colour Estimation", the two-pass variant), so a cut-out's soft edge no longer
/// carries the old background (the green or grey halo of hair and fur on a new backdrop).
///
/// An observed colour is I = αF + (1 − α)B. Each pass estimates the local foreground and background as
/// alpha-weighted means round the pixel (F̄ = Σα·F / Σα, B̄ = Σ(1 − α)·B / Σ(1 − α)) and corrects F̄ by the part of
/// I those means leave unexplained: F = F̄ + α(I − αF̄ − (1 − α)B̄), clipped to the colour range. The first pass
/// takes its means over a wide window (about 90 px, from sums over cells of ``cellSize`` px, interpolated), with
/// F = B = I; the second over an 11 x 11 window, with the first pass's F and B (the photo's own colour where α is 0
/// or 1), which brings back the detail of the subject's edge.
///
/// Only pixels whose alpha is strictly between 0 and 255 change; all work is proportional to the rectangle asked
/// for plus a margin, never to the whole photo.
public enum ForegroundEstimator {
    /// Side of the cells the wide pass sums over.
    static let cellSize = 6
    /// The wide pass's window reaches this many cells either side of the pixel's cell (7 cells of 6 px: about
    /// the 90 px box of the paper).
    static let cellRadius = 7
    /// The narrow pass's window reaches this many pixels either side (11 x 11; 7 x 7, the paper's size, and 15 x 15
    /// measured in bench/README.md).
    static let fineRadius = 5
    /// Rows of the output a band of the narrow pass writes (bands run on idle threads of the pool). A band holds 7
    /// floats a pixel for its soft columns and ``fineRadius`` rows round it: 16 rows keep that near 4 MB on a
    /// 6000-px-wide edge (64 rows raised a 24-megapixel sticker's peak by about 20 MB).
    static let rowsPerBand = 16

    /// The colours of `image` inside `rect` with the foreground estimated where `alpha` is soft.
    /// - Parameters:
    ///   - image: the photo (straight RGBA).
    ///   - alpha: the cut-out's alpha at the photo's size (255 = subject).
    ///   - rect: the part of the photo wanted; clipped to the photo.
    /// - Returns: RGBA rows of `rect`'s clipped width (alpha copied from `image`): the photo's own pixels where
    ///   `alpha` is 0 or 255, the estimated foreground colour elsewhere.
    /// - Throws: `CancellationError`, checked per band of rows.
    ///   - loop: where its bands spread (off the pool, in turn).
    public static func estimate(_ image: Image, alpha: Mask, in rect: PixelRect, on loop: some ParallelLoop) throws -> (rect: PixelRect, pixels: [UInt8]) {
        precondition(alpha.width == image.width && alpha.height == image.height, "alpha of another size")
        let x0 = max(0, rect.x), y0 = max(0, rect.y)
        let x1 = min(image.width, rect.x + rect.width), y1 = min(image.height, rect.y + rect.height)
        guard x1 > x0, y1 > y0 else { return (PixelRect(x: x0, y: y0, width: 0, height: 0), []) }
        let rw = x1 - x0, rh = y1 - y0
        var out = [UInt8](repeating: 0, count: rw * rh * 4)
        image.pixels.withUnsafeBufferPointer { px in
            out.withUnsafeMutableBufferPointer { o in
                for y in 0..<rh {
                    let s = 4 * ((y0 + y) * image.width + x0)
                    for i in 0..<(4 * rw) { o[4 * y * rw + i] = px[s + i] }
                }
            }
        }
        try out.withUnsafeMutableBufferPointer { o in
            try estimate(image, alpha: alpha, in: PixelRect(x: x0, y: y0, width: rw, height: rh), into: o.baseAddress!,
                         origin: (x0, y0), width: rw, on: loop)
        }
        return (PixelRect(x: x0, y: y0, width: rw, height: rh), out)
    }

    /// Writes the estimated foreground colour (R, G, B; alpha untouched) of every soft pixel of `rect` (already clipped
    /// to the photo) into `out`, RGBA rows `width` pixels wide whose first pixel is the photo's `origin`, which must
    /// cover `rect`: the cut-out's canvas, so no copy of the crop is made.
    /// - Throws: `CancellationError`, checked per band of rows.
    static func estimate(_ image: Image, alpha: Mask, in rect: PixelRect, into out: UnsafeMutablePointer<UInt8>,
                         origin: (x: Int, y: Int), width: Int, on loop: some ParallelLoop) throws {
        guard rect.width > 0, rect.height > 0 else { return }
        let wide = try WideMeans(image, alpha: alpha, around: rect, on: loop)
        let bands = (rect.height + rowsPerBand - 1) / rowsPerBand
        let target = PixelBand(start: out, count: 0)
        try loop.forEach(bands) { _, b in
            try loop.checkCancellation()
            let by0 = rect.y + b * rowsPerBand, by1 = min(rect.y + rect.height, by0 + rowsPerBand)
            narrowPass(image, alpha: alpha, wide: wide, rows: by0..<by1, columns: rect.x..<(rect.x + rect.width),
                       into: target.start, outOrigin: origin, outWidth: width)
        }
    }

    /// The wide pass's alpha-weighted sums over cells, blurred by a box of ``cellRadius`` cells: per cell Σα,
    /// Σα·RGB, Σ(1 − α), Σ(1 − α)·RGB (8 floats), read back by bilinear interpolation between cell centres.
    struct WideMeans: Sendable {
        let originX: Int, originY: Int, columns: Int, rows: Int
        let sums: [SIMD8<Float>]

        init(_ image: Image, alpha: Mask, around rect: PixelRect, on loop: some ParallelLoop) throws {
            let c = ForegroundEstimator.cellSize, k = ForegroundEstimator.cellRadius
            let margin = (k + 2) * c
            let gx0 = max(0, rect.x - margin), gy0 = max(0, rect.y - margin)
            let gx1 = min(image.width, rect.x + rect.width + margin), gy1 = min(image.height, rect.y + rect.height + margin)
            let cols = (gx1 - gx0 + c - 1) / c, rows = (gy1 - gy0 + c - 1) / c
            var cells = [SIMD8<Float>](repeating: .zero, count: cols * rows)
            let w = image.width
            image.pixels.withUnsafeBufferPointer { px in
                alpha.values.withUnsafeBufferPointer { m in
                    cells.withUnsafeMutableBufferPointer { cell in
                        for y in gy0..<gy1 {
                            let rowBase = ((y - gy0) / c) * cols
                            for x in gx0..<gx1 {
                                let p = y * w + x
                                let a = ForegroundEstimator.alpha(px[4 * p + 3], m[p]), na = 1 - a
                                let r = Float(px[4 * p]), g = Float(px[4 * p + 1]), b = Float(px[4 * p + 2])
                                cell[rowBase + (x - gx0) / c] += SIMD8(a, a * r, a * g, a * b, na, na * r, na * g, na * b)
                            }
                        }
                    }
                }
            }
            try loop.checkCancellation()
            // Separable box of 2k+1 cells, clipped at the grid's edges (sums, not means: the ratios cancel the count),
            // in place through one row or column of scratch: the grid is the only full-size buffer (a 24-megapixel
            // cut-out's is 21 MB).
            var line = [SIMD8<Float>](repeating: .zero, count: max(cols, rows))
            for y in 0..<rows {
                for x in 0..<cols { line[x] = cells[y * cols + x] }
                var s = SIMD8<Float>.zero
                for x in 0..<min(cols, k) { s += line[x] }
                for x in 0..<cols {
                    if x + k < cols { s += line[x + k] }
                    if x - k - 1 >= 0 { s -= line[x - k - 1] }
                    cells[y * cols + x] = s
                }
            }
            for x in 0..<cols {
                for y in 0..<rows { line[y] = cells[y * cols + x] }
                var s = SIMD8<Float>.zero
                for y in 0..<min(rows, k) { s += line[y] }
                for y in 0..<rows {
                    if y + k < rows { s += line[y + k] }
                    if y - k - 1 >= 0 { s -= line[y - k - 1] }
                    cells[y * cols + x] = s
                }
            }
            originX = gx0; originY = gy0; columns = cols; self.rows = rows; sums = cells
        }

        /// The wide foreground and background means at pixel (x, y), in 0...255 per channel; a side with no
        /// weight in the window takes `own` (the pixel's colour).
        func means(x: Int, y: Int, own: (Float, Float, Float)) -> (f: (Float, Float, Float), b: (Float, Float, Float)) {
            let c = Float(ForegroundEstimator.cellSize)
            let fx = max(0, min(Float(columns - 1), (Float(x - originX) + 0.5) / c - 0.5))
            let fy = max(0, min(Float(rows - 1), (Float(y - originY) + 0.5) / c - 0.5))
            let cx = Int(fx), cy = Int(fy)
            let cx1 = min(columns - 1, cx + 1), cy1 = min(rows - 1, cy + 1)
            let tx = fx - Float(cx), ty = fy - Float(cy)
            let v = sums.withUnsafeBufferPointer { s -> SIMD8<Float> in
                let top: SIMD8<Float> = (1 - tx) * s[cy * columns + cx] + tx * s[cy * columns + cx1]
                let bottom: SIMD8<Float> = (1 - tx) * s[cy1 * columns + cx] + tx * s[cy1 * columns + cx1]
                return (1 - ty) * top + ty * bottom
            }
            let f = v[0] > 1e-3 ? (v[1] / v[0], v[2] / v[0], v[3] / v[0]) : own
            let b = v[4] > 1e-3 ? (v[5] / v[4], v[6] / v[4], v[7] / v[4]) : own
            return (f, b)
        }
    }

    /// The pixel's alpha (its own times the mask's) in 0...1.
    @inline(__always)
    static func alpha(_ own: UInt8, _ mask: UInt8) -> Float {
        Float((Int(own) * Int(mask) + 127) / 255) / 255
    }

    /// F = F̄ + α(I − αF̄ − (1 − α)B̄), clipped to 0...255.
    @inline(__always)
    static func corrected(_ i: Float, f: Float, b: Float, alpha a: Float) -> Float {
        max(0, min(255, f + a * (i - a * f - (1 - a) * b)))
    }

    /// The narrow pass over output rows `rows` (photo coordinates): the first pass's F and B for the rows and
    /// columns round them (a halo of ``fineRadius``), then the final colour of every soft pixel.
    private static func narrowPass(_ image: Image, alpha: Mask, wide: WideMeans, rows: Range<Int>, columns: Range<Int>,
                                   into out: UnsafeMutablePointer<UInt8>, outOrigin: (x: Int, y: Int), outWidth: Int) {
        let r = fineRadius, w = image.width
        // Only the columns with soft pixels in these rows (the edge is a thin band of a large photo).
        var softX0 = Int.max, softX1 = -1
        image.pixels.withUnsafeBufferPointer { px in
            alpha.values.withUnsafeBufferPointer { m in
                for y in rows {
                    for x in columns {
                        let p = y * w + x
                        let a = (Int(px[4 * p + 3]) * Int(m[p]) + 127) / 255
                        if a > 0 && a < 255 { softX0 = min(softX0, x); softX1 = max(softX1, x) }
                    }
                }
            }
        }
        guard softX1 >= 0 else { return }
        let columns = softX0..<(softX1 + 1)
        let hy0 = max(0, rows.lowerBound - r), hy1 = min(image.height, rows.upperBound + r)
        let hx0 = max(0, columns.lowerBound - r), hx1 = min(w, columns.upperBound + r)
        let bw = hx1 - hx0, bh = hy1 - hy0
        // Per pixel of the halo'd band: α, F (3), B (3).
        var buffer = [Float](repeating: 0, count: bw * bh * 7)
        image.pixels.withUnsafeBufferPointer { px in
            alpha.values.withUnsafeBufferPointer { m in
                buffer.withUnsafeMutableBufferPointer { t in
                    for y in hy0..<hy1 {
                        for x in hx0..<hx1 {
                            let p = y * w + x, q = 7 * ((y - hy0) * bw + (x - hx0))
                            let a = ForegroundEstimator.alpha(px[4 * p + 3], m[p])
                            let i = (Float(px[4 * p]), Float(px[4 * p + 1]), Float(px[4 * p + 2]))
                            t[q] = a
                            if a <= 0 || a >= 1 {
                                t[q + 1] = i.0; t[q + 2] = i.1; t[q + 3] = i.2
                                t[q + 4] = i.0; t[q + 5] = i.1; t[q + 6] = i.2
                                continue
                            }
                            let (f, b) = wide.means(x: x, y: y, own: i)
                            t[q + 1] = corrected(i.0, f: f.0, b: b.0, alpha: a)
                            t[q + 2] = corrected(i.1, f: f.1, b: b.1, alpha: a)
                            t[q + 3] = corrected(i.2, f: f.2, b: b.2, alpha: a)
                            t[q + 4] = b.0; t[q + 5] = b.1; t[q + 6] = b.2
                        }
                    }
                }
            }
        }
        image.pixels.withUnsafeBufferPointer { px in
            buffer.withUnsafeBufferPointer { t in
                for y in rows {
                    for x in columns {
                        let q = 7 * ((y - hy0) * bw + (x - hx0))
                        let a = t[q]
                        guard a > 0 && a < 1 else { continue }
                        var sa: Float = 0, sf0: Float = 0, sf1: Float = 0, sf2: Float = 0
                        var sb: Float = 0, sb0: Float = 0, sb1: Float = 0, sb2: Float = 0
                        for yy in max(hy0, y - r)..<min(hy1, y + r + 1) {
                            var n = 7 * ((yy - hy0) * bw + (max(hx0, x - r) - hx0))
                            for _ in max(hx0, x - r)..<min(hx1, x + r + 1) {
                                let an = t[n], bn = 1 - an
                                sa += an; sf0 += an * t[n + 1]; sf1 += an * t[n + 2]; sf2 += an * t[n + 3]
                                sb += bn; sb0 += bn * t[n + 4]; sb1 += bn * t[n + 5]; sb2 += bn * t[n + 6]
                                n += 7
                            }
                        }
                        let p = y * w + x
                        let i = (Float(px[4 * p]), Float(px[4 * p + 1]), Float(px[4 * p + 2]))
                        let f = sa > 1e-4 ? (sf0 / sa, sf1 / sa, sf2 / sa) : (t[q + 1], t[q + 2], t[q + 3])
                        let b = sb > 1e-4 ? (sb0 / sb, sb1 / sb, sb2 / sb) : (t[q + 4], t[q + 5], t[q + 6])
                        let o = out + 4 * ((y - outOrigin.y) * outWidth + (x - outOrigin.x))
                        o[0] = UInt8(corrected(i.0, f: f.0, b: b.0, alpha: a).rounded())
                        o[1] = UInt8(corrected(i.1, f: f.1, b: b.1, alpha: a).rounded())
                        o[2] = UInt8(corrected(i.2, f: f.2, b: b.2, alpha: a).rounded())
                    }
                }
            }
        }
    }
}
