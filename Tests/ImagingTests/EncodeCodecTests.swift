import Foundation
import Testing
@testable import Imaging

/// Chunk types of a PNG, in order.
func pngChunkTypes(_ bytes: [UInt8]) -> [String] {
    var types: [String] = [], i = 8
    while i + 8 <= bytes.count {
        let length = Int(bytes[i]) << 24 | Int(bytes[i + 1]) << 16 | Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
        types.append(String(decoding: bytes[(i + 4)..<(i + 8)], as: UTF8.self))
        i += 12 + length
    }
    return types
}

/// Marker bytes of a JPEG up to the first scan.
func jpegMarkers(_ bytes: [UInt8]) -> [UInt8] {
    var markers: [UInt8] = [], i = 2
    while i + 4 <= bytes.count, bytes[i] == 0xFF {
        let marker = bytes[i + 1]
        markers.append(marker)
        if marker == 0xDA { break }
        i += 2 + (Int(bytes[i + 2]) << 8 | Int(bytes[i + 3]))
    }
    return markers
}

func psnr(_ a: Image, _ b: Image) -> Double {
    var sum = 0.0
    a.pixels.withUnsafeBufferPointer { pa in
        b.pixels.withUnsafeBufferPointer { pb in
            var i = 0
            while i < pa.count {
                for c in 0..<3 { let d = Double(Int(pa[i + c]) - Int(pb[i + c])); sum += d * d }
                i += 4
            }
        }
    }
    let mse = sum / Double(a.pixelCount * 3)
    return mse == 0 ? .infinity : 10 * Foundation.log10(255 * 255 / mse)
}

/// A deterministic test picture with gradients, edges and (optionally) varying alpha.
func syntheticImage(width: Int, height: Int, alpha: Bool) -> Image {
    var image = Image(width: width, height: height)
    for y in 0..<height {
        for x in 0..<width {
            image[x, y] = RGBA(r: UInt8(x * 255 / max(width - 1, 1)), g: UInt8(y * 255 / max(height - 1, 1)),
                               b: UInt8((x ^ y) & 0xFF), a: alpha ? UInt8((x + y) % 256) : 255)
        }
    }
    return image
}

@Suite("Encoding", .timeLimit(.minutes(10)))
struct EncodeCodecTests {
    @Test("PNG round-trips exactly, RGB when opaque and RGBA otherwise", arguments: [false, true])
    func pngRoundTrip(alpha: Bool) throws {
        let image = syntheticImage(width: 67, height: 41, alpha: alpha)
        let png = try ImageCodec.encodePNG(image, on: .inTurn)
        #expect(png[25] == (alpha ? 6 : 2), "IHDR colour type")
        #expect(pngChunkTypes(png) == ["IHDR", "IDAT", "IEND"])
        let decoded = try ImageCodec.decode(png, on: .inTurn)
        #expect(decoded.image == image)
        #expect(decoded.metadata.hadAlpha == alpha)
    }

    /// Rows narrower than a pixel's filter reach, single rows and columns: each filter's first pixel reads no
    /// neighbour to its left, the first row none above.
    @Test("PNG round-trips at the smallest sizes", arguments: [(1, 1), (1, 6), (6, 1), (2, 3), (5, 4)], [false, true])
    func pngSmallSizes(size: (Int, Int), alpha: Bool) throws {
        let image = syntheticImage(width: size.0, height: size.1, alpha: alpha)
        for level in [0, 1, 6, 9] {
            let decoded = try ImageCodec.decode(try ImageCodec.encodePNG(image, compressionLevel: level, on: .inTurn), on: .inTurn).image
            #expect(decoded == image, "\(size.0)x\(size.1), alpha \(alpha), level \(level): \(decoded.pixels) vs \(image.pixels)")
        }
    }

    /// Filtered rows over 8 MiB are streamed through zlib rather than compressed at once (libdeflate needs the whole
    /// input and an output as large): 1500x1500 RGBA is 9 MB, its lower half noise (so the output is large).
    @Test("a PNG too large to compress at once round-trips", arguments: [1, 6])
    func pngStreamed(level: Int) throws {
        var image = syntheticImage(width: 1500, height: 1500, alpha: true)
        var state: UInt32 = 12345
        for i in (image.pixels.count / 2)..<image.pixels.count {
            state = state &* 1_664_525 &+ 1_013_904_223
            image.pixels[i] = UInt8(truncatingIfNeeded: state >> 24)
        }
        let png = try ImageCodec.encodePNG(image, compressionLevel: level, on: .inTurn)
        #expect(pngChunkTypes(png).filter { $0 == "IDAT" }.count > 1, "streamed output comes in several IDAT chunks")
        #expect(try ImageCodec.decode(png, on: .inTurn).image == image)
    }

