import Compute
import Testing
@testable import Imaging

/// `StickerExtractor.subjects` cutting each subject again on its own part of the photo.
@Suite("Subjects' own cuts", .timeLimit(.minutes(10)))
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
        options.learnedMapAloneWhenDecisive = true
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
                                                        ownCutMap: Self.map, on: InlineStages())
        let disc = try #require(found.subjects.first { $0.point.x < 120 }?.box, "\(found.subjects)")
        #expect(abs(disc.x - 30) <= 3 && abs(disc.width - 60) <= 6 && abs(disc.y - 30) <= 3 && abs(disc.height - 60) <= 6,
                "the own cut's box \(disc)")
        let searchOnly = try await StickerExtractor.subjects(in: image, options: Self.options, subjectMap: search, on: InlineStages())
        let other = searchOnly.subjects.first { $0.point.x < 120 }?.box
        #expect(other != disc, "the search's map alone gives the same box: a test that cannot fail")
    }

    @Test func eachSubjectIsCutAgainOnItsOwnPart() async throws {
        let (image, left, right) = SubjectPromptTests.twoDiscs()
        let once = try await StickerExtractor.subjects(in: image, options: Self.options, subjectMap: Self.map,
                                                       refines: false, on: InlineStages())
        let found = try await StickerExtractor.subjects(in: image, options: Self.options, subjectMap: Self.map, on: InlineStages())
        func leftBox(_ s: PhotoSubjects) -> PixelRect? { s.subjects.first { $0.point.x < 120 }?.box }
        // The whole photo's map alone gives the square; the left disc's own cut gives the disc (x 30..<90).
        let square = try #require(leftBox(once), "\(once.subjects)")
        #expect(square.width > 100, "the search's box \(square)")
        let disc = try #require(leftBox(found), "\(found.subjects)")
        #expect(abs(disc.x - 30) <= 3 && abs(disc.width - 60) <= 6 && abs(disc.y - 30) <= 3 && abs(disc.height - 60) <= 6,
                "the own cut's box \(disc)")
        #expect(found.subjects.count == 2, "\(found.subjects)")
        // A point on the left disc is cut from its own cut, not from the whole photo's.
        let sticker = try found.sticker(from: image, subject: .point(60, 60), on: .inTurn)
        #expect(sticker.mask.intersectionOverUnion(left) > 0.85, "IoU \(sticker.mask.intersectionOverUnion(left))")
        #expect(sticker.mask.intersectionOverUnion(right) < 0.05)
        let index = try #require(found.subjects.firstIndex { $0.point.x < 120 })
        #expect(try found.sticker(of: index, from: image, on: .inTurn).mask.intersectionOverUnion(left) > 0.85)
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

    @Test func aPointOnTheOneSubjectTheCutFindsKeepsThatCut() async throws {
        let (image, left, _) = SubjectPromptTests.twoDiscs()
        var options = Self.options
        options.subject = .point(60, 60)
        let settled = options
        // The whole photo's cut alone keeps the square round both discs, one part; the disc's own cut, the disc: under
        // 0.65 of the square's area, so the point would only shrink the subject the cut found, and the unprompted cut
        // is the floor (bench/README.md, "A point never makes the cut worse").
        let once = try await StickerExtractor.extract(from: image, options: settled, subjectMap: { try await Self.map(image) }, on: InlineStages())
        #expect(once.boundingBox.width > 100, "the whole photo's cut: \(once.boundingBox)")
        var unprompted = settled
        unprompted.subject = nil
        let plain = try await StickerExtractor.extract(from: image, options: unprompted, subjectMap: { try await Self.map(image) }, on: InlineStages())
        let sticker = try await StickerExtractor.extract(from: image, options: settled, photoMap: { try await Self.map(image) },
                                                         ownCutMap: Self.map, on: InlineStages())
        #expect(sticker.mask == plain.mask, "IoU with the unprompted cut \(sticker.mask.intersectionOverUnion(plain.mask))")
        #expect(sticker.mask.intersectionOverUnion(left) < 0.5, "IoU with the disc \(sticker.mask.intersectionOverUnion(left))")
        #expect(sticker.mask.width == image.width && sticker.mask.height == image.height)
        // A box is cut once, as `extract(from:options:subjectMap:on:)` cuts it.
        options.subject = .box(PixelRect(x: 5, y: 0, width: 125, height: 120))
        let boxed = options
        let box = try await StickerExtractor.extract(from: image, options: boxed, photoMap: { try await Self.map(image) },
                                                     ownCutMap: Self.map, on: InlineStages())
        let boxOnce = try await StickerExtractor.extract(from: image, options: boxed, subjectMap: { try await Self.map(image) }, on: InlineStages())
        let same = box.mask.values == boxOnce.mask.values
        #expect(same, "box \(box.boundingBox), cut once \(boxOnce.boundingBox)")
    }

    /// A mask of `width` x 100 with the columns in `columns` inside.
    static func columns(_ columns: [Range<Int>], width: Int = 200) -> SampledMask {
        var mask = Mask(width: width, height: 100, repeating: 0)
        for range in columns { for y in 20..<80 { for x in range { mask.values[y * width + x] = 255 } } }
        return SampledMask(mask)
    }

    @Test func aPointsCutLostTheSubjectWhenItShrinksTheOnePartOrLiesLargelyOutsideTheCut() {
        let pair = Self.columns([10..<60, 110..<160])
        // One of two subjects the unprompted cut took together: chosen, within the cut.
        #expect(!StickerExtractor.pointLostTheSubject(Self.columns([10..<60]), floor: pair, floorIsOnePart: false))
        // Something else, 60% of it outside the cut the point lies on (sticker-dev's 176035: 59% inside).
        let elsewhere = Self.columns([40..<60, 65..<95])
        #expect(elsewhere.share(within: pair) == 0.4, "\(elsewhere.share(within: pair))")
        #expect(StickerExtractor.pointLostTheSubject(elsewhere, floor: pair, floorIsOnePart: false))
        // One part the point's cut keeps a fifth of: lost; nine tenths of it: refined.
        let one = Self.columns([10..<110])
        #expect(StickerExtractor.pointLostTheSubject(Self.columns([10..<30]), floor: one, floorIsOnePart: true))
        #expect(!StickerExtractor.pointLostTheSubject(Self.columns([10..<100]), floor: one, floorIsOnePart: true))
    }

    /// A subject that reaches the edge of its own part was found only in part: its part is widened (by half the
    /// subject's size, on the sides it reaches and where the photo goes on) and cut again.
    @Test func aSubjectReachingItsOwnPartsEdgeIsCutAgainWider() async throws {
        // A long red bar on green: the search's map sees only its left end, the own cuts' map all of it they are given.
        let w = 240, h = 120
        var image = Image(width: w, height: h)
        for y in 0..<h {
            for x in 0..<w {
                image[x, y] = x >= 20 && x < 200 && y >= 40 && y < 80 ? RGBA(r: 220, g: 40, b: 40) : RGBA(r: 30, g: 90, b: 50)
            }
        }
        let search: @Sendable (Image) async throws -> SubjectMap = { photo in
            var values = [Float](repeating: 0, count: photo.pixelCount)
            for y in 0..<photo.height {
                for x in 0..<min(80, photo.width) where photo[x, y].r > 150 { values[y * photo.width + x] = 1 }
            }
            return SubjectMap(width: photo.width, height: photo.height, values: values)
        }
        let own: @Sendable (Image) async throws -> SubjectMap = { photo in
            SubjectMap(width: photo.width, height: photo.height,
                       values: (0..<photo.pixelCount).map { photo[$0 % photo.width, $0 / photo.width].r > 150 ? 1 : 0 })
        }
        let searchOnly = try await StickerExtractor.subjects(in: image, options: Self.options, subjectMap: search, rounds: 1,
                                                             refines: false, on: InlineStages())
        let first = try #require(searchOnly.subjects.first?.box, "\(searchOnly.subjects)")
        #expect(first.x + first.width <= 84, "the search sees the bar's left end: \(first)")
        let found = try await StickerExtractor.subjects(in: image, options: Self.options, subjectMap: search, rounds: 1,
                                                        ownCutMap: own, on: InlineStages())
        let bar = try #require(found.subjects.first?.box, "\(found.subjects)")
        // The first own part (the left end grown by a tenth) ends by x = 86; widened once, by half the bar found in it.
        #expect(bar.x <= 22 && bar.x + bar.width >= 115, "\(bar)")
    }

    /// A later round's part is judged by its own cut: the strip's map may be unsure of a subject (here the right
    /// disc, faint in every map of a strip), its own part's sure of it. One faint in its own cut too stays out.
    @Test(arguments: [(Float(1), true), (Float(0.01), false)])
    func aLaterRoundsPartIsKeptWhenItsOwnCutIsSure(ownStrength: Float, kept: Bool) async throws {
        let (image, _, right) = SubjectPromptTests.twoDiscs()
        // The whole photo's map sees the left disc alone; a strip's, the right disc faintly.
        let search: @Sendable (Image) async throws -> SubjectMap = { photo in
            let strength: Float = photo.width == image.width ? 0 : 0.01
            return SubjectMap(width: photo.width, height: photo.height, values: (0..<photo.pixelCount).map {
                let c = photo[$0 % photo.width, $0 / photo.width]
                return c.r > 150 && c.g < 100 ? 1 : c.r > 150 ? strength : 0
            })
        }
        let own: @Sendable (Image) async throws -> SubjectMap = { photo in
            SubjectMap(width: photo.width, height: photo.height, values: (0..<photo.pixelCount).map {
                let c = photo[$0 % photo.width, $0 / photo.width]
                return c.r > 150 && c.g < 100 ? 1 : c.r > 150 ? ownStrength : 0
            })
        }
        let searchOnly = try await StickerExtractor.subjects(in: image, options: Self.options, subjectMap: search,
                                                             refines: false, on: InlineStages())
        #expect(!searchOnly.subjects.contains { $0.point.x > 120 }, "the strip's part scores low: \(searchOnly.subjects)")
        let found = try await StickerExtractor.subjects(in: image, options: Self.options, subjectMap: search, ownCutMap: own, on: InlineStages())
        let disc = found.subjects.firstIndex { $0.point.x > 120 }
        #expect((disc != nil) == kept, "\(found.subjects)")
        if let disc {
            let iou = try found.sticker(of: disc, from: image, on: .inTurn).mask.intersectionOverUnion(right)
            #expect(iou > 0.85, "IoU \(iou)")
        }
    }

    /// A part's sticker is cut from the photo in place: the same cut-out, mask, box and coverage as from a copy of the
    /// part, placed on the photo (with an outline, which reaches past the subject). The soft edge's colours are
    /// estimated from the photo round them, which in place goes on past the part's edge: over this uniform background
    /// they differ by a level or so (over a changing one, by what lies beyond the edge).
    @Test(arguments: [false, true])
    func aPartsStickerIsCutInPlaceAsFromACopy(decontaminates: Bool) async throws {
        let (image, _, _) = SubjectPromptTests.twoDiscs()
        let region = PixelRect(x: 131, y: 7, width: 97, height: 106)
        let part = Compositing.crop(image, x: region.x, y: region.y, width: region.width, height: region.height)
        var options = Self.options
        options.outlineWidth = 3
        options.feather = 1.5
        options.decontaminatesEdges = decontaminates
        let (plan, cuts, settled) = try await StickerExtractor.planAndCut(part, options: options,
                                                                          subjectMap: { try await Self.map(part) },
                                                                          on: InlineStages())
        let copied = try plan.sticker(from: part, cuts: cuts, options: settled, on: .inTurn)
        let inPlace = try plan.sticker(from: image, region: region, cuts: cuts, options: settled, on: .inTurn)
        #expect(inPlace.image.width == copied.image.width && inPlace.image.height == copied.image.height)
        let differences = zip(inPlace.image.pixels, copied.image.pixels).enumerated().map { i, p in
            i % 4 == 3 ? (p.0 == p.1 ? 0 : 255) : abs(Int(p.0) - Int(p.1))
        }
        // Alpha the same everywhere; colour exactly without the estimate, within a few levels with it.
        #expect(differences.max() ?? 255 <= (decontaminates ? 3 : 0), "largest difference \(differences.max() ?? -1)")
        #expect(inPlace.boundingBox == PixelRect(x: copied.boundingBox.x + region.x, y: copied.boundingBox.y + region.y,
                                                 width: copied.boundingBox.width, height: copied.boundingBox.height),
                "\(inPlace.boundingBox) against \(copied.boundingBox)")
        #expect(inPlace.origin.x == copied.origin.x + region.x && inPlace.origin.y == copied.origin.y + region.y,
                "\(inPlace.origin) against \(copied.origin)")
        var placed = Mask(width: image.width, height: image.height, repeating: 0)
        for y in 0..<region.height {
            for x in 0..<region.width {
                placed.values[(y + region.y) * image.width + x + region.x] = copied.mask.values[y * region.width + x]
            }
        }
        let wrong = zip(inPlace.mask.values, placed.values).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
        #expect(wrong.isEmpty && inPlace.mask.width == image.width,
                "the mask differs from the copy's, placed on the photo, at \(wrong.count) pixels, first \(wrong.first ?? -1)")
        #expect(copied.mask.count() > 1000 && inPlace.coverage == Double(placed.count()) / Double(image.pixelCount),
                "coverage \(inPlace.coverage)")
    }

    /// An empty mask of a part makes a sticker of the part's size (as from a copy of the part), not of the photo's.
    @Test func anEmptyPartsStickerIsThePartsSize() throws {
        let (image, _, _) = SubjectPromptTests.twoDiscs()
        let region = PixelRect(x: 131, y: 7, width: 97, height: 106)
        let empty = Mask(width: image.width, height: image.height, repeating: 0)
        let sticker = try StickerExtractor.makeSticker(image, mask: empty, confidence: 0, options: Self.options,
                                                       emptyBox: region, on: .inTurn)
        #expect(sticker.boundingBox == region && sticker.image.width == region.width, "\(sticker.boundingBox)")
    }

    /// Widened only on the sides the subject reaches, and never past the photo.
    @Test func aPartIsWidenedOnlyWhereTheSubjectReachesItsEdge() {
        let image = Image(width: 200, height: 100)
        let part = PixelRect(x: 50, y: 0, width: 100, height: 60)
        // Reaching the left and bottom edges (the top is the photo's own edge): wider left and down.
        let wider = StickerExtractor.widened(part, for: PixelRect(x: 51, y: 0, width: 40, height: 59), in: image)
        #expect(wider == PixelRect(x: 30, y: 0, width: 120, height: 89), "\(String(describing: wider))")
        // Well inside: as it is.
        #expect(StickerExtractor.widened(part, for: PixelRect(x: 60, y: 10, width: 50, height: 40), in: image) == nil)
        // Reaching the right edge near the photo's: clamped to the photo.
        let nearEdge = PixelRect(x: 100, y: 0, width: 90, height: 60)
        let clamped = StickerExtractor.widened(nearEdge, for: PixelRect(x: 110, y: 10, width: 80, height: 40), in: image)
        #expect(clamped == PixelRect(x: 100, y: 0, width: 100, height: 60), "\(String(describing: clamped))")
    }
}
