import Deadlines
import Foundation
import Testing
@testable import Imaging

/// Pillow's decode of a few JPEGs, summarised (see Fixtures/make_references.py).
struct JPEGReference: Decodable, Sendable {
    let mode: String
    let width: Int
    let height: Int
    let mean: [Double]
    let samples: [[Int]]   // x, y, r, g, b

    static let all: [String: JPEGReference] = {
        guard let data = try? Data(contentsOf: CodecCorpus.fixtures.appendingPathComponent("jpeg-reference.json")),
              let refs = try? JSONDecoder().decode([String: JPEGReference].self, from: data) else { return [:] }
        return refs
    }()
}

/// Box-averages an image to `cols` x `rows` cells of RGB means.
func cellMeans(_ image: Image, cols: Int, rows: Int) -> [Double] {
    var sums = [Int](repeating: 0, count: cols * rows * 3)
    var counts = [Int](repeating: 0, count: cols * rows)
    // Unsafe buffers: test code is built without optimisation and this runs over megapixels.
    image.pixels.withUnsafeBufferPointer { px in
        sums.withUnsafeMutableBufferPointer { sums in
            counts.withUnsafeMutableBufferPointer { counts in
                for y in 0..<image.height {
                    let cy = y * rows / image.height
                    for x in 0..<image.width {
                        let c = cy * cols + x * cols / image.width
                        let i = (y * image.width + x) * 4
                        sums[c * 3] += Int(px[i])
                        sums[c * 3 + 1] += Int(px[i + 1])
                        sums[c * 3 + 2] += Int(px[i + 2])
                        counts[c] += 1
                    }
                }
            }
        }
    }
    return sums.indices.map { Double(sums[$0]) / Double(counts[$0 / 3]) }
}

func meanAbsoluteDifference(_ a: [Double], _ b: [Double]) -> Double {
    zip(a, b).map { abs($0 - $1) }.reduce(0, +) / Double(a.count)
}

