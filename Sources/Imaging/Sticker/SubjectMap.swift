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

    /// The map at 0.5, resampled to `w` x `h`: the network's cut-out alone (for measurements).
    public func thresholdMask(width w: Int, height h: Int) -> Mask {
        Mask(width: w, height: h, values: resampled(width: w, height: h).map { $0 >= 0.5 ? 255 : 0 })
    }
}
