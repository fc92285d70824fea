import Testing
@testable import Imaging

/// The blocks of a GIF as the test reads them: frames with their delay (cs), transparent index and local palette
/// size, and the NETSCAPE2.0 loop count.
struct GIFBlocks {
    var version = ""
    var loopCount: Int?
    var frames: [(delay: Int, transparent: Int?, colors: Int, disposal: Int)] = []

    init(_ b: [UInt8]) throws {
        version = String(decoding: b[0..<6], as: UTF8.self)
        var i = 13
        if b[10] & 0x80 != 0 { i += 3 << (Int(b[10] & 7) + 1) }
        var pending: (delay: Int, transparent: Int?, disposal: Int)?
        func skipSubBlocks() -> [[UInt8]] {
            var blocks: [[UInt8]] = []
            while i < b.count, b[i] != 0 { blocks.append(Array(b[(i + 1)..<(i + 1 + Int(b[i]))])); i += 1 + Int(b[i]) }
            i += 1
            return blocks
        }
        while i < b.count {
            switch b[i] {
            case 0x21:
                let label = b[i + 1]
                i += 2
                let blocks = skipSubBlocks()
                if label == 0xF9, let g = blocks.first, g.count == 4 {
                    pending = (Int(g[1]) | Int(g[2]) << 8, g[0] & 1 != 0 ? Int(g[3]) : nil, Int(g[0] >> 2 & 7))
                } else if label == 0xFF, blocks.count >= 2, String(decoding: blocks[0], as: UTF8.self) == "NETSCAPE2.0" {
                    loopCount = Int(blocks[1][1]) | Int(blocks[1][2]) << 8
                }
            case 0x2C:
                let flags = b[i + 9]
                let colors = flags & 0x80 != 0 ? 1 << (Int(flags & 7) + 1) : 0
                i += 10 + 3 * colors + 1  // descriptor, local colour table, LZW minimum code size
                _ = skipSubBlocks()
                frames.append((pending?.delay ?? 0, pending?.transparent, colors, pending?.disposal ?? 0))
                pending = nil
            case 0x3B: return
            default: throw ImagingError.invalidImage(format: .gif, message: "unexpected block \(b[i]) at \(i)")
            }
        }
    }
}

@Suite("GIF encoder", .timeLimit(.minutes(10)))
struct GIFEncoderTests {
    @Test("Frames, centisecond delays kept on the running total, NETSCAPE loop, transparency from alpha")
    func structure() throws {
        let durations = [0.04, 0.1, 0.0333]
        let bytes = try encodeMovingSquare(.gif, count: 7, durations: durations, quality: 100)
        let gif = try GIFBlocks(bytes)
        #expect(gif.version == "GIF89a")
        #expect(gif.loopCount == 0)
        #expect(gif.frames.count == 7)
        #expect(gif.frames.map(\.delay) == [4, 10, 3, 4, 10, 4, 4], "\(gif.frames.map(\.delay))")
        #expect(gif.frames.allSatisfy { $0.transparent != nil && $0.disposal == 2 })
        #expect(try ImageCodec.info(bytes).frameCount == 7)
    }

    @Test("The first frame decodes close to its source; alpha under the threshold is transparent, over it opaque")
    func firstFrame() throws {
        let bytes = try encodeMovingSquare(.gif, count: 2, durations: [0.1], quality: 100)
        let decoded = try ImageCodec.decode(bytes, on: .inTurn).image
        let source = movingSquareFrame(0)
        for y in 0..<source.height {
            for x in 0..<source.width {
                let expected: UInt8 = source[x, y].a >= 128 ? 255 : 0
                #expect(decoded[x, y].a == expected, "alpha at \(x),\(y): \(decoded[x, y].a)")
            }
        }
        let opaque = { (p: RGBA) in p.a == 255 }
        for c in 0..<3 { #expect(meanDifference(source, decoded, channel: c, where: opaque) <= 6, "channel \(c)") }
    }
}

@Suite("Median cut quantizer", .timeLimit(.minutes(10)))
struct MedianCutQuantizerTests {
    @Test("A few flat colours are kept exactly; many are reduced to the palette size")
    func palette() {
        var image = Image(width: 30, height: 10)
        let colours = [RGBA(r: 10, g: 200, b: 30), RGBA(r: 250, g: 250, b: 250), RGBA(r: 90, g: 0, b: 140)]
        for y in 0..<10 { for x in 0..<30 { image[x, y] = x < 27 ? colours[x / 9] : RGBA(r: 0, g: 0, b: 0, a: 0) } }
        let result = MedianCutQuantizer.quantize(image, colors: 16, alphaThreshold: 128)
        #expect(result.palette.count / 3 == 4, "palette \(result.palette)")
        #expect(result.transparentIndex == 3)
        for (k, colour) in colours.enumerated() {
            let index = Int(result.indices[k * 9])
            #expect(Array(result.palette[(index * 3)..<(index * 3 + 3)]) == [colour.r, colour.g, colour.b])
        }
        #expect(result.indices[29] == 3)
        let gradient = syntheticImage(width: 64, height: 64, alpha: false)
        let reduced = MedianCutQuantizer.quantize(gradient, colors: 32, alphaThreshold: 128)
        #expect(reduced.palette.count == 32 * 3 && reduced.transparentIndex == nil)
        var error = 0
        for k in 0..<gradient.pixelCount {
            let e = Int(reduced.indices[k]) * 3
            for c in 0..<3 { error += abs(Int(gradient.pixels[k * 4 + c]) - Int(reduced.palette[e + c])) }
        }
        #expect(Double(error) / Double(gradient.pixelCount * 3) < 24, "mean error \(Double(error) / Double(gradient.pixelCount * 3))")
    }
}
