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

    /// Bilinear resampling to `w` x `h` (half-pixel centres), clamped to 0...1.
    func resampled(width w: Int, height h: Int) -> [Float] {
        var out = [Float](repeating: 0, count: w * h)
        for y in 0..<h {
            let sy = min(max((Float(y) + 0.5) * Float(height) / Float(h) - 0.5, 0), Float(height - 1))
            let y0 = Int(sy), y1 = min(y0 + 1, height - 1), fy = sy - Float(y0)
            for x in 0..<w {
                let sx = min(max((Float(x) + 0.5) * Float(width) / Float(w) - 0.5, 0), Float(width - 1))
                let x0 = Int(sx), x1 = min(x0 + 1, width - 1), fx = sx - Float(x0)
                let top = values[y0 * width + x0] * (1 - fx) + values[y0 * width + x1] * fx
                let bottom = values[y1 * width + x0] * (1 - fx) + values[y1 * width + x1] * fx
                out[y * w + x] = min(1, max(0, top * (1 - fy) + bottom * fy))
            }
        }
        return out
    }

    /// The map at 0.5, resampled to `w` x `h`: the network's cut-out alone (for measurements).
    public func thresholdMask(width w: Int, height h: Int) -> Mask {
        Mask(width: w, height: h, values: resampled(width: w, height: h).map { $0 >= 0.5 ? 255 : 0 })
    }
}
