import Deadlines
import Foundation
import Testing
@testable import Imaging

@Suite(.timeLimit(.minutes(10))) struct PaletteExtractorTests {
    /// Horizontal stripes of the given colours with the given widths (out of `width` columns).
    static func stripes(_ parts: [(RGBA, Int)], height: Int = 20) -> Image {
        let width = parts.reduce(0) { $0 + $1.1 }
        var image = Image(width: width, height: height)
        var x0 = 0
        for (colour, w) in parts {
            for y in 0..<height { for x in x0..<(x0 + w) { image[x, y] = colour } }
            x0 += w
        }
        return image
    }

    static let red = RGBA(r: 220, g: 30, b: 40), green = RGBA(r: 30, g: 160, b: 60), blue = RGBA(r: 20, g: 50, b: 200)

    @Test func distinctBlocksAreFoundWithTheirShares() throws {
        let image = Self.stripes([(Self.red, 50), (Self.green, 30), (Self.blue, 20)])
        let palette = try PaletteExtractor.palette(of: image, count: 3, on: .inTurn)
        #expect(palette.map(\.rgb) == [Self.red, Self.green, Self.blue])
        #expect(palette.map(\.fraction) == [0.5, 0.3, 0.2])
    }

    @Test func fewerColoursThanRequestedReturnsWhatItHas() throws {
        let white = try PaletteExtractor.palette(of: Image(width: 300, height: 200, fill: RGBA(r: 255, g: 255, b: 255)), count: 5, on: .inTurn)
        #expect(white == [PaletteColor(rgb: RGBA(r: 255, g: 255, b: 255), fraction: 1)])
        let two = try PaletteExtractor.palette(of: Self.stripes([(Self.red, 3), (Self.blue, 1)], height: 1), count: 10, on: .inTurn)
        #expect(two.map(\.hex) == [Self.red.hex, Self.blue.hex])
        let tiny = try PaletteExtractor.palette(of: Image(width: 1, height: 1, fill: Self.green), count: 16, on: .inTurn)
        #expect(tiny.map(\.rgb) == [Self.green])
    }

    @Test func transparentPixelsAreIgnored() throws {
        let ghost = RGBA(r: 0, g: 255, b: 255, a: 100)
        let image = Self.stripes([(ghost, 80), (Self.red, 20)])
        let palette = try PaletteExtractor.palette(of: image, count: 4, on: .inTurn)
        #expect(palette.map(\.rgb) == [Self.red] && palette.first?.fraction == 1)
        #expect(try PaletteExtractor.palette(of: Image(width: 50, height: 40), count: 5, on: .inTurn).isEmpty)
    }

    @Test func largeImageIsDownscaledAndStaysDeterministic() throws {
        // Two noisy colour clusters on a 700x300 image (downscaled internally to 128 px).
        var rng = SplitMix64(seed: 42)
        var image = Image(width: 700, height: 300)
        for y in 0..<300 {
            for x in 0..<700 {
                let base = x < 420 ? (200, 120, 40) : (40, 90, 180)
                func jitter(_ v: Int) -> UInt8 { UInt8(min(255, max(0, v + Int(rng.next() % 21) - 10))) }
                image[x, y] = RGBA(r: jitter(base.0), g: jitter(base.1), b: jitter(base.2))
            }
        }
        let a = try PaletteExtractor.palette(of: image, count: 2, on: .inTurn)
        let b = try PaletteExtractor.palette(of: image, count: 2, on: .inTurn)
        #expect(a == b)
        #expect(a.count == 2)
        #expect(abs(a[0].fraction - 0.6) < 0.02 && abs(a[1].fraction - 0.4) < 0.02)
        #expect(abs(Int(a[0].rgb.r) - 200) <= 6 && abs(Int(a[1].rgb.b) - 180) <= 6)
        #expect(a.map(\.fraction).reduce(0, +) > 0.999)
    }

    @Test(arguments: [0, -1, 17, Int.max])
    func invalidCountThrows(count: Int) {
        #expect(throws: PaletteError.invalidCount(count)) {
            try PaletteExtractor.palette(of: Image(width: 2, height: 2), count: count, on: .inTurn)
        }
    }

    @Test func colourEncodesAsHexAndFraction() throws {
        let c = PaletteColor(rgb: RGBA(r: 255, g: 16, b: 1), fraction: 0.25)
        let data = try JSONEncoder().encode(c)
        let json = try #require(String(data: data, encoding: .utf8))
        #expect(json.contains("\"hex\":\"#FF1001\"") && json.contains("\"fraction\":0.25"))
        #expect(try JSONDecoder().decode(PaletteColor.self, from: data) == c)
    }

    @Test func cancellationIsHonoured() async {
        let image = Self.stripes([(Self.red, 300), (Self.green, 200), (Self.blue, 100)], height: 200)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try PaletteExtractor.palette(of: image, count: 3, on: .inTurn)
        }
        await #expect(throws: CancellationError.self) { try await Deadline.value(of: task, "the cancelled palette extraction to end") }
    }
}
