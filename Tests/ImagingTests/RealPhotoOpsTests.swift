import Foundation
import Testing
@testable import Imaging

/// Resampling and palette on real corpus photos (corpus relative to the package root).
@Suite(.timeLimit(.minutes(10))) struct RealPhotoOpsTests {
    static let photos = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("corpus/photos")

    static func load(_ name: String) throws -> Image {
        let bytes = [UInt8](try Data(contentsOf: photos.appendingPathComponent(name)))
        return try ImageCodec.decode(bytes, on: .inTurn).image
    }

    /// The palette metric (also computed by bench/palette_peers.py): mean CIEDE2000 from each
    /// counted pixel to its nearest palette colour.
    static func meanDistance(_ image: Image, _ palette: [PaletteColor]) -> Double {
        let labs = palette.map { ColorScience.lab(fromSRGB: $0.rgb.r, $0.rgb.g, $0.rgb.b) }
        var total = 0.0, n = 0
        for y in 0..<image.height {
            for x in 0..<image.width where image[x, y].a >= 128 {
                let p = image[x, y]
                let lab = ColorScience.lab(fromSRGB: p.r, p.g, p.b)
                total += labs.map { ColorScience.ciede2000(lab, $0) }.min() ?? 0
                n += 1
            }
        }
        return total / Double(max(n, 1))
    }

    @Test(arguments: ["car-1.jpg", "animal-2.jpg", "girl-2.jpg"])
    func paletteOfAPhotoIsCompactSortedAndClose(name: String) throws {
        let image = try Self.load(name)
        let small = try Resampler.thumbnail(image, width: 128, height: 128, on: .inTurn)
        let palette = try PaletteExtractor.palette(of: small, count: 5, on: .inTurn)
        #expect(palette.count == 5)
        #expect(zip(palette, palette.dropFirst()).allSatisfy { $0.fraction >= $1.fraction })
        let total: Double = palette.map(\.fraction).reduce(0, +)
        #expect(abs(total - 1) < 1e-9)
        // colorthief averages 7.2 on the corpus, k-means in CIELAB 5.1 (bench/palette_peers.py).
        let distance = Self.meanDistance(small, palette)
        #expect(distance < 7, "\(name): \(distance)")
        // Same answer from the full-size image (downscaled internally the same way).
        #expect(try PaletteExtractor.palette(of: image, count: 5, on: .inTurn) == palette)
    }

    @Test func lanczosThumbnailIsCloseToAnAreaAverage() throws {
        let image = try Self.load("car-2.jpg")
        let lanczos = try Resampler.thumbnail(image, width: 160, height: 160, on: .inTurn)
        let area = try Resampler.thumbnail(image, width: 160, height: 160, filter: .box, on: .inTurn)
        #expect(lanczos.width == area.width && lanczos.height == area.height && max(lanczos.width, lanczos.height) == 160)
        var se = 0.0
        for i in 0..<lanczos.pixels.count where i % 4 != 3 {
            let d = Double(lanczos.pixels[i]) - Double(area.pixels[i])
            se += d * d
        }
        let psnr = 10 * log10(255 * 255 / (se / Double(lanczos.pixelCount * 3)))
        #expect(psnr > 28, "PSNR \(psnr)")
        #expect(psnr < 60) // and not identical: Lanczos is sharper than a box
    }
}
