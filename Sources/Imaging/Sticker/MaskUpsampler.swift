import CKernels

/// Brings a working-resolution soft mask to full resolution along the photo's own edges with the fast
/// guided filter (He & Sun, "Fast Guided Filter", 2015) and a colour guide (He, Sun & Tang, "Guided
/// Image Filtering", 2010, §3.4): the local linear model q = a·I + b, with I the sRGB colour, is fitted
/// at working resolution, its coefficients are smoothed and bilinearly enlarged, then applied to the
/// full-resolution colours. A colour guide follows edges between colours of equal brightness, which
/// a luma guide smooths over.
enum MaskUpsampler {
    /// - Parameters:
    ///   - mask: working-resolution values in 0...1.
    ///   - guide: working-resolution sRGB in 0...1, three interleaved values per pixel (`LabImage.rgb`).
    ///   - radius: box radius in working pixels.
    ///   - epsilon: regularisation; larger follows the guide less.
    ///   - level: the filtered value (0...1) from which a pixel is subject. ½ puts the edge where the
    ///     soft mask crosses halfway; lower levels move it outwards where the guide shows no edge
    ///     (soft or blurred outlines), by a fraction of a working pixel, and barely move it at a sharp
    ///     colour edge, where the fitted model steps from 0 to 1 across the edge.
    /// - Returns: the full-resolution mask for `image`'s size, 255 where the filtered value is ≥ `level`.
    /// - Throws: `CancellationError`, checked per band of output rows.
    ///
    /// The coefficient planes are enlarged one output row at a time, so beyond the returned mask the
    /// full-resolution pass holds only four rows of floats (not four full-size planes: 16 bytes a pixel,
    /// 380 MB for a 24-megapixel photo).
    static func upsample(mask: [Float], guide: [Float], width w: Int, height h: Int, to image: Image,
                         radius: Int, epsilon: Float, level: Float = 0.5) throws -> [UInt8] {
        let n = w * h
        precondition(mask.count == n && guide.count == 3 * n)
        func plane(_ f: (Int) -> Float) -> [Float] { boxMean((0..<n).map(f), w, h, radius) }
        let meanP = boxMean(mask, w, h, radius)
        var meanI: [[Float]] = [], corrIP: [[Float]] = []
        for c in 0..<3 {
            meanI.append(plane { guide[3 * $0 + c] })
            corrIP.append(plane { guide[3 * $0 + c] * mask[$0] })
        }
        // The six distinct entries of the symmetric colour covariance: rr, rg, rb, gg, gb, bb.
        let pairs = [(0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2)]
        let corrII = pairs.map { (c, d) in plane { guide[3 * $0 + c] * guide[3 * $0 + d] } }
        if Cancellation.isRequested { throw CancellationError() }
        var a = [[Float]](repeating: [Float](repeating: 0, count: n), count: 3)
        var b = [Float](repeating: 0, count: n)
        for i in 0..<n {
            let m0 = meanI[0][i], m1 = meanI[1][i], m2 = meanI[2][i], mp = meanP[i]
            // Σ + εU, in Double: near-flat windows make Σ almost singular.
            let s00 = Double(corrII[0][i] - m0 * m0 + epsilon), s01 = Double(corrII[1][i] - m0 * m1)
            let s02 = Double(corrII[2][i] - m0 * m2), s11 = Double(corrII[3][i] - m1 * m1 + epsilon)
            let s12 = Double(corrII[4][i] - m1 * m2), s22 = Double(corrII[5][i] - m2 * m2 + epsilon)
            let v0 = Double(corrIP[0][i] - m0 * mp), v1 = Double(corrIP[1][i] - m1 * mp), v2 = Double(corrIP[2][i] - m2 * mp)
            // Σ⁻¹·v by the adjugate (Σ is symmetric positive definite with ε > 0).
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
        let meanA = a.map { boxMean($0, w, h, radius) }, meanB = boxMean(b, w, h, radius)
        let W = image.width, H = image.height
        let enlarger = PlaneResampler.RowEnlarger(width: w, height: h, targetWidth: W, targetHeight: H)
        var rowR = [Float](repeating: 0, count: W), rowG = rowR, rowBlue = rowR, rowB = rowR
        var out = [UInt8](repeating: 0, count: W * H)
        try out.withUnsafeMutableBufferPointer { q in
            try meanA[0].withUnsafeBufferPointer { AR in
                try meanA[1].withUnsafeBufferPointer { AG in
                    try meanA[2].withUnsafeBufferPointer { AB in
                        try meanB.withUnsafeBufferPointer { B in
                            try image.pixels.withUnsafeBufferPointer { px in
                                // The model is fitted on 0...1 colours: fold the 1/255 into the
                                // threshold side instead of dividing every pixel.
                                let scale: Float = 1 / 255
                                for y in 0..<H {
                                    if y & 31 == 0 && Cancellation.isRequested { throw CancellationError() }
                                    enlarger.row(y, of: AR, into: &rowR)
                                    enlarger.row(y, of: AG, into: &rowG)
                                    enlarger.row(y, of: AB, into: &rowBlue)
                                    enlarger.row(y, of: B, into: &rowB)
                                    let d = y * W
                                    for x in 0..<W {
                                        let i = d + x
                                        let dot = rowR[x] * Float(px[4 * i]) + rowG[x] * Float(px[4 * i + 1])
                                            + rowBlue[x] * Float(px[4 * i + 2])
                                        q[i] = rowB[x] + dot * scale >= level ? 255 : 0
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return out
    }

    /// Mean over a (2r+1)² window clipped to the image, via a summed-area table in double precision (CKernels'
    /// `ck_box_mean`, at the CPU's vector width).
    static func boxMean(_ v: [Float], _ w: Int, _ h: Int, _ r: Int) -> [Float] {
        precondition(v.count == w * h && r >= 0)
        guard w > 0, h > 0 else { return [] }
        let sat = UnsafeMutablePointer<Double>.allocate(capacity: (w + 1) * (h + 1))
        defer { sat.deallocate() }
        return [Float](unsafeUninitializedCapacity: w * h) { out, count in
            ck_box_mean(v, w, h, r, sat, out.baseAddress)
            count = w * h
        }
    }
}
