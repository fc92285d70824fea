import Compute
import Foundation
import Testing
@testable import Imaging

/// `SubjectPrompt` through the cut: two discs on one background, a point or a box picks one.
@Suite("Subject prompts", .timeLimit(.minutes(10)))
struct SubjectPromptTests {
    /// Two discs (left red, right yellow) on a dark green background, with their true masks.
    static func twoDiscs() -> (Image, left: Mask, right: Mask) {
        let w = 240, h = 120
        var image = Image(width: w, height: h)
        var left = Mask(width: w, height: h, repeating: 0), right = left
        var seed: UInt32 = 99
        for y in 0..<h {
            for x in 0..<w {
                seed = seed &* 1664525 &+ 1013904223
                let noise = Int(seed >> 28) - 8
                func inside(_ cx: Double) -> Bool {
                    let dx = Double(x) + 0.5 - cx, dy = Double(y) + 0.5 - 60
                    return dx * dx + dy * dy <= 30 * 30
                }
                let c: RGBA
                if inside(60) { c = RGBA(r: 220, g: 40, b: 40); left.values[y * w + x] = 255 }
                else if inside(175) { c = RGBA(r: 230, g: 210, b: 50); right.values[y * w + x] = 255 }
                else { c = RGBA(r: 30, g: 90, b: 50) }
                func jitter(_ v: UInt8) -> UInt8 { UInt8(max(0, min(255, Int(v) + noise))) }
                image[x, y] = RGBA(r: jitter(c.r), g: jitter(c.g), b: jitter(c.b))
            }
        }
        return (image, left, right)
    }

    static func cut(_ image: Image, _ prompt: SubjectPrompt?) async throws -> Mask {
        var options = StickerOptions()
        options.subject = prompt
        return try await StickerExtractor.segment(image, options: options, on: InlineStages())
    }

    @Test func withoutAPromptBothDiscsAreTheSubject() async throws {
        let (image, left, right) = Self.twoDiscs()
        let mask = try await Self.cut(image, nil)
        let both = Mask(width: left.width, height: left.height, values: zip(left.values, right.values).map { max($0, $1) })
        #expect(mask.intersectionOverUnion(both) > 0.85, "IoU \(mask.intersectionOverUnion(both))")
        let all = try await Self.cut(image, .all)
        #expect(all.intersectionOverUnion(both) > 0.85)
    }

    @Test(arguments: [0, 1])
    func aPointPicksTheDiscUnderIt(side: Int) async throws {
        let (image, left, right) = Self.twoDiscs()
        let (own, other) = side == 0 ? (left, right) : (right, left)
        let mask = try await Self.cut(image, .point(side == 0 ? 60 : 175, 60))
        #expect(mask.intersectionOverUnion(own) > 0.85, "own IoU \(mask.intersectionOverUnion(own))")
        #expect(mask.intersectionOverUnion(other) < 0.05, "other's IoU \(mask.intersectionOverUnion(other))")
    }

    @Test func aPointToExcludeDropsThatDisc() async throws {
        let (image, left, right) = Self.twoDiscs()
        let mask = try await Self.cut(image, .points(include: [PixelPoint(x: 175, y: 60)], exclude: [PixelPoint(x: 60, y: 60)]))
        #expect(mask.intersectionOverUnion(right) > 0.85 && mask.intersectionOverUnion(left) < 0.05)
    }

    @Test func aBoxKeepsOnlyWhatIsInsideIt() async throws {
        let (image, left, right) = Self.twoDiscs()
        let mask = try await Self.cut(image, .box(PixelRect(x: 20, y: 20, width: 85, height: 85)))
        #expect(mask.intersectionOverUnion(left) > 0.85, "IoU \(mask.intersectionOverUnion(left))")
        #expect(mask.intersectionOverUnion(right) < 0.05)
    }

    @Test func aBoxWhereTheCutFoundNothingIsCutByColour() throws {
        // The labelling is empty: the box's GrabCut finds the disc inside it.
        let (image, left, _) = Self.twoDiscs()
        let work = try LabImage(image, maxSide: 240, on: .inTurn)
        let prior = SaliencyMap(values: [Float](repeating: 0.2, count: work.count), width: work.width, height: work.height)
        let labels = try SubjectSelection.select(.box(PixelRect(x: 20, y: 20, width: 85, height: 85)),
                                                 labels: [UInt8](repeating: 0, count: work.count), work: work, prior: prior,
                                                 threshold: 0.5, sourceWidth: image.width, sourceHeight: image.height, on: .inTurn)
        let mask = Mask(width: work.width, height: work.height, values: labels.map { $0 * 255 })
        #expect(mask.intersectionOverUnion(left) > 0.8, "IoU \(mask.intersectionOverUnion(left))")
    }

    @Test func validationNamesThePartThatDoesNotFit() {
        #expect(throws: SubjectPrompt.Invalid(path: "point", message: "(10, 5) lies outside the 10x10 photo")) {
            try SubjectPrompt.point(10, 5).validate(width: 10, height: 10)
        }
        #expect(throws: SubjectPrompt.Invalid.self) {
            try SubjectPrompt.points(include: [PixelPoint(x: 1, y: 1)], exclude: [PixelPoint(x: 1, y: -1)]).validate(width: 10, height: 10)
        }
        #expect(throws: SubjectPrompt.Invalid(path: "box", message: "the box has no area")) {
            try SubjectPrompt.box(PixelRect(x: 1, y: 1, width: 0, height: 4)).validate(width: 10, height: 10)
        }
        #expect(throws: Never.self) { try SubjectPrompt.box(PixelRect(x: -5, y: -5, width: 8, height: 8)).validate(width: 10, height: 10) }
        #expect(throws: Never.self) { try SubjectPrompt.point(9, 9).validate(width: 10, height: 10) }
    }

    @Test func subjectsAreFoundLargestFirstAndTheirPointsSelectThem() async throws {
        let (image, left, right) = Self.twoDiscs()
        let found = try await StickerExtractor.subjects(in: image, on: InlineStages())
        #expect(found.subjects.count == 2, "\(found.subjects.map { ($0.box, $0.area, $0.point) })")
        guard found.subjects.count == 2 else { return }
        #expect(found.subjects[0].area >= found.subjects[1].area)
        for (i, subject) in found.subjects.enumerated() {
            let own = subject.point.x < 120 ? left : right, other = subject.point.x < 120 ? right : left
            #expect(own.values[subject.point.y * image.width + subject.point.x] == 255, "point \(subject.point) on its disc")
            let sticker = try found.sticker(of: i, from: image, on: .inTurn)
            #expect(sticker.mask.intersectionOverUnion(own) > 0.85 && sticker.mask.intersectionOverUnion(other) < 0.05)
            #expect(subject.score > 0 && subject.score <= 1)
        }
    }
}
