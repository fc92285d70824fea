import Testing
@testable import Imaging

/// `StickerExtractor.subjects` cutting each subject again on its own part of the photo.
@Suite("Subjects' own cuts")
struct SubjectOwnCutTests {
    /// A map that sees the left disc as a square well beyond it in the whole photo, and every disc as it is in a
    /// part of the photo: what a subject's own cut changes shows in its box.
    static let map: @Sendable (Image) async throws -> SubjectMap = { photo in
        var values = [Float](repeating: 0, count: photo.pixelCount)
        for y in 0..<photo.height {
            for x in 0..<photo.width {
                let c = photo[x, y]
                let disc: Float = c.r > 150 ? 1 : 0
                let square: Float = x >= 10 && x < 125 && y >= 5 && y < 115 ? 1 : 0
                values[y * photo.width + x] = photo.width == 240 && x < 125 ? square : disc
            }
        }
        return SubjectMap(width: photo.width, height: photo.height, values: values)
    }

    static var options: StickerOptions {
        var options = StickerOptions()
        options.subjectMapWeight = 0.8
        options.subjectMapExponent = 0.5
        options.classicalMapsOnlyWhenUndecided = true
        return options
    }

    /// The own cuts take `ownCutMap`'s map: here the search's map sees the whole of any part of the photo as the
    /// subject, so the left disc's own cut finds the disc only with its own.
    @Test func theOwnCutsTakeTheirOwnMap() async throws {
        let (image, _, _) = SubjectPromptTests.twoDiscs()
        let search: @Sendable (Image) async throws -> SubjectMap = { photo in
            photo.width == image.width ? try await Self.map(photo)
                : SubjectMap(width: photo.width, height: photo.height, values: [Float](repeating: 1, count: photo.pixelCount))
        }
        let found = try await StickerExtractor.subjects(in: image, options: Self.options, subjectMap: search,
                                                        ownCutMap: Self.map)
        let disc = try #require(found.subjects.first { $0.point.x < 120 }?.box, "\(found.subjects)")
        #expect(abs(disc.x - 30) <= 3 && abs(disc.width - 60) <= 6 && abs(disc.y - 30) <= 3 && abs(disc.height - 60) <= 6,
                "the own cut's box \(disc)")
        let searchOnly = try await StickerExtractor.subjects(in: image, options: Self.options, subjectMap: search)
        let other = searchOnly.subjects.first { $0.point.x < 120 }?.box
        #expect(other != disc, "the search's map alone gives the same box: a test that cannot fail")
    }

    @Test func eachSubjectIsCutAgainOnItsOwnPart() async throws {
        let (image, left, right) = SubjectPromptTests.twoDiscs()
        let once = try await StickerExtractor.subjects(in: image, options: Self.options, subjectMap: Self.map,
                                                       refines: false)
        let found = try await StickerExtractor.subjects(in: image, options: Self.options, subjectMap: Self.map)
        func leftBox(_ s: PhotoSubjects) -> PixelRect? { s.subjects.first { $0.point.x < 120 }?.box }
        // The whole photo's map alone gives the square; the left disc's own cut gives the disc (x 30..<90).
        let square = try #require(leftBox(once), "\(once.subjects)")
        #expect(square.width > 100, "the search's box \(square)")
        let disc = try #require(leftBox(found), "\(found.subjects)")
        #expect(abs(disc.x - 30) <= 3 && abs(disc.width - 60) <= 6 && abs(disc.y - 30) <= 3 && abs(disc.height - 60) <= 6,
                "the own cut's box \(disc)")
        #expect(found.subjects.count == 2, "\(found.subjects)")
        // A point on the left disc is cut from its own cut, not from the whole photo's.
        let sticker = try found.sticker(from: image, subject: .point(60, 60))
        #expect(sticker.mask.intersectionOverUnion(left) > 0.85, "IoU \(sticker.mask.intersectionOverUnion(left))")
        #expect(sticker.mask.intersectionOverUnion(right) < 0.05)
        let index = try #require(found.subjects.firstIndex { $0.point.x < 120 })
        #expect(try found.sticker(of: index, from: image).mask.intersectionOverUnion(left) > 0.85)
    }

    @Test func aPromptMovedIntoAPartKeepsOnlyItsPointsInside() {
        let part = PixelRect(x: 100, y: 50, width: 40, height: 30)
        let p = { (x: Int, y: Int) in PixelPoint(x: x, y: y) }
        let prompt = SubjectPrompt.points(include: [p(110, 60), p(10, 60)], exclude: [p(139, 79), p(200, 60)])
        #expect(prompt.moved(by: -part.x, -part.y, within: part) == .points(include: [p(10, 10)], exclude: [p(39, 29)]))
        // No point to keep inside: the first, moved onto the part's edge.
        let outside = SubjectPrompt.points(include: [p(10, 60), p(300, 0)], exclude: [])
        #expect(outside.moved(by: -part.x, -part.y, within: part) == .points(include: [p(0, 10)], exclude: []))
        #expect(SubjectPrompt.box(part).moved(by: -part.x, -part.y, within: part) == .box(PixelRect(x: 0, y: 0, width: 40, height: 30)))
    }

    @Test func aPointsSubjectIsCutAgainOnItsOwnPart() async throws {
        let (image, left, right) = SubjectPromptTests.twoDiscs()
        var options = Self.options
        options.subject = .point(60, 60)
        let settled = options
        // The whole photo's cut alone keeps the square; the disc's own cut, the disc.
        let once = try await StickerExtractor.extract(from: image, options: settled, subjectMap: { try await Self.map(image) })
        #expect(once.boundingBox.width > 100, "the whole photo's cut: \(once.boundingBox)")
        let sticker = try await StickerExtractor.extract(from: image, options: settled, photoMap: { try await Self.map(image) },
                                                         ownCutMap: Self.map)
        #expect(sticker.mask.intersectionOverUnion(left) > 0.85, "IoU \(sticker.mask.intersectionOverUnion(left))")
        #expect(sticker.mask.intersectionOverUnion(right) < 0.05)
        #expect(sticker.mask.width == image.width && sticker.mask.height == image.height)
        // A box is cut once, as `extract(from:options:subjectMap:on:)` cuts it.
        options.subject = .box(PixelRect(x: 5, y: 0, width: 125, height: 120))
        let boxed = options
        let box = try await StickerExtractor.extract(from: image, options: boxed, photoMap: { try await Self.map(image) },
                                                     ownCutMap: Self.map)
        let boxOnce = try await StickerExtractor.extract(from: image, options: boxed, subjectMap: { try await Self.map(image) })
        let same = box.mask.values == boxOnce.mask.values
        #expect(same, "box \(box.boundingBox), cut once \(boxOnce.boundingBox)")
    }
}
