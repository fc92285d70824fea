import Foundation
import Testing
@testable import Imaging

@Suite("Sticker consensus growth", .timeLimit(.minutes(10)))
struct StickerConsensusGrowthTests {
    static let width = 80, height = 60
    static let centre = (x: 40, y: 24), radius = 12

    /// A red disc with a thin red leg hanging from it and, far off, a red square, over a background of
    /// blue and green stripes.
    static func scene() -> Image {
        var px = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let i = 4 * (y * width + x)
                let colour: (UInt8, UInt8, UInt8)
                if isDisc(x, y) || isLeg(x, y) || isFarSquare(x, y) {
                    colour = (200, 30, 40)
                } else {
                    colour = (y / 6) % 2 == 0 ? (40, 60, 190) : (50, 160, 70)
                }
                px[i] = colour.0; px[i + 1] = colour.1; px[i + 2] = colour.2
            }
        }
        return Image(width: width, height: height, pixels: px)
    }

    static func isDisc(_ x: Int, _ y: Int) -> Bool {
        let dx = x - centre.x, dy = y - centre.y
        return dx * dx + dy * dy <= radius * radius
    }

    /// Two pixels wide, reaching 9 px below the disc.
    static func isLeg(_ x: Int, _ y: Int) -> Bool {
        (x == centre.x || x == centre.x + 1) && y > centre.y + radius && y <= centre.y + radius + 9
    }

    static func isFarSquare(_ x: Int, _ y: Int) -> Bool { x >= 4 && x < 10 && y >= 50 && y < 56 }

    @Test func regrowsAThinPartAndNothingElse() throws {
        let work = try LabImage(Self.scene(), maxSide: Self.width, on: .inTurn)
        #expect(work.width == Self.width && work.height == Self.height)
        // The consensus lost the leg (and never had the far square).
        var consensus = [UInt8](repeating: 0, count: work.count)
        for y in 0..<Self.height { for x in 0..<Self.width where Self.isDisc(x, y) { consensus[y * Self.width + x] = 1 } }

        let grown = try ConsensusGrowth.grow(work, consensus: consensus, bandWidth: 12, on: .inTurn)

        var legRecovered = 0, legTotal = 0, backgroundTaken = 0
        for y in 0..<Self.height {
            for x in 0..<Self.width {
                let p = y * Self.width + x
                if consensus[p] != 0 { #expect(grown[p] == 1, "the consensus is kept whole") }
                if Self.isLeg(x, y) { legTotal += 1; legRecovered += Int(grown[p]) }
                if Self.isFarSquare(x, y) { #expect(grown[p] == 0, "beyond the band nothing changes") }
                if !Self.isDisc(x, y) && !Self.isLeg(x, y) && !Self.isFarSquare(x, y) { backgroundTaken += Int(grown[p]) }
            }
        }
        #expect(legTotal == 18)
        #expect(legRecovered == legTotal)
        #expect(backgroundTaken == 0)
    }

    @Test func anEmptyBandLeavesTheConsensusAlone() throws {
        let work = try LabImage(Self.scene(), maxSide: Self.width, on: .inTurn)
        let all = [UInt8](repeating: 1, count: work.count)
        #expect(try ConsensusGrowth.grow(work, consensus: all, bandWidth: 12, on: .inTurn) == all)
    }

    @Test func anEmptyConsensusStaysEmpty() throws {
        let work = try LabImage(Self.scene(), maxSide: Self.width, on: .inTurn)
        let none = [UInt8](repeating: 0, count: work.count)
        #expect(try ConsensusGrowth.grow(work, consensus: none, bandWidth: 12, on: .inTurn) == none)
    }

    @Test func chamferDistanceIsCloseToEuclidean() {
        let w = 21, h = 17, cx = 10, cy = 8
        var mask = [UInt8](repeating: 0, count: w * h)
        mask[cy * w + cx] = 1
        let d = ConsensusGrowth.chamferDistance(to: mask, width: w, height: h)
        #expect(d[cy * w + cx] == 0)
        #expect(abs(d[cy * w + cx + 7] - 7) < 1e-5)
        for y in 0..<h {
            for x in 0..<w where x != cx || y != cy {
                let e = Float(((x - cx) * (x - cx) + (y - cy) * (y - cy))).squareRoot()
                #expect(abs(d[y * w + x] - e) <= 0.09 * e)
            }
        }
    }
}
