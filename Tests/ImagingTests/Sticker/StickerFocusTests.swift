import Deadlines
import Foundation
import Testing
@testable import Imaging

@Suite("Sticker focus cue", .timeLimit(.minutes(10)))
struct StickerFocusTests {
    /// Deterministic grey texture around 128 with structure at every scale, like a photographed
    /// surface: hashed cell noise of cells 1, 3, 9 and 27 px, ±20 grey levels each. Blurring keeps
    /// the coarse cells (evidence of a soft area) and removes the fine ones.
    static func noise(width: Int, height: Int) -> [Float] {
        func hash(_ x: Int, _ y: Int, _ s: Int) -> Float {
            var h = UInt32(truncatingIfNeeded: x &* 73_856_093 ^ y &* 19_349_663 ^ s &* 83_492_791)
            h ^= h >> 15; h = h &* 2_246_822_519; h ^= h >> 13
            return Float(h % 41) - 20
        }
        return (0..<(width * height)).map { i in
            let x = i % width, y = i / width
            var v: Float = 128
            for cell in [1, 3, 9, 27] { v += hash(x / cell, y / cell, cell) }
            return v
        }
    }

    /// Three passes of a horizontal and vertical box of `radius` (≈ a Gaussian of σ ≈ radius) over
    /// the pixels where `blurred` is true; the others keep their values.
    static func defocus(_ plane: [Float], width w: Int, height h: Int, radius r: Int,
                        where blurred: (Int, Int) -> Bool) -> [Float] {
        var v = plane
        for _ in 0..<3 {
            var t = v
            for y in 0..<h {
                for x in 0..<w {
                    var s: Float = 0
                    for d in -r...r { s += v[y * w + min(w - 1, max(0, x + d))] }
                    t[y * w + x] = s / Float(2 * r + 1)
                }
            }
            for y in 0..<h {
                for x in 0..<w {
                    var s: Float = 0
                    for d in -r...r { s += t[min(h - 1, max(0, y + d)) * w + x] }
                    v[y * w + x] = s / Float(2 * r + 1)
                }
            }
        }
        return plane.indices.map { blurred($0 % w, $0 / w) ? v[$0] : plane[$0] }
    }

    static func image(_ plane: [Float], width: Int, height: Int) -> Image {
        var image = Image(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width {
                let v = UInt8(max(0, min(255, plane[y * width + x].rounded())))
                image[x, y] = RGBA(r: v, g: v, b: v)
            }
        }
        return image
    }

    static func mean(_ v: [Float], width: Int, where keep: (Int, Int) -> Bool) -> Float {
        var sum: Float = 0, count: Float = 0
        for i in v.indices where keep(i % width, i / width) { sum += v[i]; count += 1 }
        return sum / count
    }

    /// The working grid `LabImage` would use for `image` at `maxSide`.
    static func grid(_ image: Image, maxSide: Int) throws -> (Int, Int) {
        let work = try LabImage(image, maxSide: maxSide, on: .inTurn)
        return (work.width, work.height)
    }

    @Test func sharpHalfIsInFocusAndBlurredHalfIsNot() throws {
        let w = 480, h = 320
        let plane = Self.defocus(Self.noise(width: w, height: h), width: w, height: h, radius: 3) { x, _ in x >= w / 2 }
        let image = Self.image(plane, width: w, height: h)
        let (gw, gh) = try Self.grid(image, maxSide: 200)
        let focus = try FocusFeatures(image, width: gw, height: gh, on: .inTurn)
        #expect(focus.values.count == gw * gh && focus.logRatio.count == gw * gh)
        #expect(focus.values.allSatisfy { $0.isFinite && $0 >= 0 && $0 <= 1 })
        // Away from the seam (the spreading window is 8 working pixels).
        let sharp = Self.mean(focus.values, width: gw) { x, _ in x < gw / 2 - 10 }
        let soft = Self.mean(focus.values, width: gw) { x, _ in x >= gw / 2 + 10 }
        #expect(sharp > 0.8)
        #expect(soft < 0.2)
        let sharpRatio = Self.mean(focus.logRatio, width: gw) { x, _ in x < gw / 2 - 10 }
        let softRatio = Self.mean(focus.logRatio, width: gw) { x, _ in x >= gw / 2 + 10 }
        #expect(sharpRatio > softRatio + 0.3)
        #expect(focus.strength == 1)
    }

    @Test func uniformlySharpImageHasNoFocusCue() throws {
        let w = 480, h = 320
        let image = Self.image(Self.noise(width: w, height: h), width: w, height: h)
        let (gw, gh) = try Self.grid(image, maxSide: 200)
        let focus = try FocusFeatures(image, width: gw, height: gh, on: .inTurn)
        // The texture's own variation of log R (its cells of different sizes) stays below the gate;
        // the half-blurred version of it spreads over 0.8.
        #expect(focus.spread < 0.25)
        #expect(focus.strength == 0)
    }

    @Test func uniformlyBlurredImageHasNoFocusCue() throws {
        let w = 480, h = 320
        let plane = Self.defocus(Self.noise(width: w, height: h), width: w, height: h, radius: 3) { _, _ in true }
        let image = Self.image(plane, width: w, height: h)
        let (gw, gh) = try Self.grid(image, maxSide: 200)
        let focus = try FocusFeatures(image, width: gw, height: gh, on: .inTurn)
        #expect(focus.strength == 0)
    }

