import Compute
import Foundation

/// The reduced working copy that segmentation runs on: CIELAB (D65) colours, interleaved, plus the
/// source alpha, at most `workingSize` pixels on the longest side.
struct LabImage {
    let width: Int
    let height: Int
    /// L*, a*, b* per pixel (L* in 0...100).
    var lab: [Float]
    /// Source alpha in 0...1.
    var alpha: [Float]
    /// sRGB in 0...1, three interleaved values per pixel: the guide for edge-aware mask upsampling.
    var rgb: [Float]

    var count: Int { width * height }

    /// Wraps existing planes (`lab` and `rgb` three values per pixel, `alpha` one).
    init(width: Int, height: Int, lab: [Float], alpha: [Float], rgb: [Float]) {
        precondition(lab.count == 3 * width * height && rgb.count == lab.count && alpha.count == width * height)
        self.width = width; self.height = height; self.lab = lab; self.alpha = alpha; self.rgb = rgb
    }

    /// Reduces `image` by area averaging so its longest side is at most `maxSide`, then converts to Lab.
    /// - Throws: `CancellationError`.
    init(_ image: Image, maxSide: Int, on loop: some ParallelLoop) throws {
        let (w, h, small) = try PlaneResampler.reduced(image, maxSide: maxSide, on: loop)
        self.width = w
        self.height = h
        var lab = [Float](repeating: 0, count: w * h * 3)
        var alpha = [Float](repeating: 0, count: w * h)
        var rgb = [Float](repeating: 0, count: w * h * 3)
        let linear = LabImage.linearTable
        small.withUnsafeBufferPointer { s in
            lab.withUnsafeMutableBufferPointer { l in
                for i in 0..<(w * h) {
                    let r = LabImage.linearize(s[4 * i], linear), g = LabImage.linearize(s[4 * i + 1], linear)
                    let b = LabImage.linearize(s[4 * i + 2], linear)
                    let (L, A, B) = LabImage.lab(r: r, g: g, b: b)
                    l[3 * i] = L; l[3 * i + 1] = A; l[3 * i + 2] = B
                    alpha[i] = s[4 * i + 3] / 255
                    rgb[3 * i] = s[4 * i] / 255; rgb[3 * i + 1] = s[4 * i + 1] / 255; rgb[3 * i + 2] = s[4 * i + 2] / 255
                }
            }
        }
        self.lab = lab
        self.alpha = alpha
        self.rgb = rgb
    }

    /// sRGB transfer curve sampled at the 256 code values; averaged inputs interpolate between entries.
    private static let linearTable: [Float] = (0...256).map { v in
        let c = Double(min(v, 255)) / 255
        return Float(c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4))
    }

    @inline(__always)
    private static func linearize(_ v: Float, _ table: [Float]) -> Float {
        let i = min(254, max(0, Int(v)))
        let t = v - Float(i)
        return table[i] + (table[i + 1] - table[i]) * t
    }

    @inline(__always)
    private static func f(_ t: Float) -> Float {
        t > 0.008856 ? cbrtf(t) : (7.787 * t + 16.0 / 116.0)
    }

    /// Linear sRGB → CIELAB with the D65 white point.
    @inline(__always)
    static func lab(r: Float, g: Float, b: Float) -> (Float, Float, Float) {
        let x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
        let y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
        let z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883
        let fx = f(x), fy = f(y), fz = f(z)
        return (116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))
    }
}
