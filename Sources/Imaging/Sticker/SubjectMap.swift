/// A learned subject probability map (0...1 per pixel, at the network's own resolution, covering the
/// whole image), given to the cut as its main prior. Imaging does not know where it came from.
public struct SubjectMap: Sendable {
    public let width: Int
    public let height: Int
    public let values: [Float]

    public init(width: Int, height: Int, values: [Float]) {
        precondition(values.count == width * height, "subject map values do not match its size")
        self.width = width
        self.height = height
        self.values = values
    }

    /// Bilinear resampling to `w` x `h` with pixel-centre alignment (`PlaneResampler.RowEnlarger`,
    /// which serves reduction as well: each output sample reads the four source samples around it).
    func resampled(width w: Int, height h: Int) -> [Float] {
        let enlarger = PlaneResampler.RowEnlarger(width: width, height: height, targetWidth: w, targetHeight: h)
        var out = [Float](repeating: 0, count: w * h)
        var row = [Float](repeating: 0, count: w)
        values.withUnsafeBufferPointer { src in
            for y in 0..<h {
                enlarger.row(y, of: src, into: &row)
                out.replaceSubrange(y * w..<(y + 1) * w, with: row)
            }
        }
        return out
    }

    /// Whether the map decides the cut-out on its own: it finds a subject (at least 2% of the frame above 0.5)
    /// and is sure almost everywhere (at most 10% of it between 0.1 and 0.9). On the tuning half of sticker-dev
    /// the classical maps then change the cut-out by nothing on average, while on a map that finds nothing they
    /// are the whole cut-out (bench/README.md, issue #30).
    public var isDecisive: Bool {
        var subject = 0, unsure = 0
        for v in values {
            if v > 0.5 { subject += 1 }
            if v > 0.1 && v < 0.9 { unsure += 1 }
        }
        return subject * 50 >= values.count && unsure * 10 <= values.count
    }

    /// The map resampled to `w` x `h` (bilinear, pixel centres aligned).
    public func resized(width w: Int, height h: Int) -> SubjectMap {
        w == width && h == height ? self : SubjectMap(width: w, height: h, values: resampled(width: w, height: h))
    }

    /// This map of a whole photo (`photoWidth` x `photoHeight`) averaged with `part`, the map of the photo's
    /// `region` alone, on a grid of the photo with `longSide` pixels on its long side. Outside the region `part`
    /// counts as 0: it is made for a box the person drew round the subject, outside which nothing is kept anyway.
    /// - Precondition: `region` lies on the photo and has an area.
    public func averaged(with part: SubjectMap, of region: PixelRect, photoWidth: Int, photoHeight: Int,
                         longSide: Int) -> SubjectMap {
        precondition(region.width > 0 && region.height > 0 && region.x >= 0 && region.y >= 0
                         && region.x + region.width <= photoWidth && region.y + region.height <= photoHeight,
                     "the region lies off the photo")
        let scale = Double(longSide) / Double(max(photoWidth, photoHeight))
        let mw = max(1, Int((Double(photoWidth) * scale).rounded()))
        let mh = max(1, Int((Double(photoHeight) * scale).rounded()))
        let ox = min(mw - 1, Int((Double(region.x) * scale).rounded()))
        let oy = min(mh - 1, Int((Double(region.y) * scale).rounded()))
        let pw = max(1, min(mw - ox, Int((Double(region.width) * scale).rounded())))
        let ph = max(1, min(mh - oy, Int((Double(region.height) * scale).rounded())))
        let placed = part.resampled(width: pw, height: ph)
        var values = resampled(width: mw, height: mh)
        for y in 0..<mh {
            for x in 0..<mw {
                let inside = x >= ox && x < ox + pw && y >= oy && y < oy + ph
                values[y * mw + x] = 0.5 * (values[y * mw + x] + (inside ? placed[(y - oy) * pw + x - ox] : 0))
            }
        }
        return SubjectMap(width: mw, height: mh, values: values)
    }

    /// The map at 0.5, resampled to `w` x `h`: the network's cut-out alone (for measurements).
    public func thresholdMask(width w: Int, height h: Int) -> Mask {
        Mask(width: w, height: h, values: resampled(width: w, height: h).map { $0 >= 0.5 ? 255 : 0 })
    }
}
