import Testing
@testable import Imaging

@Suite("EXIF orientation", .timeLimit(.minutes(10)))
struct OrientationCodecTests {
    /// A TIFF block with one IFD0 entry.
    static func tiff(littleEndian: Bool, tag: UInt16 = 0x0112, type: UInt16 = 3, count: UInt32 = 1,
                     value: UInt32, ifdOffset: UInt32 = 8) -> [UInt8] {
        func u16(_ v: UInt16) -> [UInt8] { littleEndian ? [UInt8(v & 0xFF), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 0xFF)] }
        func u32(_ v: UInt32) -> [UInt8] {
            let b = [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
            return littleEndian ? b.reversed() : b
        }
        let valueField: [UInt8] = type == 3 ? u16(UInt16(truncatingIfNeeded: value)) + [0, 0] : u32(value)
        return (littleEndian ? [0x49, 0x49] : [0x4D, 0x4D]) + u16(42) + u32(ifdOffset)
            + u16(1) + u16(tag) + u16(type) + u32(count) + valueField + u32(0)
    }

    static func parse(_ bytes: [UInt8]) -> Int {
        bytes.withUnsafeBytes { ExifOrientation.parse($0) }
    }

    @Test("reads SHORT orientation in both byte orders", arguments: 1...8)
    func bothByteOrders(_ value: Int) {
        #expect(Self.parse(Self.tiff(littleEndian: true, value: UInt32(value))) == value)
        #expect(Self.parse(Self.tiff(littleEndian: false, value: UInt32(value))) == value)
    }

    @Test("accepts LONG written by some tools")
    func longType() {
        #expect(Self.parse(Self.tiff(littleEndian: false, type: 4, value: 6)) == 6)
    }

    @Test("anything odd means no rotation")
    func oddInputs() {
        #expect(Self.parse([]) == 1)
        #expect(Self.parse([0x49, 0x49, 42, 0]) == 1)
        #expect(Self.parse(Self.tiff(littleEndian: true, value: 0)) == 1)
        #expect(Self.parse(Self.tiff(littleEndian: true, value: 9)) == 1)
        #expect(Self.parse(Self.tiff(littleEndian: true, type: 2, value: 6)) == 1)
        #expect(Self.parse(Self.tiff(littleEndian: true, tag: 0x0110, value: 6)) == 1)
        #expect(Self.parse(Self.tiff(littleEndian: true, value: 6, ifdOffset: 0xFFFF_FFF0)) == 1)
        #expect(Self.parse(Self.tiff(littleEndian: true, value: 6, ifdOffset: 4)) == 1)
        var badMagic = Self.tiff(littleEndian: true, value: 6)
        badMagic[2] = 43
        #expect(Self.parse(badMagic) == 1)
        // Entry count claims more entries than the block holds.
        var overlong = Self.tiff(littleEndian: true, tag: 0x0100, value: 6)
        overlong[8] = 0xFF; overlong[9] = 0xFF
        #expect(Self.parse(overlong) == 1)
        // Truncated in the middle of the entry.
        #expect(Self.parse(Array(Self.tiff(littleEndian: true, value: 6).prefix(17))) == 1)
    }

    /// Where stored pixel (sx, sy) of a w x h image lands when displayed, straight from the EXIF definition.
    static func displayed(_ o: Int, _ sx: Int, _ sy: Int, _ w: Int, _ h: Int) -> (Int, Int) {
        switch o {
        case 2: return (w - 1 - sx, sy)
        case 3: return (w - 1 - sx, h - 1 - sy)
        case 4: return (sx, h - 1 - sy)
        case 5: return (sy, sx)
        case 6: return (h - 1 - sy, sx)
        case 7: return (h - 1 - sy, w - 1 - sx)
        case 8: return (sy, w - 1 - sx)
        default: return (sx, sy)
        }
    }

    @Test("each orientation moves every pixel where EXIF says", arguments: Orientation.allCases)
    func pixelMapping(_ orientation: Orientation) throws {
        // Larger than one 64-pixel tile in both directions, with odd sizes, to cover tile edges.
        let w = 131, h = 70
        var image = Image(width: w, height: h)
        for y in 0..<h { for x in 0..<w { image[x, y] = RGBA(r: UInt8(x), g: UInt8(y), b: UInt8((x * 7 + y) & 0xFF)) } }
        let out = try orientation.apply(to: image, on: .inTurn)
        #expect(out.width == (orientation.swapsAxes ? h : w) && out.height == (orientation.swapsAxes ? w : h))
        var wrong = 0
        for y in 0..<h {
            for x in 0..<w {
                let (dx, dy) = Self.displayed(orientation.rawValue, x, y, w, h)
                if out[dx, dy] != image[x, y] { wrong += 1 }
            }
        }
        #expect(wrong == 0)
    }
}
