import Compute
import Foundation

/// Dominant-colour palette ("colour scheme") of an image.
///
/// Pipeline, chosen to minimise the mean CIEDE2000 distance from each pixel to its nearest
/// palette colour, measured in bench/ (`photobench palette`):
/// 1. downscale so the longest side is at most ``workingSize`` (Lanczos, alpha-correct), unless it
///    is at most twice that already (a JPEG the worker decoded with DCT scaling for the palette): a
///    histogram needs no filtering, and counting a few more pixels costs less than resampling;
/// 2. drop pixels with alpha below ``alphaThreshold``; bin the rest into an RGB 4-4-4
///    histogram whose occupied bins carry their pixel count and the CIELAB colour of their mean;
/// 3. weighted k-means, from several seeded k-means++ starts, in a warp of CIELAB where
///    Euclidean distance approximates CIEDE2000 (`UniformLab`); the start with the lowest mean
///    distance wins and is polished with Weiszfeld (geometric-median) steps, because the metric
///    is a mean distance, not a squared one;
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
    ///   `CancellationError` when `loop` is cancelled (``InTurnLoop``, the loop for code off the compute pool: the
    ///   calling task).
    public static func palette(of image: Image, count: Int, on loop: some ParallelLoop) throws -> [PaletteColor] {
        guard supportedCounts.contains(count) else { throw PaletteError.invalidCount(count) }
        let working: Image
        if max(image.width, image.height) > 2 * workingSize {
            let t = ThumbnailGeometry.target(sourceWidth: image.width, sourceHeight: image.height,
                                             width: workingSize, height: workingSize, fit: .contain)
            working = try Resampler.resize(image, width: t.width, height: t.height, on: loop)
        } else {
            working = image
        }
        let points = ColorHistogram(working, alphaThreshold: alphaThreshold)
        if points.count == 0 { return [] }
        if loop.isCancelled { throw CancellationError() }
        let clustering = PaletteClustering(points: points)
        let centers = try clustering.solve(k: count, on: loop)
        return clustering.finalPalette(centers: centers)
    }
}

/// Occupied bins of an RGB histogram (``bitsPerChannel`` bits a channel): weight (pixel count) and the
/// CIELAB colour of the bin's mean sRGB colour.
///
/// The pixels of one bin differ by less than 2^(8 - bits) in each channel, so the Lab colour of their
/// mean sRGB stands for the mean of their Lab colours; converting once per occupied bin instead of
/// once per pixel takes the cube roots out of the pixel loop.
struct ColorHistogram {
    static let bitsPerChannel = 4
    var L: [Double] = []
    var A: [Double] = []
    var B: [Double] = []
    var weight: [Double] = []
    var count: Int { weight.count }

    init() {}

    init(_ image: Image, alphaThreshold: UInt8) {
        let bits = Self.bitsPerChannel, shift = UInt8(8 - bits)
        let binCount = 1 << (3 * bits)
        // Per bin: r, g, b sums and the pixel count.
        var sums = [SIMD4<UInt32>](repeating: .zero, count: binCount)
        image.pixels.withUnsafeBufferPointer { p in
            sums.withUnsafeMutableBufferPointer { sums in
                var i = 0
                while i < p.count {
                    if p[i + 3] >= alphaThreshold {
                        let r = p[i], g = p[i + 1], b = p[i + 2]
                        let key = Int(r >> shift) << (2 * bits) | Int(g >> shift) << bits | Int(b >> shift)
                        sums[key] &+= SIMD4(UInt32(r), UInt32(g), UInt32(b), 1)
                    }
                    i += 4
                }
            }
        }
        for key in 0..<binCount where sums[key].w > 0 {
            let s = sums[key], n = Double(s.w)
            let c = ColorScience.lab(fromLinearRGB: ColorScience.linear(Double(s.x) / n / 255),
                                     ColorScience.linear(Double(s.y) / n / 255),
                                     ColorScience.linear(Double(s.z) / n / 255))
            L.append(c.L); A.append(c.a); B.append(c.b); weight.append(n)
        }
    }
}
