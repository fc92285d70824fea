import Deadlines
import Foundation
import Testing
@testable import Imaging

/// One PngSuite reference: size and FNV-1a 64 of the RGBA8 pixels, computed with pypng (see
/// Fixtures/make_references.py) independently of libpng and cross-checked against Pillow.
struct PNGReference: Decodable, Sendable {
    let width: Int
    let height: Int
    let fnv1a64: String

    static let all: [String: PNGReference] = {
        guard let data = try? Data(contentsOf: CodecCorpus.fixtures.appendingPathComponent("pngsuite-reference.json")),
              let refs = try? JSONDecoder().decode([String: PNGReference].self, from: data) else { return [:] }
        return refs
    }()
    static let names = all.keys.sorted()
}

@Suite("PNG codec", .timeLimit(.minutes(10)))
struct PNGCodecTests {
    @Test("every valid PngSuite file decodes to the reference pixels", arguments: PNGReference.names)
    func pngSuiteMatchesReference(_ name: String) throws {
        let reference = try #require(PNGReference.all[name])
        let decoded = try ImageCodec.decode(try CodecCorpus.bytes("pngsuite/" + name), on: .inTurn)
        #expect(decoded.image.width == reference.width)
        #expect(decoded.image.height == reference.height)
        #expect(fnv1a64(decoded.image.pixels) == reference.fnv1a64, "pixels differ from the pypng reference")
        #expect(decoded.metadata.scaleDenominator == 1)
    }

    @Test("the reference covers every valid PngSuite file")
    func referenceCoversSuite() {
        let valid = CodecCorpus.files(in: "pngsuite", suffix: ".png").filter { !$0.hasPrefix("x") && $0 != "PngSuite.png" }
        #expect(valid.count == 160)
        #expect(Set(valid) == Set(PNGReference.names))
    }

    @Test("Adam7 files decode like their non-interlaced twins",
          arguments: PNGReference.names.filter { $0.hasPrefix("basi") })
    func interlacedMatchesProgressive(_ name: String) throws {
        let interlaced = try ImageCodec.decode(try CodecCorpus.bytes("pngsuite/" + name), on: .inTurn)
        let twin = "basn" + name.dropFirst(4)
        let plain = try ImageCodec.decode(try CodecCorpus.bytes("pngsuite/" + twin), on: .inTurn)
        #expect(interlaced.image == plain.image)
    }

    /// Every deliberately corrupt PngSuite file, with the problem the error must name.
    static let corrupt: [(file: String, expected: String)] = [
        ("xc1n0g08.png", "Invalid color type"), ("xc9n2c08.png", "Invalid color type"),
        ("xcrn0g04.png", "line endings"), ("xlfn0g04.png", "line endings"),
        ("xcsn0g01.png", "CRC error"), ("xhdn0g08.png", "CRC error"),
        ("xd0n2c08.png", "Invalid bit depth"), ("xd3n2c08.png", "Invalid bit depth"),
        ("xd9n2c08.png", "Invalid bit depth"), ("xdtn0g01.png", "IEND"),
        ("xs1n0g01.png", "damaged PNG signature"), ("xs2n0g01.png", "damaged PNG signature"),
        ("xs4n0g01.png", "damaged PNG signature"), ("xs7n0g01.png", "damaged PNG signature"),
    ]

    @Test("corrupt PngSuite files are rejected with a message naming the fault", arguments: corrupt)
    func corruptFilesRejected(_ file: String, _ expected: String) throws {
        let bytes = try CodecCorpus.bytes("pngsuite/" + file)
        do {
            _ = try ImageCodec.decode(bytes, on: .inTurn)
            Issue.record("\(file) decoded")
        } catch let error as ImagingError {
            guard case .invalidImage(.png, let message) = error else {
                Issue.record("\(file): unexpected \(error)")
                return
            }
            #expect(message.contains(expected), "\(file): \(message)")
        }
    }

