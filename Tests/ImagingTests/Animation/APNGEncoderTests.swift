import Compute
import Foundation
@testable import Imaging
import Testing

/// An APNG read back by the test: acTL, each frame's fcTL and its data made into a stand-alone PNG decoded by the
/// project's PNG decoder, composited as APNG says.
struct APNGReader {
    var frameCount = -1, plays = -1
    var chunkOrder: [String] = []
    var frames: [Image] = []
    var delays: [Double] = []
    var blends: [Int] = []

    init(_ bytes: [UInt8]) throws {
        let chunks = APNGEncoder.chunks(bytes)
        chunkOrder = chunks.map(\.type)
        guard let ihdr = chunks.first(where: { $0.type == "IHDR" }) else { throw ImagingError.unknownFormat }
        let width = Int(be32(bytes, ihdr.data.lowerBound)), height = Int(be32(bytes, ihdr.data.lowerBound + 4))
        var canvas = Image(width: width, height: height)
        var control: (w: Int, h: Int, x: Int, y: Int, blend: Int)?
        var data: [UInt8] = []
        let palette = chunks.filter { $0.type == "PLTE" || $0.type == "tRNS" }
        func flush() throws {
            guard let c = control else { return }
            var header = Array(bytes[ihdr.data])
            header.replaceSubrange(0..<8, with: APNGEncoder.be32(UInt32(c.w)) + APNGEncoder.be32(UInt32(c.h)))
            let png = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header)
                + palette.flatMap { chunk($0.type, Array(bytes[$0.data])) } + chunk("IDAT", data) + chunk("IEND", [])
            let sub = try ImageCodec.decode(png, options: DecodeOptions(convertToSRGB: false), on: .inTurn).image
            for y in 0..<c.h {
                for x in 0..<c.w {
                    let s = sub[x, y]
                    if c.blend == 0 || s.a == 255 { canvas[c.x + x, c.y + y] = s } else {
                        #expect(s.a == 0, "blend over is only written with opaque or invisible pixels, got \(s)")
                    }
                }
            }
            frames.append(canvas)
            data = []
        }
        for chunk in chunks {
            let p = chunk.data.lowerBound
            switch chunk.type {
            case "acTL": (frameCount, plays) = (Int(be32(bytes, p)), Int(be32(bytes, p + 4)))
            case "fcTL":
                try flush()
                control = (Int(be32(bytes, p + 4)), Int(be32(bytes, p + 8)), Int(be32(bytes, p + 12)),
                           Int(be32(bytes, p + 16)), Int(bytes[p + 25]))
                let num = Int(bytes[p + 20]) << 8 | Int(bytes[p + 21]), den = Int(bytes[p + 22]) << 8 | Int(bytes[p + 23])
                delays.append(Double(num) / Double(den == 0 ? 100 : den))
                blends.append(Int(bytes[p + 25]))
            case "IDAT": data += bytes[chunk.data]
            case "fdAT": data += bytes[(p + 4)..<chunk.data.upperBound]
            default: break
            }
        }
        try flush()
    }

    private func be32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }

    private func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return APNGEncoder.be32(UInt32(data.count)) + body + APNGEncoder.be32(CRC32.update(0, body))
    }
}

@Suite("APNG encoder", .timeLimit(.minutes(10)))
struct APNGEncoderTests {
    @Test("Lossless APNG: every frame comes back exactly, with its delay, looping forever")
    func roundTrip() throws {
        let durations = [0.04, 0.1, 0.0333]
        let bytes = try encodeMovingSquare(.apng, count: 7, durations: durations, quality: 100)
        let apng = try APNGReader(bytes)
        #expect(apng.frameCount == 7 && apng.plays == 0, "acTL \(apng.frameCount) frames, \(apng.plays) plays")
        #expect(apng.chunkOrder.prefix(4) == ["IHDR", "acTL", "fcTL", "IDAT"], "\(apng.chunkOrder)")
        #expect(apng.chunkOrder.last == "IEND")
        #expect(apng.frames.count == 7)
        for (i, frame) in apng.frames.enumerated() {
            var expected = movingSquareFrame(i)
            APNGEncoder.clearInvisible(&expected.pixels)
            #expect(frame == expected, "frame \(i) differs")
            #expect(abs(apng.delays[i] - durations[i % 3]) < 0.0006, "frame \(i) delay \(apng.delays[i])")
        }
        // The first frame is also what a plain PNG decoder shows.
        var first = movingSquareFrame(0)
        APNGEncoder.clearInvisible(&first.pixels)
        #expect(try ImageCodec.decode(bytes, options: DecodeOptions(convertToSRGB: false), on: .inTurn).image == first)
    }

