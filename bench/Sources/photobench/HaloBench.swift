import Foundation
import Imaging

/// `photobench halo [--dir .build/halo-set] [--verbose]`
///
/// The halo of a cut-out's soft edge, on the set `bench/make_halo_set.py` makes (each sticker-dev subject with a
/// soft edge over a saturated gradient, its alpha, its true colours): mean CIEDE2000 over the edge pixels (alpha
/// strictly between 0 and 255) of
/// - the plain cut: the composite's own colours under that alpha (what a cut-out without foreground estimation is),
/// - the estimated foreground (`ForegroundEstimator`, from the composite and the same alpha),
/// each against the true foreground colour; per half of the names (tuning / held-out, as `photobench sticker
/// --split`) and all, with the estimator's time per photo.
enum HaloBench {
    static func run(_ args: [String]) throws {
        var dir = ".build/halo-set", verbose = false
        var i = 0
        while i < args.count {
            switch args[i] {
            case "--dir": i += 1; dir = args[i]
            case "--verbose", "-v": verbose = true
            default: throw StickerBench.BenchError("unknown argument \(args[i])")
            }
            i += 1
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".composite.png") }
            .map { String($0.dropLast(".composite.png".count)) }.sorted()
        guard !names.isEmpty else { throw StickerBench.BenchError("no halo set in \(dir): run bench/make_halo_set.py") }
        var plain: [Double] = [], estimated: [Double] = [], ms: [Double] = []
        var bins = [(Double, Double, Double)](repeating: (0, 0, 0), count: 5)
        for name in names {
            func load(_ suffix: String) throws -> Image {
                guard let data = FileManager.default.contents(atPath: "\(dir)/\(name).\(suffix).png") else {
                    throw StickerBench.BenchError("cannot read \(name).\(suffix).png")
                }
                return try ImageCodec.decode([UInt8](data), on: .inTurn).image
            }
            let composite = try load("composite"), truth = try load("fg"), alphaImage = try load("alpha")
            let alpha = Mask(width: alphaImage.width, height: alphaImage.height,
                             values: (0..<alphaImage.pixelCount).map { alphaImage.pixels[4 * $0] })
            let start = DispatchTime.now().uptimeNanoseconds
            let (_, fg) = try ForegroundEstimator.estimate(composite, alpha: alpha,
                                                           in: PixelRect(x: 0, y: 0, width: composite.width, height: composite.height), on: .inTurn)
            ms.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            var p = 0.0, e = 0.0, n = 0
            var binP = [Double](repeating: 0, count: 5), binE = binP, binN = binP
            for q in 0..<composite.pixelCount where alpha.values[q] > 0 && alpha.values[q] < 255 {
                let t = ColorScience.lab(fromSRGB: truth.pixels[4 * q], truth.pixels[4 * q + 1], truth.pixels[4 * q + 2])
                let c = ColorScience.lab(fromSRGB: composite.pixels[4 * q], composite.pixels[4 * q + 1], composite.pixels[4 * q + 2])
                let f = ColorScience.lab(fromSRGB: fg[4 * q], fg[4 * q + 1], fg[4 * q + 2])
                let dp = ColorScience.ciede2000(t, c), de = ColorScience.ciede2000(t, f)
                p += dp; e += de; n += 1
                let bin = min(4, Int(alpha.values[q]) * 5 / 255)
                binP[bin] += dp; binE[bin] += de; binN[bin] += 1
            }
            for b in 0..<5 { bins[b].0 += binP[b]; bins[b].1 += binE[b]; bins[b].2 += binN[b] }
            plain.append(p / Double(max(1, n))); estimated.append(e / Double(max(1, n)))
            if verbose { print(String(format: "%@  edge px %d  plain %.2f  estimated %.2f  %.1f ms", name, n, plain.last!, estimated.last!, ms.last!)) }
        }
        func mean(_ v: ArraySlice<Double>) -> Double { v.reduce(0, +) / Double(max(1, v.count)) }
        let half = names.count / 2
        for (label, range) in [("tuning half", 0..<half), ("held-out half", half..<names.count), ("all", 0..<names.count)] {
            let pm = mean(plain[range]), em = mean(estimated[range])
            print(String(format: "halo: %@ (%d)  mean CIEDE2000 of edge pixels: plain cut %.2f  estimated foreground %.2f  (ratio %.3f)",
                         label, range.count, pm, em, em / pm))
        }
        for (b, v) in bins.enumerated() {
            print(String(format: "halo: alpha %d-%d%%: %.0f pixels, plain %.2f, estimated %.2f", 20 * b, 20 * b + 20, v.2, v.0 / v.2, v.1 / v.2))
        }
        print(String(format: "halo: ForegroundEstimator %.1f ms/photo mean (whole photo as the rectangle)", mean(ms[...])))
    }
}