    @Test func flatImageIsFiniteAndWithoutCue() throws {
        let image = Image(width: 60, height: 40, pixels: [UInt8](repeating: 90, count: 60 * 40 * 4))
        let focus = try FocusFeatures(image, width: 30, height: 20, on: .inTurn)
        #expect(focus.values.count == 600)
        #expect(focus.values.allSatisfy { $0 == 0 })
        #expect(focus.logRatio.allSatisfy { $0.isFinite })
        #expect(focus.strength == 0)
    }

    @Test func largePhotoIsAnalysedReduced() throws {
        // 4× the working size on the longest side is reduced to 3× before analysis; the half that
        // is blurred by 6 source pixels (2 analysed pixels) must still read as the softer one.
        let w = 800, h = 400
        let plane = Self.defocus(Self.noise(width: w, height: h), width: w, height: h, radius: 6) { x, _ in x < w / 2 }
        let image = Self.image(plane, width: w, height: h)
        let focus = try FocusFeatures(image, width: 200, height: 100, on: .inTurn)
        let soft = Self.mean(focus.values, width: 200) { x, _ in x < 90 }
        let sharp = Self.mean(focus.values, width: 200) { x, _ in x >= 110 }
        #expect(sharp > soft + 0.5)
    }

    /// A sharp textured disc over the same texture defocused: the same mean colour everywhere.
    static func sharpDisc(width w: Int = 360, height h: Int = 240) -> (Image, Mask) {
        let cx = Float(w) / 2, cy = Float(h) / 2, r = Float(h) / 4
        func inside(_ x: Int, _ y: Int) -> Bool {
            let dx = Float(x) - cx, dy = Float(y) - cy
            return dx * dx + dy * dy < r * r
        }
        let plane = Self.defocus(Self.noise(width: w, height: h), width: w, height: h, radius: 3) { !inside($0, $1) }
        var truth = Mask(width: w, height: h, repeating: 0)
        for y in 0..<h { for x in 0..<w where inside(x, y) { truth.values[y * w + x] = 255 } }
        return (Self.image(plane, width: w, height: h), truth)
    }

    /// `mask` sampled (nearest) on a smaller grid.
    static func sample(_ mask: Mask, width: Int, height: Int) -> Mask {
        Mask(width: width, height: height, values: (0..<(width * height)).map { i in
            mask.values[(i / width) * mask.height / height * mask.width + (i % width) * mask.width / width]
        })
    }

    @Test func focusRaisesBarrierSaliencyOfASharpSubject() throws {
        let (image, truth) = Self.sharpDisc()
        let work = try LabImage(image, maxSide: 200, on: .inTurn)
        let focus = try FocusFeatures(image, width: work.width, height: work.height, on: .inTurn)
        #expect(focus.strength == 1)
        let small = Self.sample(truth, width: work.width, height: work.height)
        let texture = try TextureFeatures(work, on: .inTurn).values
        let without = try SaliencyMap(work, texture: texture, textureWeight: 2.5, on: .inTurn)
        let with = try SaliencyMap(work, texture: texture, textureWeight: 2.5, focus: focus.values, focusWeight: 40, on: .inTurn)
        #expect(with.values.allSatisfy { $0.isFinite && $0 >= 0 && $0 <= 1 })
        #expect(with.rawStrength == without.rawStrength)
        let gain = StickerTextureTests.contrast(with.values, small) - StickerTextureTests.contrast(without.values, small)
        #expect(gain > 0.05)
    }

    @Test func focusRaisesRegionSaliencyOfASharpSubject() throws {
        let (image, truth) = Self.sharpDisc()
        let work = try LabImage(image, maxSide: 200, on: .inTurn)
        let focus = try FocusFeatures(image, width: work.width, height: work.height, on: .inTurn)
        let small = Self.sample(truth, width: work.width, height: work.height)
        let without = try RobustBackgroundSaliency(work, on: .inTurn).values
        let with = try RobustBackgroundSaliency(work, focus: focus.values, focusWeight: 100, on: .inTurn).values
        #expect(with.allSatisfy { $0.isFinite && $0 >= 0 && $0 <= 1 })
        let gain = StickerTextureTests.contrast(with, small) - StickerTextureTests.contrast(without, small)
        #expect(gain > 0.05)
    }

    @Test func checksCancellation() async throws {
        let (image, _) = Self.sharpDisc()
        let task = Task {
            while !Task.isCancelled { await Task.yield() }
            return try FocusFeatures(image, width: 180, height: 120, on: .inTurn)
        }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await Deadline.value(of: task, "the cancelled focus search to end") }
    }

    @Test func mismatchedFocusIsIgnored() throws {
        let (image, _) = StickerScenes.disc()
        let work = try LabImage(image, maxSide: 160, on: .inTurn)
        #expect(try RobustBackgroundSaliency(work, on: .inTurn).values
            == RobustBackgroundSaliency(work, focus: [1, 2, 3], focusWeight: 100, on: .inTurn).values)
        #expect(try SaliencyMap(work, on: .inTurn).values == SaliencyMap(work, focus: [1, 2, 3], focusWeight: 40, on: .inTurn).values)
    }
}
