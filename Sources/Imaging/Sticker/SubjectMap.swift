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

    /// The map resampled to `w` x `h` (bilinear, pixel centres aligned).
    public func resized(width w: Int, height h: Int) -> SubjectMap {
        w == width && h == height ? self : SubjectMap(width: w, height: h, values: resampled(width: w, height: h))
    }

    /// The map at 0.5, resampled to `w` x `h`: the network's cut-out alone (for measurements).
    public func thresholdMask(width w: Int, height h: Int) -> Mask {
        Mask(width: w, height: h, values: resampled(width: w, height: h).map { $0 >= 0.5 ? 255 : 0 })
    }
}