    @Test("Later frames are the changed rectangle, blended over when all of it is opaque")
    func subRectangles() throws {
        // An opaque square moving on an opaque background: every change is opaque.
        func frame(_ i: Int) -> Image {
            var image = Image(width: 40, height: 30, fill: RGBA(r: 200, g: 200, b: 200))
            for y in 10..<20 { for x in (2 + i)..<(12 + i) { image[x, y] = RGBA(r: 255, g: 0, b: 0) } }
            return image
        }
        let encoder = try AnimationSettings(format: .apng, width: 40, height: 30, quality: 100).makeEncoder()
        for i in 0..<4 { try encoder.add(frame(i), duration: 0.05, on: InTurnLoop()) }
        try encoder.add(frame(3), duration: 0.05, on: InTurnLoop())  // unchanged
        let apng = try APNGReader(try encoder.finish())
        #expect(apng.blends == [0, 1, 1, 1, 1], "\(apng.blends)")
        for i in 0..<5 { #expect(apng.frames[i] == frame(min(i, 3)), "frame \(i)") }
        // A pixel turning transparent cannot be blended over: that frame replaces its rectangle.
        let fading = try AnimationSettings(format: .apng, width: 40, height: 30, quality: 100).makeEncoder()
        try fading.add(frame(0), duration: 0.05, on: InTurnLoop())
        var hole = frame(0)
        hole[5, 15] = RGBA(r: 0, g: 0, b: 0, a: 0)
        try fading.add(hole, duration: 0.05, on: InTurnLoop())
        let faded = try APNGReader(try fading.finish())
        #expect(faded.blends == [0, 0])
        #expect(faded.frames[1] == hole)
    }

    @Test("Below quality 62, palette frames with one palette: a quarter of the bytes, colours close, 1-bit alpha")
    func indexed() throws {
        let frames = (0..<6).map { StickerLikeClip.frame($0) }
        func encode(_ quality: Int) throws -> [UInt8] {
            let encoder = try AnimationSettings(format: .apng, width: 96, height: 96, quality: quality).makeEncoder()
            for frame in frames { try encoder.add(frame, duration: 0.1, on: InTurnLoop()) }
            return try encoder.finish()
        }
        let rgba = try encode(100), indexed = try encode(50)
        #expect(indexed.count * 2 < rgba.count, "indexed \(indexed.count) bytes, RGBA \(rgba.count)")
        let apng = try APNGReader(indexed)
        #expect(apng.chunkOrder.prefix(5) == ["IHDR", "PLTE", "tRNS", "acTL", "fcTL"], "\(apng.chunkOrder)")
        #expect(apng.frames.count == 6)
        for (i, decoded) in apng.frames.enumerated() {
            for y in 0..<96 {
                for x in 0..<96 {
                    let expected: UInt8 = frames[i][x, y].a >= 128 ? 255 : 0
                    if decoded[x, y].a != expected { Issue.record("frame \(i) alpha at \(x),\(y): \(decoded[x, y].a)"); return }
                }
            }
            let opaque = { (p: RGBA) in p.a >= 128 }
            for c in 0..<3 {
                let error = meanDifference(frames[i], decoded, channel: c, where: opaque)
                #expect(error <= 8, "frame \(i) channel \(c) mean error \(error)")
            }
        }
    }

    @Test("Frames of another size and empty animations are refused")
    func refusals() throws {
        let encoder = try AnimationSettings(format: .apng, width: 10, height: 10).makeEncoder()
        #expect(throws: ImagingError.self) { try encoder.add(Image(width: 11, height: 10), duration: 0.1, on: InTurnLoop()) }
        #expect(throws: ImagingError.self) { try encoder.add(Image(width: 10, height: 10), duration: 0, on: InTurnLoop()) }
        #expect(throws: ImagingError.self) { try encoder.finish() }
        #expect(throws: ImagingError.self) { try AnimationSettings(format: .apng, width: 10, height: 10, quality: 101).makeEncoder() }
    }
}
