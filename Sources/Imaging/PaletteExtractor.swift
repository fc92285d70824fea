import Foundation

/// Dominant-colour palette ("colour scheme") of an image.
///
/// Pipeline, chosen to minimise the mean CIEDE2000 distance from each pixel to its nearest
/// palette colour, measured in bench/ (`photobench palette`):
/// 1. downscale so the longest side is at most ``workingSize`` (Lanczos, alpha-correct);
/// 2. drop pixels with alpha below ``alphaThreshold``; bin the rest into an RGB 5-5-5
///    histogram whose occupied bins carry their pixel count and mean CIELAB colour;
/// 3. weighted k-means, from several seeded k-means++ starts, in a warp of CIELAB where
///    Euclidean distance approximates CIEDE2000 (`UniformLab`), each followed by Weiszfeld
///    (geometric-median) steps because the metric is a mean distance, not a squared one;
///    the start with the lowest mean distance wins;
/// 4. a few iteratively re-weighted steps that use CIEDE2000 itself, kept only while they lower
///    the mean CIEDE2000.
/// Everything is deterministic: the k-means++ draws come from a fixed-seed generator.
public enum PaletteExtractor {
    /// Accepted `count` values (the worker restricts further, to 3...10).
    public static let supportedCounts = 1...16
    /// Longest side of the working copy.
    public static let workingSize = 128
    /// Pixels with alpha below this are ignored.
    public static let alphaThreshold: UInt8 = 128

    /// Dominant colours, sorted by share (ties by hex), deterministic.
    ///
    /// Returns fewer than `count` colours when the image has fewer distinct colours (a one-colour
    /// image returns one), never an empty list for an image with at least one pixel whose alpha is
    /// at least ``alphaThreshold``. An image with no such pixel (fully transparent) returns `[]`.
    ///
    /// - Throws: ``PaletteError/invalidCount(_:)`` for `count` outside ``supportedCounts``;
    ///   `CancellationError` when the task is cancelled.
    public static func palette(of image: Image, count: Int) throws -> [PaletteColor] {
        guard supportedCounts.contains(count) else { throw PaletteError.invalidCount(count) }
        let working: Image
        if max(image.width, image.height) > workingSize {
            let t = ThumbnailGeometry.target(sourceWidth: image.width, sourceHeight: image.height,
                                             width: workingSize, height: workingSize, fit: .contain)
            working = try Resampler.resize(image, width: t.width, height: t.height)
        } else {
            working = image
        }
        let points = ColorHistogram(working, alphaThreshold: alphaThreshold)
        if points.count == 0 { return [] }
        if Cancellation.isRequested { throw CancellationError() }
        let clustering = PaletteClustering(points: points)
        let centers = try clustering.solve(k: count)
        return clustering.finalPalette(centers: centers)
    }
}

/// Occupied bins of an RGB 5-5-5 histogram: weight (pixel count) and mean CIELAB per bin.
struct ColorHistogram {
    var L: [Double] = []
    var A: [Double] = []
    var B: [Double] = []
    var weight: [Double] = []
    var count: Int { weight.count }

    init() {}

    init(_ image: Image, alphaThreshold: UInt8) {
        let binCount = 1 << 15
        var counts = [Int32](repeating: 0, count: binCount)
        var sums = [SIMD4<Double>](repeating: .zero, count: binCount)
        image.pixels.withUnsafeBufferPointer { p in
            counts.withUnsafeMutableBufferPointer { counts in
                sums.withUnsafeMutableBufferPointer { sums in
                    var i = 0
                    while i < p.count {
                        if p[i + 3] >= alphaThreshold {
                            let r = p[i], g = p[i + 1], b = p[i + 2]
                            let key = Int(r >> 3) << 10 | Int(g >> 3) << 5 | Int(b >> 3)
                            counts[key] += 1
                            let c = ColorScience.lab(fromSRGB: r, g, b)
                            sums[key] += SIMD4(c.L, c.a, c.b, 0)
                        }
                        i += 4
                    }
                }
            }
        }
        for key in 0..<binCount where counts[key] > 0 {
            let n = Double(counts[key])
            let s = sums[key] / n
            L.append(s.x); A.append(s.y); B.append(s.z); weight.append(n)
        }
    }

}