    @Test("every PNG compression level round-trips; higher levels are not larger")
    func pngLevels() throws {
        let image = try ImageCodec.decode(try CodecCorpus.bytes("photos/car-1.jpg"), on: .inTurn).image
        let fast = try ImageCodec.encodePNG(image, compressionLevel: 0, on: .inTurn)
        let best = try ImageCodec.encodePNG(image, compressionLevel: 9, on: .inTurn)
        #expect(best.count < fast.count)
        #expect(try ImageCodec.decode(fast, on: .inTurn).image == image)
        #expect(try ImageCodec.decode(best, on: .inTurn).image == image)
        #expect(throws: ImagingError.self) { try ImageCodec.encodePNG(image, compressionLevel: 10, on: .inTurn) }
        #expect(throws: ImagingError.self) { try ImageCodec.encodePNG(image, compressionLevel: -1, on: .inTurn) }
    }

    @Test("grey PNGs for masks round-trip")
    func grayPNG() throws {
        let gray: [UInt8] = (0..<(31 * 17)).map { (i: Int) -> UInt8 in UInt8(i * 7 % 256) }
        let png = try ImageCodec.encodeGrayPNG(width: 31, height: 17, gray: gray, on: .inTurn)
        #expect(png[25] == 0)
        let info = try ImageCodec.info(png)
        #expect(info.channels == 1 && info.bitDepth == 8 && !info.hasAlpha)
        let image = try ImageCodec.decode(png, on: .inTurn).image
        for (i, g) in gray.enumerated() {
            #expect(image[i % 31, i / 31] == RGBA(r: g, g: g, b: g), "pixel \(i)")
            if image[i % 31, i / 31] != RGBA(r: g, g: g, b: g) { break }
        }
        #expect(throws: ImagingError.self) { try ImageCodec.encodeGrayPNG(width: 31, height: 17, gray: [1, 2, 3], on: .inTurn) }
        #expect(throws: ImagingError.self) { try ImageCodec.encodeGrayPNG(width: 0, height: 0, gray: [], on: .inTurn) }
    }

    @Test("JPEG at q90 keeps PSNR above 30 dB on a photo", arguments: [false, true])
    func jpegRoundTrip(progressive: Bool) throws {
        let image = try ImageCodec.decode(try CodecCorpus.bytes("photos/car-1.jpg"), on: .inTurn).image
        let jpeg = try ImageCodec.encodeJPEG(image, quality: 90, progressive: progressive)
        let info = try ImageCodec.info(jpeg)
        #expect(info.isProgressive == progressive)
        #expect(info.width == image.width && info.height == image.height && info.channels == 3)
        let decoded = try ImageCodec.decode(jpeg, on: .inTurn).image
        let quality = psnr(image, decoded)
        #expect(quality > 30, "PSNR \(quality)")
    }

    @Test("JPEG output is 4:2:0 with no metadata segments")
    func jpegLayout() throws {
        let image = syntheticImage(width: 40, height: 24, alpha: false)
        let jpeg = try ImageCodec.encodeJPEG(image)
        let markers = jpegMarkers(jpeg)
        #expect(!markers.contains { (0xE1...0xEF).contains($0) }, "no APP1...APP15 (EXIF, ICC, ...)")
        // SOF0: precision, height, width, component count, then (id, sampling, table) per component.
        let sof = try #require(jpeg.indices.dropLast(12).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 })
        #expect(jpeg[sof + 9] == 3)
        #expect(jpeg[sof + 11] == 0x22 && jpeg[sof + 14] == 0x11 && jpeg[sof + 17] == 0x11)
    }

    @Test("JPEG drops alpha without compositing")
    func jpegDropsAlpha() throws {
        var image = Image(width: 16, height: 16, fill: RGBA(r: 200, g: 40, b: 90, a: 0))
        image[0, 0] = RGBA(r: 200, g: 40, b: 90, a: 10)
        let decoded = try ImageCodec.decode(try ImageCodec.encodeJPEG(image, quality: 95), on: .inTurn).image
        let px = decoded[8, 8]
        #expect(abs(Int(px.r) - 200) <= 3 && abs(Int(px.g) - 40) <= 3 && abs(Int(px.b) - 90) <= 3 && px.a == 255)
    }

    @Test("JPEG quality is validated")
    func jpegQuality() throws {
        let image = syntheticImage(width: 8, height: 8, alpha: false)
        #expect(throws: ImagingError.self) { try ImageCodec.encodeJPEG(image, quality: 0) }
        #expect(throws: ImagingError.self) { try ImageCodec.encodeJPEG(image, quality: 101) }
        let low = try ImageCodec.encodeJPEG(syntheticImage(width: 64, height: 64, alpha: false), quality: 1)
        let high = try ImageCodec.encodeJPEG(syntheticImage(width: 64, height: 64, alpha: false), quality: 100)
        #expect(low.count < high.count)
    }

    @Test("JPEG refuses sizes beyond its format limit")
    func jpegTooWide() {
        let image = Image(width: 70_000, height: 1)
        #expect(throws: ImagingError.self) { try ImageCodec.encodeJPEG(image) }
    }
}
