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

    /// The box, in the pixels of a `photoWidth` x `photoHeight` photo this map covers, of the map's part (values
    /// `threshold` and up, 8-connected) at `point` or a pixel or two of the map from it; nil for none.
    func part(at point: PixelPoint, threshold: Float, photoWidth: Int, photoHeight: Int) -> PixelRect? {
        let w = width, h = height
        let labels = values.map { $0 >= threshold ? UInt8(1) : 0 }
        let (ids, _, _) = MaskCleanup.components(labels, width: w, height: h, value: 1)
        let x = min(w - 1, max(0, Int((Double(point.x) + 0.5) * Double(w) / Double(photoWidth))))
        let y = min(h - 1, max(0, Int((Double(point.y) + 0.5) * Double(h) / Double(photoHeight))))
        let id = SubjectSelection.component(at: y * w + x, ids: ids, width: w, height: h, radius: max(1, max(w, h) / 100))
        guard id >= 0 else { return nil }
        var x0 = w, y0 = h, x1 = -1, y1 = -1
        for p in 0..<(w * h) where ids[p] == id {
            x0 = min(x0, p % w); x1 = max(x1, p % w); y0 = min(y0, p / w); y1 = max(y1, p / w)
        }
        let sx = Double(photoWidth) / Double(w), sy = Double(photoHeight) / Double(h)
        let bx0 = Int(Double(x0) * sx), by0 = Int(Double(y0) * sy)
        let bx1 = min(photoWidth, Int((Double(x1 + 1) * sx).rounded(.up)))
        let by1 = min(photoHeight, Int((Double(y1 + 1) * sy).rounded(.up)))
        return PixelRect(x: bx0, y: by0, width: bx1 - bx0, height: by1 - by0)
    }
}
