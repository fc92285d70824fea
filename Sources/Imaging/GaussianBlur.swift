/// Gaussian blur approximated by three successive box blurs per axis (Wells 1986; box sizes per
/// Kutskir's "boxes for Gauss"), on premultiplied `Float` RGBA with running sums, so the cost per
/// pixel is constant in the radius. Edges are extended (clamp-to-edge).
///
/// Scratch: two `Float` RGBA planes (32 bytes per pixel) for the duration of the call.
enum GaussianBlur {
    static let cancellationBand = 32

    static func apply(_ image: Image, sigma requested: Double) throws -> Image {
        let sigma = min(requested, Double(max(image.width, image.height)))
        if sigma < 0.2 { return image } // below a fifth of a pixel nothing visible changes
        let radii = boxRadii(sigma: sigma)
        let w = image.width, h = image.height

        var a = [SIMD4<Float>](repeating: .zero, count: w * h)
        var b = [SIMD4<Float>](repeating: .zero, count: w * h)
        image.pixels.withUnsafeBufferPointer { src in
            a.withUnsafeMutableBufferPointer { dst in
                for i in 0..<(w * h) {
                    let s = i * 4
                    let alpha = Float(src[s + 3])
                    let k = alpha * (1 / 255)
                    dst[i] = SIMD4(Float(src[s]) * k, Float(src[s + 1]) * k, Float(src[s + 2]) * k, alpha)
                }
            }
        }

        // Horizontal: each row through the three boxes, a -> b -> a -> b.
        try a.withUnsafeMutableBufferPointer { a in
            try b.withUnsafeMutableBufferPointer { b in
                for y in 0..<h {
                    if y % cancellationBand == 0, Cancellation.isRequested { throw CancellationError() }
                    let row = y * w
                    boxLine(a, b, start: row, count: w, step: 1, radius: radii[0])
                    boxLine(b, a, start: row, count: w, step: 1, radius: radii[1])
                    boxLine(a, b, start: row, count: w, step: 1, radius: radii[2])
                }
                // Vertical: whole-plane passes with a row of running sums (cache-friendly),
                // b -> a -> b -> a.
                try boxColumns(b, a, width: w, height: h, radius: radii[0])
                try boxColumns(a, b, width: w, height: h, radius: radii[1])
                try boxColumns(b, a, width: w, height: h, radius: radii[2])
            }
        }

        var out = [UInt8](repeating: 0, count: w * h * 4)
        a.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for i in 0..<(w * h) { Resampler.storeUnpremultiplied(src[i], into: dst, at: i * 4) }
            }
        }
        return Image(width: w, height: h, pixels: out)
    }

    /// Radii of three box filters whose cascade has (close to) standard deviation `sigma`.
    static func boxRadii(sigma: Double) -> [Int] {
        let n = 3.0
        let ideal = (12 * sigma * sigma / n + 1).squareRoot()
        var lower = Int(ideal.rounded(.down))
        if lower % 2 == 0 { lower -= 1 }
        lower = max(lower, 1)
        let upper = lower + 2
        let wl = Double(lower)
        let m = Int(((12 * sigma * sigma - n * wl * wl - 4 * n * wl - 3 * n) / (-4 * wl - 4)).rounded())
        return (0..<3).map { i in ((i < m ? lower : upper) - 1) / 2 }
    }

    /// One box pass along a line of `count` elements at `step`, clamp-to-edge.
    private static func boxLine(
        _ src: UnsafeMutableBufferPointer<SIMD4<Float>>, _ dst: UnsafeMutableBufferPointer<SIMD4<Float>>,
        start: Int, count: Int, step: Int, radius r: Int
    ) {
        let scale = 1 / Float(2 * r + 1)
        let last = count - 1
        @inline(__always) func at(_ i: Int) -> SIMD4<Float> { src[start + min(max(i, 0), last) * step] }
        var sum = SIMD4<Float>.zero
        for j in -r...r { sum += at(j) }
        for i in 0..<count {
            dst[start + i * step] = sum * scale
            sum += at(i + r + 1) - at(i - r)
        }
    }

    /// One vertical box pass over the whole plane, keeping a running sum per column.
    private static func boxColumns(
        _ src: UnsafeMutableBufferPointer<SIMD4<Float>>, _ dst: UnsafeMutableBufferPointer<SIMD4<Float>>,
        width w: Int, height h: Int, radius r: Int
    ) throws {
        let scale = 1 / Float(2 * r + 1)
        let last = h - 1
        var sums = [SIMD4<Float>](repeating: .zero, count: w)
        try sums.withUnsafeMutableBufferPointer { sums in
            for j in -r...r {
                let row = min(max(j, 0), last) * w
                for x in 0..<w { sums[x] += src[row + x] }
            }
            for y in 0..<h {
                if y % cancellationBand == 0, Cancellation.isRequested { throw CancellationError() }
                let out = y * w
                let add = min(y + r + 1, last) * w
                let sub = max(y - r, 0) * w
                for x in 0..<w {
                    dst[out + x] = sums[x] * scale
                    sums[x] += src[add + x] - src[sub + x]
                }
            }
        }
    }
}