    @Test("the corrupt list covers every x*.png")
    func corruptListComplete() {
        let files = CodecCorpus.files(in: "pngsuite", suffix: ".png").filter { $0.hasPrefix("x") }
        #expect(Set(files) == Set(Self.corrupt.map(\.file)))
    }

    @Test("a header declaring 100000x100000 is refused before any pixel allocation")
    func hugeDeclaredSizeRefused() throws {
        // One tiny IDAT: had the decoder allocated 40 GB or started reading rows, this would fail differently.
        let png = PNGTestBuilder.png(width: 100_000, height: 100_000, bitDepth: 8, colorType: 6,
                                     filteredRows: [0, 1, 2, 3, 4])
        #expect(throws: ImagingError.tooLarge(width: 100_000, height: 100_000, limit: 100_000_000)) {
            try ImageCodec.decode(png, on: .inTurn)
        }
        let info = try ImageCodec.info(png)
        #expect(info.width == 100_000 && info.height == 100_000)
        #expect(throws: ImagingError.tooLarge(width: 100_000, height: 100_000, limit: 1000)) {
            try ImageCodec.decode(png, options: DecodeOptions(maxPixels: 1000), on: .inTurn)
        }
        // No budget at all still cannot overflow the buffer size: 2^31-1 squared * 4 bytes is refused.
        let absurd = PNGTestBuilder.png(width: 0x7FFF_FFFF, height: 0x7FFF_FFFF, bitDepth: 16, colorType: 6,
                                        filteredRows: [0])
        #expect(throws: ImagingError.tooLarge(width: 0x7FFF_FFFF, height: 0x7FFF_FFFF, limit: .max)) {
            try ImageCodec.decode(absurd, options: DecodeOptions(maxPixels: .max), on: .inTurn)
        }
    }

    @Test("sides beyond libpng's default 1e6 limit are judged by maxPixels, not libpng")
    func extremeAspect() throws {
        let wide = PNGTestBuilder.png(width: 200_000_000, height: 1, bitDepth: 8, colorType: 0, filteredRows: [0, 1])
        #expect(throws: ImagingError.tooLarge(width: 200_000_000, height: 1, limit: 100_000_000)) {
            try ImageCodec.decode(wide, on: .inTurn)
        }
        let tall = PNGTestBuilder.png(width: 1, height: 3_000_000, bitDepth: 8, colorType: 0, filteredRows: [0, 1])
        #expect(try ImageCodec.info(tall).height == 3_000_000)
        // Within the budget: decoding starts and meets the missing rows.
        #expect(throws: ImagingError.truncated(format: .png, message: "Not enough image data")) {
            try ImageCodec.decode(tall, on: .inTurn)
        }
    }

    @Test("16-bit samples are rounded, not truncated, for all 65536 values")
    func sixteenBitRounding() throws {
        // 256x256 16-bit grey holding every value once.
        var rows: [UInt8] = []
        for y in 0..<256 {
            rows.append(0)
            for x in 0..<256 { rows += [UInt8(y), UInt8(x)] }
        }
        let png = PNGTestBuilder.png(width: 256, height: 256, bitDepth: 16, colorType: 0, filteredRows: rows)
        let image = try ImageCodec.decode(png, on: .inTurn).image
        var mismatches = 0
        for v in 0..<65536 {
            let expected = UInt8((v * 255 + 32767) / 65535)
            let px = image[v % 256, v / 256]
            if px != RGBA(r: expected, g: expected, b: expected) { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }

    @Test("16-bit tRNS matches on the full 16-bit value, not the rounded one")
    func sixteenBitTransparencyKey() throws {
        // Two pixels that round to the same 8-bit grey; only the exact key is transparent.
        let rows: [UInt8] = [0, 0x12, 0x34, 0x12, 0x35]
        let trns = PNGTestBuilder.chunk("tRNS", [0x12, 0x34])
        let png = PNGTestBuilder.png(width: 2, height: 1, bitDepth: 16, colorType: 0, extraChunks: [trns],
                                     filteredRows: rows)
        let image = try ImageCodec.decode(png, on: .inTurn).image
        #expect(image[0, 0].a == 0)
        #expect(image[1, 0].a == 255)
        #expect(image[0, 0].r == image[1, 0].r)
    }

    @Test("info reads the header without decoding")
    func infoFromHeader() throws {
        let palette = try ImageCodec.info(try CodecCorpus.bytes("pngsuite/basi3p04.png"))
        #expect(palette == ImageInfo(format: .png, width: 32, height: 32, storedWidth: 32, storedHeight: 32,
                                     channels: 3, bitDepth: 4, hasAlpha: false, orientation: 1,
                                     isProgressive: false, isInterlaced: true, iccProfileBytes: 0))
        let greyAlpha = try ImageCodec.info(try CodecCorpus.bytes("pngsuite/basn4a16.png"))
        #expect(greyAlpha.channels == 2 && greyAlpha.bitDepth == 16 && greyAlpha.hasAlpha && !greyAlpha.isInterlaced)
        let trns = try ImageCodec.info(try CodecCorpus.bytes("pngsuite/tbbn3p08.png"))
        #expect(trns.hasAlpha && trns.channels == 3)
        let withProfile = try ImageCodec.info(try CodecCorpus.bytes("photos/astronaut.png"))
        #expect(withProfile.iccProfileBytes > 0)
    }

    @Test("metadata reports the file's own format facts and ICC profile")
    func metadata() throws {
        let decoded = try ImageCodec.decode(try CodecCorpus.bytes("photos/astronaut.png"), on: .inTurn)
        #expect(decoded.metadata.format == .png)
        #expect(decoded.metadata.originalWidth == 512 && decoded.metadata.originalHeight == 512)
        #expect(decoded.metadata.iccProfile?.count == (try ImageCodec.info(try CodecCorpus.bytes("photos/astronaut.png"))).iccProfileBytes)
        let alpha = try ImageCodec.decode(try CodecCorpus.bytes("pngsuite/basn6a16.png"), on: .inTurn)
        #expect(alpha.metadata.hadAlpha && alpha.metadata.bitDepth == 16 && alpha.metadata.channels == 4)
    }

    @Test("a PNG named .jpg is sniffed as PNG")
    func sniffIgnoresName() throws {
        let bytes = try CodecCorpus.bytes("broken/plants-1-really-png.jpg")
        #expect(ImageCodec.sniff(bytes) == .png)
        #expect(try ImageCodec.decode(bytes, on: .inTurn).metadata.format == .png)
    }

    @Test("truncated PNG data is an error by default and a partial image on request")
    func truncation() throws {
        let full = try CodecCorpus.bytes("photos/coffee.png")
        let reference = try ImageCodec.decode(full, on: .inTurn).image
        let cut = Array(full[0..<(full.count / 2)])
        #expect(throws: ImagingError.self) { try ImageCodec.decode(cut, on: .inTurn) }
        do {
            _ = try ImageCodec.decode(cut, on: .inTurn)
        } catch let error as ImagingError {
            guard case .truncated(.png, _) = error else { Issue.record("expected truncated, got \(error)"); return }
        }
        let partial = try ImageCodec.decode(cut, options: DecodeOptions(allowTruncated: true), on: .inTurn)
        #expect(partial.warnings.contains { $0.contains("truncated") })
        #expect(partial.image.width == reference.width && partial.image.height == reference.height)
        // The first rows are intact, the last row is blank.
        let rowBytes = reference.rowBytes
        #expect(partial.image.pixels[0..<(rowBytes * 10)] == reference.pixels[0..<(rowBytes * 10)])
        #expect(partial.image.pixels.suffix(rowBytes).allSatisfy { $0 == 0 })
    }

    @Test("a cancelled task stops decoding with CancellationError")
    func cancellation() async throws {
        let bytes = try CodecCorpus.bytes("photos/coffee.png")
        let task = Task { () throws -> DecodedImage in
            while !Task.isCancelled { await Task.yield() }
            return try ImageCodec.decode(bytes, on: .inTurn)
        }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await Deadline.value(of: task, "the cancelled PNG decode to end") }
    }
}
