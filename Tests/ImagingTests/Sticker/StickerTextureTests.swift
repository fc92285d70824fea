import Foundation
import Testing
@testable import Imaging

@Suite("Sticker texture cues", .timeLimit(.minutes(10)))
struct StickerTextureTests {
    /// A "camouflaged" subject: a grey checkerboard of 2-px cells (values 128 ± `amplitude`) in the
    /// centre of a grey of the same mean that drifts smoothly by ±`drift` across the image, so mean
    /// colour separates the patch from its surroundings less than the background varies in itself.
    static func camouflage(width: Int = 96, height: Int = 72, amplitude: Int = 30, drift: Int = 20) -> (Image, Mask) {
        var image = Image(width: width, height: height)
        var truth = Mask(width: width, height: height, repeating: 0)
        for y in 0..<height {
            for x in 0..<width {
                let inside = x >= width / 3 && x < 2 * width / 3 && y >= height / 4 && y < 3 * height / 4
                var v = 128 + drift * (2 * x - width) / width + drift * (2 * y - height) / height
                if inside {
                    v += ((x / 2 + y / 2) % 2 == 0) ? amplitude : -amplitude
                    truth.values[y * width + x] = 255
                }
                image[x, y] = RGBA(r: UInt8(v), g: UInt8(v), b: UInt8(v))
            }
        }
        return (image, truth)
    }

    /// Mean of `values` inside minus outside `truth`.
    static func contrast(_ values: [Float], _ truth: Mask) -> Float {
        var inSum: Float = 0, inCount: Float = 0, outSum: Float = 0, outCount: Float = 0
        for p in values.indices {
            if truth.values[p] != 0 { inSum += values[p]; inCount += 1 } else { outSum += values[p]; outCount += 1 }
        }
        return inSum / inCount - outSum / outCount
    }

    @Test func flatImageHasNoTexture() throws {
        let image = Image(width: 40, height: 30, pixels: [UInt8](repeating: 90, count: 40 * 30 * 4))
        let texture = try TextureFeatures(LabImage(image, maxSide: 40, on: .inTurn), on: .inTurn)
        #expect(texture.values.count == 3 * 40 * 30)
        #expect(texture.values.allSatisfy { $0.isFinite && abs($0) < 1e-2 })
    }

    @Test func texturedPatchStandsOutInEveryChannel() throws {
        let (image, truth) = Self.camouflage()
        let work = try LabImage(image, maxSide: 96, on: .inTurn)
        let texture = try TextureFeatures(work, on: .inTurn).values
        let w = work.width
        // Deep inside the patch versus far outside it (away from the window straddling the edge).
        let inner = (work.height / 2) * w + w / 2, outer = 3 * w + 3
        #expect(truth.values[inner] == 255 && truth.values[outer] == 0)
        for c in 0..<3 {
            #expect(texture[3 * outer + c] < 0.5)
        }
        // ±30 grey levels around 128 is about ±12 L*: std and gradient are both several L* units.
        #expect(texture[3 * inner] > 5)
        #expect(texture[3 * inner + 1] > 2)
        // Neutral greys have no chroma, textured or not.
        #expect(texture[3 * inner + 2] < 0.5)
        // The scale is linear.
        let doubled = try TextureFeatures(work, scale: 2, on: .inTurn).values
        #expect(abs(doubled[3 * inner] - 2 * texture[3 * inner]) < 1e-3)
    }

    @Test func regionSaliencyFindsACamouflagedSubjectOnlyWithTexture() throws {
        let (image, truth) = Self.camouflage()
        let work = try LabImage(image, maxSide: 96, on: .inTurn)
        let texture = try TextureFeatures(work, on: .inTurn).values
        let colourOnly = try RobustBackgroundSaliency(work, on: .inTurn).values
        let withTexture = try RobustBackgroundSaliency(work, texture: texture, textureWeight: 0.5, on: .inTurn).values
        #expect(withTexture.allSatisfy { $0.isFinite && $0 >= 0 && $0 <= 1 })
        // Colour alone already scores the patch a little higher (centre bias, and the range is
        // normalised); texture must widen the gap clearly (measured 0.52 → 0.66).
        let gain = Self.contrast(withTexture, truth) - Self.contrast(colourOnly, truth)
        #expect(Self.contrast(withTexture, truth) > 0.6)
        #expect(gain > 0.1)
    }

    @Test func barrierSaliencyFindsACamouflagedSubjectOnlyWithTexture() throws {
        let (image, truth) = Self.camouflage()
        let work = try LabImage(image, maxSide: 96, on: .inTurn)
        let texture = try TextureFeatures(work, on: .inTurn).values
        let colourOnly = try SaliencyMap(work, on: .inTurn)
        let withTexture = try SaliencyMap(work, texture: texture, textureWeight: 2.5, on: .inTurn)
        #expect(withTexture.values.allSatisfy { $0.isFinite && $0 >= 0 && $0 <= 1 })
        #expect(withTexture.rawStrength == colourOnly.rawStrength)
        let gain = Self.contrast(withTexture.values, truth) - Self.contrast(colourOnly.values, truth)
        // Measured 0.60 → 0.73: the drifting background is as much of a colour barrier as the patch.
        #expect(Self.contrast(withTexture.values, truth) > 0.68)
        #expect(gain > 0.08)
    }

    @Test func mismatchedTextureIsIgnored() throws {
        let (image, _) = StickerScenes.disc()
        let work = try LabImage(image, maxSide: 160, on: .inTurn)
        let plain = try RobustBackgroundSaliency(work, on: .inTurn).values
        let wrongSize = try RobustBackgroundSaliency(work, texture: [1, 2, 3], textureWeight: 0.5, on: .inTurn).values
        #expect(plain == wrongSize)
    }
}
