import Foundation

extension Compositing {
    /// A linear gradient through `colors` at evenly spaced stops, CSS `linear-gradient` geometry:
    /// `angleDegrees` 0 points up, 90 right, 135 (default) to the bottom-right; the first and last
    /// colours land exactly on the two corners the gradient line runs between.
    ///
    /// Colours are interpolated in premultiplied sRGB (as CSS does), so a fade to transparent
    /// does not pass through grey. No colours gives a transparent image, one colour a solid fill.
    /// A non-finite angle is treated as 0. Sizes below 1 are raised to 1.
    public static func linearGradient(width: Int, height: Int, colors: [RGBA], angleDegrees: Double = 135) -> Image {
        let w = max(1, width), h = max(1, height)
        guard let first = colors.first else { return Image(width: w, height: h) }
        if colors.count == 1 { return Image(width: w, height: h, fill: first) }

        let angle = (angleDegrees.isFinite ? angleDegrees : 0) * .pi / 180
        let dx = sin(angle), dy = -cos(angle)
        let length = abs(Double(w) * dx) + abs(Double(h) * dy)
        let stops = colors.map { c -> SIMD4<Double> in
            let k = Double(c.a) / 255
            return SIMD4(Double(c.r) * k, Double(c.g) * k, Double(c.b) * k, Double(c.a))
        }
        let segments = Double(stops.count - 1)

        var pixels = [UInt8](repeating: 0, count: w * h * 4)
        pixels.withUnsafeMutableBufferPointer { p in
            for y in 0..<h {
                let py = (Double(y) + 0.5 - Double(h) / 2) * dy
                for x in 0..<w {
                    let px = (Double(x) + 0.5 - Double(w) / 2) * dx
                    let t = min(max((px + py) / length + 0.5, 0), 1) * segments
                    let i = min(Int(t), stops.count - 2)
                    let f = t - Double(i)
                    let c = stops[i] + (stops[i + 1] - stops[i]) * f
                    let o = (y * w + x) * 4
                    let a = (c.w).rounded()
                    if a < 1 { continue } // stays transparent black
                    let k = 255 / c.w
                    p[o] = UInt8(min(255, (c.x * k).rounded()))
                    p[o + 1] = UInt8(min(255, (c.y * k).rounded()))
                    p[o + 2] = UInt8(min(255, (c.z * k).rounded()))
                    p[o + 3] = UInt8(a)
                }
            }
        }
        return Image(width: w, height: h, pixels: pixels)
    }
}
