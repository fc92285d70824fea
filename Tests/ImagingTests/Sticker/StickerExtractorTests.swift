import Compute
import Deadlines
import Foundation
import Testing
@testable import Imaging

/// Synthetic scenes with a known answer.
enum StickerScenes {
    /// A filled disc of `fg` on `bg` with a little deterministic noise (so nothing is perfectly flat).
    static func disc(width: Int = 160, height: Int = 120, cx: Double = 84, cy: Double = 58, radius: Double = 30,
                     fg: RGBA = RGBA(r: 220, g: 40, b: 40), bg: RGBA = RGBA(r: 60, g: 120, b: 70)) -> (Image, Mask) {
        var image = Image(width: width, height: height)
        var truth = Mask(width: width, height: height, repeating: 0)
        var seed: UInt32 = 12345
        for y in 0..<height {
            for x in 0..<width {
                seed = seed &* 1664525 &+ 1013904223
                let noise = Int(seed >> 28) - 8
                let dx = Double(x) + 0.5 - cx, dy = Double(y) + 0.5 - cy
                let inside = dx * dx + dy * dy <= radius * radius
                let c = inside ? fg : bg
                func jitter(_ v: UInt8) -> UInt8 { UInt8(max(0, min(255, Int(v) + noise))) }
                image[x, y] = RGBA(r: jitter(c.r), g: jitter(c.g), b: jitter(c.b))
                if inside { truth.values[y * width + x] = 255 }
            }
        }
        return (image, truth)
    }
}

@Suite("Sticker extraction", .timeLimit(.minutes(10)))
struct StickerExtractorTests {
    @Test func discOnContrastingBackgroundIsFound() async throws {
        let (image, truth) = StickerScenes.disc()
        let sticker = try await StickerExtractor.extract(from: image, on: InlineStages())
        #expect(sticker.mask.width == image.width && sticker.mask.height == image.height)
        #expect(sticker.mask.intersectionOverUnion(truth) > 0.9)
        #expect(abs(sticker.coverage - Double(truth.count()) / Double(image.pixelCount)) < 0.03)
        #expect(sticker.confidence > 0.3)
    }

    @Test func discOffCentreAndLargeWorkingSizeAlsoFound() async throws {
        let (image, truth) = StickerScenes.disc(width: 300, height: 200, cx: 90, cy: 120, radius: 45,
                                                fg: RGBA(r: 240, g: 220, b: 60), bg: RGBA(r: 30, g: 40, b: 120))
        let mask = try await StickerExtractor.segment(image, options: StickerOptions(workingSize: 300), on: InlineStages())
        #expect(mask.intersectionOverUnion(truth) > 0.9)
    }

    @Test func stickerIsCroppedToTheBoundingBox() async throws {
        let (image, _) = StickerScenes.disc()
        let sticker = try await StickerExtractor.extract(from: image, on: InlineStages())
        let box = sticker.boundingBox
        #expect(sticker.image.width == box.width && sticker.image.height == box.height)
        #expect(sticker.origin.x == box.x && sticker.origin.y == box.y)
        // The disc spans x 54..<114, y 28..<88; feathering may add a pixel or two.
        #expect(abs(box.x - 54) <= 3 && abs(box.y - 28) <= 3)
        #expect(abs(box.width - 60) <= 6 && abs(box.height - 60) <= 6)
        // Every mask pixel outside the box is zero, and the cut-out's alpha is the mask inside it.
        for y in 0..<image.height {
            for x in 0..<image.width {
                let inBox = x >= box.x && x < box.x + box.width && y >= box.y && y < box.y + box.height
                let m = sticker.mask.values[y * image.width + x]
                if !inBox { #expect(m == 0) } else {
                    #expect(sticker.image[x - box.x, y - box.y].a == m)
                }
            }
        }
        // The centre keeps the source colour.
        #expect(sticker.image[84 - box.x, 58 - box.y] == image[84, 58])
    }

    @Test func outlineHasTheOutlineColourAndAlpha() async throws {
        let (image, _) = StickerScenes.disc()
        let green = RGBA(r: 0, g: 255, b: 0)
        let sticker = try await StickerExtractor.extract(from: image, options: StickerOptions(outlineWidth: 5, outlineColor: green), on: InlineStages())
        let box = sticker.boundingBox
        #expect(sticker.image.width == box.width + 2 * 7 && sticker.image.height == box.height + 2 * 7)
        #expect(sticker.origin.x == box.x - 7 && sticker.origin.y == box.y - 7)
        // A point 3 px right of the disc's rightmost edge (x = 114) on its middle row, in canvas coordinates.
        let px = 114 + 3 - sticker.origin.x, py = 58 - sticker.origin.y
        #expect(sticker.image[px, py] == RGBA(r: 0, g: 255, b: 0, a: 255))
        // Well outside the outline: transparent. Inside the subject: source colour.
        #expect(sticker.image[0, 0].a == 0)
        #expect(sticker.image[84 - sticker.origin.x, 58 - sticker.origin.y] == image[84, 58])
    }

