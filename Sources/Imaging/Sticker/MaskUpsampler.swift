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
        let table = UnsafeMutablePointer<Double>.allocate(capacity: (w + 1) * (h + 1))
        defer { table.deallocate() }
        func box(_ v: [Float]) -> [Float] { boxMean(v, w, h, radius, table: table) }
        let (meanP, meanI, corrIP, corrII) = windowStatistics(mask: mask, guide: guide, box: box)
        if Cancellation.isRequested { throw CancellationError() }
        var aR = [Float](repeating: 0, count: n), aG = aR, aB = aR, b = aR
        withPointers(meanI + [meanP]) { mean in
            withPointers(corrII + corrIP) { corr in
                aR.withUnsafeMutableBufferPointer { r in
                    aG.withUnsafeMutableBufferPointer { g in
                        aB.withUnsafeMutableBufferPointer { bl in
                            var coefficients = [r.baseAddress, g.baseAddress, bl.baseAddress]
                            ck_guided_fit(n, mean, corr, epsilon, &coefficients, &b)
                        }
                    }
                }
            }
        }
        let meanA = [aR, aG, aB].map(box), meanB = box(b)
        let W = image.width, H = image.height
        let enlarger = PlaneResampler.RowEnlarger(width: w, height: h, targetWidth: W, targetHeight: H)
        var out = [UInt8](repeating: 0, count: W * H)
        try out.withUnsafeMutableBufferPointer { q in
            try image.pixels.withUnsafeBufferPointer { px in
                try withPointers(meanA + [meanB]) { planes in
                    // The model is fitted on 0...1 colours: fold the 1/255 into the threshold side instead of
                    // dividing every pixel.
                    let scale: Float = 1 / 255
                    for y in 0..<H {
                        if y & 31 == 0 && Cancellation.isRequested { throw CancellationError() }
                        let (r0, r1, wy) = enlarger.rows(y)
                        ck_guided_mask_row(planes, r0, r1, wy, enlarger.x0, enlarger.x1, enlarger.wx,
                                           px.baseAddress! + 4 * y * W, W, scale, level, q.baseAddress! + y * W)
                    }
                }
            }
        }
        return out
    }

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

    /// `body` with the first element of each of `planes` (arrays the caller keeps alive).
    private static func withPointers<R>(_ planes: [[Float]], _ body: (UnsafePointer<UnsafePointer<Float>?>) throws -> R)
        rethrows -> R {
        func nest(_ i: Int, _ collected: [UnsafePointer<Float>?]) throws -> R {
            guard i < planes.count else { return try collected.withUnsafeBufferPointer { try body($0.baseAddress!) } }
            return try planes[i].withUnsafeBufferPointer { try nest(i + 1, collected + [$0.baseAddress]) }
        }
        return try nest(0, [])
    }

    /// Mean over a (2r+1)² window clipped to the image, via a summed-area table in double precision (CKernels'
    /// `ck_box_mean`, at the CPU's vector width).
    static func boxMean(_ v: [Float], _ w: Int, _ h: Int, _ r: Int) -> [Float] {
        guard w > 0, h > 0 else { return [] }
        let sat = UnsafeMutablePointer<Double>.allocate(capacity: (w + 1) * (h + 1))
        defer { sat.deallocate() }
        return boxMean(v, w, h, r, table: sat)
    }

    /// As above, with the caller's scratch for the table (`(w + 1) * (h + 1)` doubles), for runs of box means of
    /// one size: a table of a megabyte or more is otherwise mapped and faulted in afresh each time.
    static func boxMean(_ v: [Float], _ w: Int, _ h: Int, _ r: Int, table: UnsafeMutablePointer<Double>) -> [Float] {
        precondition(v.count == w * h && r >= 0)
        guard w > 0, h > 0 else { return [] }
        return [Float](unsafeUninitializedCapacity: w * h) { out, count in
            ck_box_mean(v, w, h, r, table, out.baseAddress)
            count = w * h
        }
    }
}