@Suite("JPEG codec", .timeLimit(.minutes(10)))
struct JPEGCodecTests {
    @Test("baseline, arithmetic, greyscale, CMYK and YCCK files match Pillow's decode",
          arguments: JPEGReference.all.keys.sorted())
    func matchesPillow(_ file: String) throws {
        let reference = try #require(JPEGReference.all[file])
        let bytes = file.hasPrefix("fixture:")
            ? try CodecCorpus.fixture(String(file.dropFirst(8))) : try CodecCorpus.bytes(file)
        // Pillow's decode keeps the stored values; rocket.jpg's Adobe RGB profile is compared as stored here
        // (its conversion is FormatDecodeTests' subject).
        let decoded = try ImageCodec.decode(bytes, options: DecodeOptions(convertToSRGB: false), on: .inTurn)
        let image = decoded.image
        #expect(image.width == reference.width && image.height == reference.height)
        // Same libjpeg-turbo IDCT and upsampling: +-1; CMYK goes through two rounding conversions.
        let tolerance = reference.mode == "CMYK" ? 2 : 1
        var worst = 0
        for s in reference.samples {
            let px = image[s[0], s[1]]
            worst = max(worst, abs(Int(px.r) - s[2]), abs(Int(px.g) - s[3]), abs(Int(px.b) - s[4]))
            #expect(px.a == 255)
        }
        #expect(worst <= tolerance, "\(file): worst sample difference \(worst)")
        let means = cellMeans(image, cols: 1, rows: 1)
        for c in 0..<3 { #expect(abs(means[c] - reference.mean[c]) < 0.5, "\(file) channel \(c)") }
    }

    @Test("reference list holds the arithmetic, greyscale and CMYK files")
    func referenceCoverage() {
        let modes = Dictionary(JPEGReference.all.map { ($0.key, $0.value.mode) }, uniquingKeysWith: { a, _ in a })
        #expect(modes["photos/pillow-pil_sample_cmyk.jpg"] == "CMYK")
        #expect(modes["photos/pillow-hopper_gray.jpg"] == "L")
        #expect(modes["photos/libjpeg-testimgari.jpg"] == "RGB")
        #expect(modes["fixture:ycck.jpg"] == "CMYK")
    }

    /// The PPM shipped with libjpeg's test images differs from current libjpeg-turbo output (and Pillow's,
    /// measured: max 3, mean 0.19 per sample), so this is a closeness check, not bit-exactness.
    @Test("testorig.jpg decodes like libjpeg's reference PPM")
    func matchesLibjpegPPM() throws {
        let image = try ImageCodec.decode(try CodecCorpus.bytes("photos/libjpeg-testorig.jpg"), on: .inTurn).image
        let ppm = try CodecCorpus.bytes("photos/libjpeg-testorig.ppm")
        // P6 header: magic, width, height, maxval separated by whitespace, then one whitespace byte.
        var fields: [String] = [], i = 0, current = ""
        while fields.count < 4 {
            let c = Character(UnicodeScalar(ppm[i])); i += 1
            if c.isWhitespace { if !current.isEmpty { fields.append(current); current = "" } } else { current.append(c) }
        }
        #expect(fields[0] == "P6")
        let w = Int(fields[1])!, h = Int(fields[2])!
        #expect(image.width == w && image.height == h)
        var worst = 0, total = 0
        for p in 0..<(w * h) {
            for c in 0..<3 {
                let d = abs(Int(image.pixels[p * 4 + c]) - Int(ppm[i + p * 3 + c]))
                worst = max(worst, d)
                total += d
            }
        }
        #expect(worst <= 3)
        #expect(Double(total) / Double(w * h * 3) < 0.25)
    }

    @Test("Adobe YCCK is converted to RGB with inverted-CMYK semantics")
    func ycck() throws {
        // make_ycck.c: cyan grows left to right, magenta top to bottom; yellow 40 (left) / 200 (right);
        // black 0 (top) / 90 (bottom). Top-left is almost paper white, bottom-right is dark blue-black.
        let decoded = try ImageCodec.decode(try CodecCorpus.fixture("ycck.jpg"), on: .inTurn)
        #expect(decoded.metadata.channels == 4)
        #expect(decoded.image.isOpaque)
        let paper = decoded.image[1, 1], ink = decoded.image[46, 30]
        #expect(paper.r > 240 && paper.g > 240 && paper.b > 200 && paper.b < 230)
        #expect(ink.r < 10 && ink.g < 10 && ink.b < 50)
        let info = try ImageCodec.info(try CodecCorpus.fixture("ycck.jpg"))
        #expect(info.channels == 4 && !info.hasAlpha)
    }

    @Test("the 12-bit JPEG gets a clear unsupported error, while info still describes it")
    func twelveBitUnsupported() throws {
        let bytes = try CodecCorpus.bytes("photos/libjpeg-monkey12.jpg")
        do {
            _ = try ImageCodec.decode(bytes, on: .inTurn)
            Issue.record("12-bit JPEG decoded")
        } catch let error as ImagingError {
            guard case .unsupported(.jpeg, let message) = error else { Issue.record("got \(error)"); return }
            #expect(message.contains("12"))
        }
        let info = try ImageCodec.info(bytes)
        #expect(info.bitDepth == 12 && info.width == 149 && info.height == 227)
    }

    static let orientationFiles = (0...8).flatMap { ["photos/orientation-Landscape_\($0).jpg", "photos/orientation-Portrait_\($0).jpg"] }

    @Test("every EXIF orientation decodes upright and alike", arguments: orientationFiles)
    func orientationUpright(_ file: String) throws {
        let landscape = file.contains("Landscape")
        // Decoded at 1/4 (shrink-on-load) to keep the suite fast; orientation is applied the same way.
        let options = DecodeOptions(minimumSize: (width: 100, height: 100))
        let upright = try ImageCodec.decode(try CodecCorpus.bytes(
            landscape ? "photos/orientation-Landscape_1.jpg" : "photos/orientation-Portrait_1.jpg"),
            options: options, on: .inTurn).image
        let decoded = try ImageCodec.decode(try CodecCorpus.bytes(file), options: options, on: .inTurn)
        #expect(decoded.metadata.scaleDenominator == 4)
        let n = Int(file.dropLast(4).split(separator: "_").last!)!
        #expect(decoded.metadata.orientation == max(n, 1))
        #expect(decoded.image.width == upright.width && decoded.image.height == upright.height)
        let info = try ImageCodec.info(try CodecCorpus.bytes(file))
        #expect(info.width == decoded.metadata.originalWidth && info.height == decoded.metadata.originalHeight)
        #expect(info.orientation == max(n, 1))
        // The test pictures are a large digit on a plain background: any wrong flip moves a lot of ink.
        let difference = meanAbsoluteDifference(cellMeans(decoded.image, cols: 24, rows: 24),
                                                cellMeans(upright, cols: 24, rows: 24))
        #expect(difference < 1.5, "\(file): mean cell difference \(difference)")   // measured <= 0.3
    }

    @Test("the orientation check would catch an unrotated image")
    func orientationCheckIsSensitive() throws {
        let upright = try ImageCodec.decode(try CodecCorpus.bytes("photos/orientation-Landscape_1.jpg"),
                                            options: DecodeOptions(minimumSize: (width: 100, height: 100)), on: .inTurn).image
        let stored = try ImageCodec.decode(try CodecCorpus.bytes("photos/orientation-Landscape_3.jpg"),
                                           options: DecodeOptions(minimumSize: (width: 100, height: 100),
                                                                  applyOrientation: false), on: .inTurn)
        #expect(stored.metadata.orientation == 1)
        let difference = meanAbsoluteDifference(cellMeans(stored.image, cols: 24, rows: 24),
                                                cellMeans(upright, cols: 24, rows: 24))
        #expect(difference > 10)
    }

    @Test("applyOrientation false keeps the stored layout")
    func orientationOff() throws {
        let decoded = try ImageCodec.decode(try CodecCorpus.bytes("photos/orientation-Landscape_6.jpg"),
                                            options: DecodeOptions(applyOrientation: false), on: .inTurn)
        #expect(decoded.image.width == 1200 && decoded.image.height == 1800)
        #expect(decoded.metadata.orientation == 1)
        #expect(decoded.metadata.originalWidth == 1200)
    }

    @Test("odd or broken EXIF never fails a decode",
          arguments: ["photos/pillow-exif-ifd-offset.jpg", "photos/pillow-hopper_bad_exif.jpg",
                      "photos/pillow-invalid-exif.jpg", "photos/pillow-multiple_exif.jpg",
                      "broken/pillow-broken_exif_dpi.jpg"])
    func oddExif(_ file: String) throws {
        let decoded = try ImageCodec.decode(try CodecCorpus.bytes(file), on: .inTurn)
        #expect((1...8).contains(decoded.metadata.orientation))
    }

    @Test("libjpeg corrupt-data warnings are collected, not printed")
    func corruptDataWarnings() throws {
        let decoded = try ImageCodec.decode(try CodecCorpus.bytes("photos/pillow-hopper_bad_exif.jpg"), on: .inTurn)
        #expect(decoded.warnings.first?.contains("Corrupt JPEG data") == true)
        #expect(decoded.warnings.last?.contains("more warnings") == true)
    }

    @Test("shrink-on-load picks the largest DCT scale that keeps 2x the minimum size")
    func shrinkOnLoad() throws {
        let bytes = try CodecCorpus.bytes("photos/orientation-Landscape_1.jpg")   // 1800x1200
        let cases: [(min: (Int, Int), denominator: Int)] = [((100, 70), 8), ((100, 100), 4), ((300, 300), 2),
                                                            ((600, 300), 1), ((1800, 1200), 1)]
        for c in cases {
            let decoded = try ImageCodec.decode(bytes, options: DecodeOptions(minimumSize: (width: c.min.0, height: c.min.1)), on: .inTurn)
            #expect(decoded.metadata.scaleDenominator == c.denominator, "minimum \(c.min)")
            #expect(decoded.image.width == (1800 + c.denominator - 1) / c.denominator)
            #expect(decoded.image.width >= 2 * c.min.0 || c.denominator == 1)
            #expect(decoded.image.height >= 2 * c.min.1 || c.denominator == 1)
            #expect(decoded.metadata.originalWidth == 1800 && decoded.metadata.originalHeight == 1200)
        }
        let full = try ImageCodec.decode(bytes, on: .inTurn).image
        let eighth = try ImageCodec.decode(bytes, options: DecodeOptions(minimumSize: (width: 50, height: 50)), on: .inTurn).image
        #expect(eighth.width == 225 && eighth.height == 150)
        #expect(meanAbsoluteDifference(cellMeans(full, cols: 15, rows: 10), cellMeans(eighth, cols: 15, rows: 10)) < 2)
    }

    @Test("shrink-on-load measures the minimum size in display orientation")
    func shrinkOnLoadRotated() throws {
        // Stored 1200x1800, displayed 1800x1200. Needing 400 display columns means 800 stored rows: 1/2.
        let decoded = try ImageCodec.decode(try CodecCorpus.bytes("photos/orientation-Landscape_6.jpg"),
                                            options: DecodeOptions(minimumSize: (width: 400, height: 100)), on: .inTurn)
        #expect(decoded.metadata.scaleDenominator == 2)
        #expect(decoded.image.width == 900 && decoded.image.height == 600)
        #expect(decoded.metadata.originalWidth == 1800 && decoded.metadata.originalHeight == 1200)
    }

    @Test("truncated JPEG data is an error by default and grey-padded on request")
    func truncation() throws {
        let full = try CodecCorpus.bytes("photos/rocket.jpg")
        let reference = try ImageCodec.decode(full, on: .inTurn).image
        let cut = Array(full[0..<(full.count * 6 / 10)])
        #expect(throws: ImagingError.truncated(format: .jpeg, message: "Premature end of JPEG file")) {
            try ImageCodec.decode(cut, on: .inTurn)
        }
        let partial = try ImageCodec.decode(cut, options: DecodeOptions(allowTruncated: true), on: .inTurn)
        #expect(partial.warnings.contains { $0.contains("truncated") })
        #expect(partial.image.width == reference.width && partial.image.height == reference.height)
        let rows = reference.rowBytes * 16
        #expect(partial.image.pixels[0..<rows] == reference.pixels[0..<rows])
        #expect(partial.image.pixels.suffix(reference.rowBytes) != reference.pixels.suffix(reference.rowBytes))
    }

