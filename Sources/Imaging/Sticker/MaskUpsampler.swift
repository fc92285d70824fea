/// Brings a working-resolution soft mask to full resolution along the photo's own edges with the fast
/// guided filter (He & Sun, "Fast Guided Filter", 2015): the local linear model q = a·I + b is fitted
/// at working resolution against the working luma, its coefficients are smoothed and bilinearly
/// enlarged, then applied to the full-resolution luma.
enum MaskUpsampler {
    /// - Parameters:
    ///   - mask: working-resolution values in 0...1.
    ///   - guide: working-resolution luma in 0...1 (same size as `mask`).
    ///   - radius: box radius in working pixels.
    ///   - epsilon: regularisation; larger follows the guide less.
    /// - Returns: the full-resolution mask for `image`'s size, 255 where the filtered value is ≥ ½.
    /// - Throws: `CancellationError`, checked per band of output rows.
    ///
    /// The coefficient planes are enlarged one output row at a time, so beyond the returned mask the
    /// full-resolution pass holds only two rows of floats (not two full-size planes: 8 bytes a pixel,
    /// 190 MB for a 24-megapixel photo).
    static func upsample(mask: [Float], guide: [Float], width w: Int, height h: Int, to image: Image,
                         radius: Int, epsilon: Float) throws -> [UInt8] {
        let meanI = boxMean(guide, w, h, radius)
        let meanP = boxMean(mask, w, h, radius)
        let corrII = boxMean(zip(guide, guide).map { $0 * $1 }, w, h, radius)
        let corrIP = boxMean(zip(guide, mask).map { $0 * $1 }, w, h, radius)
        var a = [Float](repeating: 0, count: w * h), b = a
        for i in 0..<(w * h) {
            let varI = corrII[i] - meanI[i] * meanI[i]
            let cov = corrIP[i] - meanI[i] * meanP[i]
            a[i] = cov / (varI + epsilon)
            b[i] = meanP[i] - a[i] * meanI[i]
        }
        let meanA = boxMean(a, w, h, radius), meanB = boxMean(b, w, h, radius)
        let W = image.width, H = image.height
        let enlarger = PlaneResampler.RowEnlarger(width: w, height: h, targetWidth: W, targetHeight: H)
        var rowA = [Float](repeating: 0, count: W), rowB = rowA
        var out = [UInt8](repeating: 0, count: W * H)
        try out.withUnsafeMutableBufferPointer { q in
            try meanA.withUnsafeBufferPointer { A in
                try meanB.withUnsafeBufferPointer { B in
                    try image.pixels.withUnsafeBufferPointer { px in
                        for y in 0..<H {
                            if y & 31 == 0 && Cancellation.isRequested { throw CancellationError() }
                            enlarger.row(y, of: A, into: &rowA)
                            enlarger.row(y, of: B, into: &rowB)
                            let d = y * W
                            for x in 0..<W {
                                let i = d + x
                                let luma = (0.299 * Float(px[4 * i]) + 0.587 * Float(px[4 * i + 1]) + 0.114 * Float(px[4 * i + 2])) / 255
                                q[i] = rowB[x] + rowA[x] * luma >= 0.5 ? 255 : 0
                            }
                        }
                    }
                }
            }
        }
        return out
    }

    /// Mean over a (2r+1)² window clipped to the image, via a summed-area table.
    static func boxMean(_ v: [Float], _ w: Int, _ h: Int, _ r: Int) -> [Float] {
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
}
