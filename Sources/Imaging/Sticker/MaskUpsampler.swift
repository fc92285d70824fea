import Compute
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
    ///   - region: the part of `image` the mask is for (its guide read in place: no copy of the part); nil for the
    ///     whole image.
    /// - Returns: the full-resolution mask for `region`'s size (`image`'s without one), 255 where the filtered value
    ///   is ≥ `level`.
    /// - Throws: `CancellationError`, checked per plane and per band of pixels or output rows.
    ///
    /// The coefficient planes are enlarged one output row at a time, so beyond the returned mask the
    /// full-resolution pass holds no float plane of the photo's size (four would be 16 bytes a pixel, 380 MB for
    /// a 24-megapixel photo). In a compute-pool piece, idle threads of the pool take planes and bands too
    /// (`loop`): this is the end of a lone sticker, where the other core is otherwise idle.
    static func upsample(mask: [Float], guide: [Float], width w: Int, height h: Int, to image: Image,
                         region: PixelRect? = nil, radius: Int, epsilon: Float, level: Float = 0.5,
                         on loop: some ParallelLoop) throws -> [UInt8] {
        let n = w * h
        precondition(mask.count == n && guide.count == 3 * n)
        let part = region ?? PixelRect(x: 0, y: 0, width: image.width, height: image.height)
        precondition(part.x >= 0 && part.y >= 0 && part.width > 0 && part.height > 0
                     && part.x + part.width <= image.width && part.y + part.height <= image.height, "region off the image")
        let W = part.width, H = part.height, stride = image.width
        var out = [UInt8](repeating: 0, count: W * H)
        let threads = loop.width
        let floats = UnsafeMutablePointer<Float>.allocate(capacity: Planes.statistics * n)
        let tables = UnsafeMutablePointer<Double>.allocate(capacity: threads * (w + 1) * (h + 1))
        defer { floats.deallocate(); tables.deallocate() }
        try out.withUnsafeMutableBufferPointer { q in
            try image.pixels.withUnsafeBufferPointer { px in
                let work = Planes(floats: floats, tables: tables, size: n, tableSize: (w + 1) * (h + 1),
                                  rgba: px.baseAddress! + 4 * (part.y * stride + part.x), mask: q.baseAddress!)
                let box: @Sendable (_ thread: Int, _ source: UnsafePointer<Float>, _ plane: Int) -> Void = {
                    ck_box_mean($1, w, h, radius, work.table($0), work.plane($2))
                }
                try loop.forEach(Planes.statistics) { thread, index in
                    try loop.checkCancellation()
                    let plane = work.plane(index)
                    guide.withUnsafeBufferPointer { g in
                        mask.withUnsafeBufferPointer { m in
                            Planes.statistic(index, guide: g, mask: m, into: plane)
                        }
                    }
                    box(thread, plane, index)
                }
                // The fit, pixel by pixel, in bands; then the box means of its coefficients.
                let band = 16_384
                try loop.forEach((n + band - 1) / band) { _, index in
                    try loop.checkCancellation()
                    let start = index * band
                    let mean = (0..<4).map { UnsafePointer<Float>?(work.plane($0) + start) }
                    let corr = (4..<Planes.statistics).map { UnsafePointer<Float>?(work.plane($0) + start) }
                    var a = (0..<3).map { Optional(work.plane(Planes.coefficient($0)) + start) }
                    let b = work.plane(Planes.coefficient(3)) + start
                    ck_guided_fit(min(band, n - start), mean, corr, epsilon, &a, b)
                }
                try loop.forEach(4) { thread, index in
                    try loop.checkCancellation()
                    box(thread, work.plane(Planes.coefficient(index)), Planes.smoothed(index))
                }
                let enlarger = PlaneResampler.RowEnlarger(width: w, height: h, targetWidth: W, targetHeight: H)
                let rowsPerBand = 32
                try loop.forEach((H + rowsPerBand - 1) / rowsPerBand) { _, index in
                    try loop.checkCancellation()
                    let smoothed = (0..<4).map { UnsafePointer<Float>?(work.plane(Planes.smoothed($0))) }
                    // The model is fitted on 0...1 colours: fold the 1/255 into the threshold side instead of
                    // dividing every pixel.
                    let scale: Float = 1 / 255
                    for y in index * rowsPerBand..<min(H, (index + 1) * rowsPerBand) {
                        let (r0, r1, wy) = enlarger.rows(y)
                        ck_guided_mask_row(smoothed, r0, r1, wy, enlarger.x0, enlarger.x1, enlarger.wx,
                                           work.rgba + 4 * y * stride, W, scale, level, work.mask + y * W)
                    }
                }
            }
        }
        return out
    }

    /// The guided filter's working-size planes, one buffer shared by the threads of an upsampling: the thirteen
    /// window statistics (in the order `ck_guided_fit` takes them), of which the first four then hold the fit's
    /// coefficients and then their box means; a summed-area table for each thread; the photo's colours (the part's
    /// first pixel, rows `image.width` apart) and the full-size mask.
    ///
    /// `@unchecked Sendable` is sound here: each index of a `spread` writes only its own plane, band of planes or
    /// band of mask rows (reading, in place, only what it writes), each thread number (used by one thread at a
    /// time) only its own table, planes are read by other indices only in the `spread` after the one that wrote
    /// them, and `spread` returns with every helper out of its body before `upsample` frees the buffers.
    private struct Planes: @unchecked Sendable {
        /// Statistics 0-2: the means of I's channels; 3: of p; 4-9: of I·Iᵀ's six distinct entries (rr, rg, rb,
        /// gg, gb, bb); 10-12: of I·p per channel. Each is box-filtered where it was computed; the fit writes its
        /// four coefficients over the four means, and they are box-filtered in place (13 planes, not 21 and a
        /// scratch plane per thread: 6 MB less for a 480x320 working copy).
        static let statistics = 13
        static func coefficient(_ i: Int) -> Int { i }
        static func smoothed(_ i: Int) -> Int { i }

        let floats: UnsafeMutablePointer<Float>
        let tables: UnsafeMutablePointer<Double>
        let size: Int, tableSize: Int
        let rgba: UnsafePointer<UInt8>
        let mask: UnsafeMutablePointer<UInt8>

        func plane(_ i: Int) -> UnsafeMutablePointer<Float> { floats + i * size }
        func table(_ thread: Int) -> UnsafeMutablePointer<Double> { tables + thread * tableSize }

        /// The values statistic `index` is the box mean of.
        static func statistic(_ index: Int, guide g: UnsafeBufferPointer<Float>, mask m: UnsafeBufferPointer<Float>,
                              into plane: UnsafeMutablePointer<Float>) {
            let pairs = [(0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2)]
            switch index {
            case 0..<3: for i in m.indices { plane[i] = g[3 * i + index] }
            case 3: for i in m.indices { plane[i] = m[i] }
            case 4..<10:
                let (c, d) = pairs[index - 4]
                for i in m.indices { plane[i] = g[3 * i + c] * g[3 * i + d] }
            default: for i in m.indices { plane[i] = g[3 * i + index - 10] * m[i] }
            }
        }
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