    @Test("a truncated progressive JPEG is refused too")
    func truncatedProgressive() throws {
        let full = try CodecCorpus.bytes("photos/animal-1.jpg")
        #expect(try ImageCodec.info(full).isProgressive)
        let cut = Array(full[0..<(full.count / 2)])
        #expect(throws: ImagingError.truncated(format: .jpeg, message: "Premature end of JPEG file")) {
            try ImageCodec.decode(cut, on: .inTurn)
        }
        #expect(try ImageCodec.decode(cut, options: DecodeOptions(allowTruncated: true), on: .inTurn).image.width == 1000)
    }

    @Test("maxPixels is checked from the JPEG header")
    func maxPixels() throws {
        let bytes = try CodecCorpus.bytes("photos/rocket.jpg")
        #expect(throws: ImagingError.tooLarge(width: 640, height: 427, limit: 1000)) {
            try ImageCodec.decode(bytes, options: DecodeOptions(maxPixels: 1000), on: .inTurn)
        }
    }

    @Test("ICC profiles are returned, including a large multi-chunk one")
    func iccProfile() throws {
        let big = try ImageCodec.decode(try CodecCorpus.bytes("photos/pillow-icc_profile_big.jpg"), on: .inTurn)
        #expect(big.metadata.iccProfile?.count == 399_788)
        let none = try ImageCodec.decode(try CodecCorpus.bytes("photos/libjpeg-testorig.jpg"), on: .inTurn)
        #expect(none.metadata.iccProfile == nil)
    }

    @Test("a progressive JPEG with hundreds of scans is refused instead of burning CPU")
    func scanLimit() throws {
        let original = try CodecCorpus.bytes("photos/animal-1.jpg")
        // First SOS header plus its entropy-coded data, up to the next marker that is not a restart.
        let sos = try #require(original.indices.dropLast(1).first { original[$0] == 0xFF && original[$0 + 1] == 0xDA })
        var end = sos + 2 + (Int(original[sos + 2]) << 8 | Int(original[sos + 3]))
        while end + 1 < original.count {
            if original[end] == 0xFF, original[end + 1] != 0, !(0xD0...0xD7).contains(original[end + 1]) { break }
            end += 1
        }
        let scan = Array(original[sos..<end])
        var bytes = Array(original[..<end])
        // Repeating the DC scan is bogus progression, which libjpeg only warns about.
        for _ in 0..<600 { bytes += scan }
        bytes += original[end...]
        do {
            _ = try ImageCodec.decode(bytes, on: .inTurn)
            Issue.record("decoded a 600-scan file")
        } catch let error as ImagingError {
            #expect(error.message.contains("too many progressive scans"), "\(error.message)")
        }
    }

    @Test("a cancelled task stops a JPEG decode, baseline or progressive (read whole while starting)",
          arguments: ["photos/orientation-Landscape_6.jpg", "photos/animal-1.jpg"])
    func cancellation(_ file: String) async throws {
        let bytes = try CodecCorpus.bytes(file)
        let task = Task { () throws -> DecodedImage in
            while !Task.isCancelled { await Task.yield() }
            return try ImageCodec.decode(bytes, on: .inTurn)
        }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await Deadline.value(of: task, "the cancelled JPEG decode to end") }
    }
}