    @Test func translucentOutlineColourKeepsItsAlpha() async throws {
        let (image, _) = StickerScenes.disc()
        let half = RGBA(r: 255, g: 255, b: 255, a: 128)
        let sticker = try await StickerExtractor.extract(from: image, options: StickerOptions(outlineWidth: 7, outlineColor: half), on: InlineStages())
        // 5 px out: beyond the feathered edge (3σ = 3 px), inside the outline.
        let px = 114 + 5 - sticker.origin.x, py = 58 - sticker.origin.y
        #expect(sticker.image[px, py] == half)
    }

    static let degenerate: [(String, Image)] = [
        ("1x1", Image(width: 1, height: 1, fill: RGBA(r: 10, g: 20, b: 30))),
        ("2x2", Image(width: 2, height: 2, pixels: [255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 9, 9, 9, 255])),
        ("flat", Image(width: 64, height: 48, fill: RGBA(r: 128, g: 128, b: 128))),
        ("transparent", Image(width: 40, height: 30)),
        ("thin row", StickerScenes.disc(width: 500, height: 3, cx: 250, cy: 1, radius: 20).0),
        ("thin column", StickerScenes.disc(width: 3, height: 400, cx: 1, cy: 200, radius: 20).0),
        ("tiny noise", StickerScenes.disc(width: 9, height: 9, cx: 4, cy: 4, radius: 2).0),
        ("wide strip", StickerScenes.disc(width: 3000, height: 9, cx: 1500, cy: 4, radius: 4).0),
        ("tall strip", StickerScenes.disc(width: 8, height: 2500, cx: 4, cy: 1200, radius: 4).0),
    ]
    /// Inputs for which the documented fallback (whole image, confidence 0) must be chosen.
    static let fallbacks: Set<String> = ["1x1", "2x2", "flat", "transparent", "thin row", "thin column"]

    @Test(arguments: degenerate.map(\.0))
    func degenerateInputsDoNotCrash(name: String) async throws {
        let image = try #require(Self.degenerate.first { $0.0 == name }?.1)
        let sticker = try await StickerExtractor.extract(from: image, options: StickerOptions(outlineWidth: 3), on: InlineStages())
        #expect(sticker.mask.width == image.width && sticker.mask.height == image.height)
        if Self.fallbacks.contains(name) {
            // Documented fallback: no distinct subject → the whole image, confidence 0.
            #expect(sticker.mask.values.allSatisfy { $0 == 255 })
            #expect(sticker.confidence == 0)
            #expect(sticker.boundingBox == PixelRect(x: 0, y: 0, width: image.width, height: image.height))
        }
        #expect(sticker.image.width == sticker.boundingBox.width + 10)
    }

    @Test func imageWithTransparencyIsTakenAsAlreadyCutOut() async throws {
        var image = Image(width: 50, height: 40, fill: RGBA(r: 0, g: 0, b: 0, a: 0))
        for y in 10..<30 { for x in 5..<25 { image[x, y] = RGBA(r: 200, g: 100, b: 50, a: x == 5 ? 100 : 255) } }
        let sticker = try await StickerExtractor.extract(from: image, on: InlineStages())
        #expect(sticker.mask.values[15 * 50 + 10] == 255 && sticker.mask.values[15 * 50 + 5] == 100)
        #expect(sticker.mask.values[5 * 50 + 40] == 0)
        #expect(sticker.boundingBox == PixelRect(x: 5, y: 10, width: 20, height: 20))
        #expect(sticker.confidence == 1)
    }

    @Test func cancellationThrows() async throws {
        let (image, _) = StickerScenes.disc()
        let task = Task {
            // Wait until cancelled so the extractor certainly starts in a cancelled task.
            while !Task.isCancelled { await Task.yield() }
            return try await StickerExtractor.extract(from: image, on: InlineStages())
        }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await Deadline.value(of: task, "the cancelled extraction to end") }
    }

    @Test func grabCutChecksCancellationInsideItsLoop() async throws {
        let (image, _) = StickerScenes.disc()
        let work = try LabImage(image, maxSide: 200, on: .inTurn)
        let prior = [Float](repeating: 0.5, count: work.count)
        let initial = [UInt8](repeating: 1, count: work.count)
        let task = Task {
            while !Task.isCancelled { await Task.yield() }
            return try GrabCutSegmenter().segment(work, prior: prior, initial: initial, on: .inTurn)
        }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await Deadline.value(of: task, "the cancelled grab cut to end") }
    }

    @Test func optionsOutOfRangeAreClamped() async throws {
        let (image, truth) = StickerScenes.disc()
        let mask = try await StickerExtractor.segment(image, options: StickerOptions(outlineWidth: -3, workingSize: 1, feather: -2), on: InlineStages())
        #expect(mask.intersectionOverUnion(truth) > 0.85)
    }
}
