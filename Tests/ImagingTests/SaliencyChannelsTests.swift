import Testing
@testable import Imaging

/// The saliency map's barrier distances, one per channel and spread over a pool's idle threads, are summed in the
/// channels' order: the map is the same inline and on a two-thread pool, with and without texture and focus.
struct SaliencyChannelsTests {
    static func photo() -> Image {
        var image = Image(width: 96, height: 72)
        var state: UInt64 = 7
        for y in 0..<72 {
            for x in 0..<96 {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                let inside = (x - 48) * (x - 48) + (y - 36) * (y - 36) < 400
                let noise = UInt8(state >> 59)
                let i = 4 * (y * 96 + x)
                image.pixels[i] = inside ? 200 + noise : 40 + noise
                image.pixels[i + 1] = inside ? 60 : 120 + noise
                image.pixels[i + 2] = UInt8(x * 2)
                image.pixels[i + 3] = 255
            }
        }
        return image
    }

    @Test func theMapIsTheSameInlineAndOnAPool() async throws {
        let image = Self.photo()
        let work = try LabImage(image, maxSide: 96)
        let texture = try TextureFeatures(work).values
        let focus = try FocusFeatures(image, width: work.width, height: work.height).values
        let pool = ComputePool(threads: 2)
        pool.start()
        defer { pool.stop() }
        for (withTexture, withFocus) in [(false, false), (true, false), (false, true), (true, true)] {
            let make = { @Sendable () throws -> SaliencyMap in
                try SaliencyMap(work, texture: withTexture ? texture : nil, textureWeight: 2.5,
                                focus: withFocus ? focus : nil, focusWeight: 30)
            }
            let inline = try make(), spread = try await pool.run(make)
            #expect(inline.values == spread.values && inline.threshold == spread.threshold
                    && inline.rawStrength == spread.rawStrength,
                    "texture \(withTexture), focus \(withFocus): thresholds \(inline.threshold) / \(spread.threshold), strengths \(inline.rawStrength) / \(spread.rawStrength), \(zip(inline.values, spread.values).filter { $0 != $1 }.count) values differ")
            #expect(inline.rawStrength > 2, "the disc stands out: raw strength \(inline.rawStrength)")
        }
    }
}
