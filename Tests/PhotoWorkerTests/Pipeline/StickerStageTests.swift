import Deadlines
import Foundation
import Compute
import Imaging
import Inference
import PhotoWorkerTestSupport
@testable import PhotoWorker
import Testing

/// The worker's sticker schedule (classical maps, faces and the network's passes at once, then the
/// two cuts side by side) against the same stage graph run inline, one stage after another.
@Suite(.timeLimit(.minutes(10)))
struct StickerStageTests {
    static func expectSame(_ a: Sticker, _ b: Sticker, _ label: String = "", sourceLocation: SourceLocation = #_sourceLocation) {
        // Counts of the differing values, not the arrays: a failure prints what differs, not megabytes.
        func differing(_ x: [UInt8], _ y: [UInt8]) -> Int { x.count == y.count ? zip(x, y).filter { $0 != $1 }.count : -1 }
        let masks = differing(a.mask.values, b.mask.values), pixels = differing(a.image.pixels, b.image.pixels)
        #expect(masks == 0, "\(label) mask values that differ (-1: sizes)", sourceLocation: sourceLocation)
        #expect(pixels == 0, "\(label) pixel bytes that differ (-1: sizes)", sourceLocation: sourceLocation)
        #expect(a.boundingBox == b.boundingBox && a.confidence == b.confidence,
                "\(label) \(a.boundingBox) \(a.confidence) vs \(b.boundingBox) \(b.confidence)", sourceLocation: sourceLocation)
    }

    @Test func theClassicalCutAtOnceEqualsTheStagesInTurn() async throws {
        let pool = ComputePool(threads: 2)
        pool.start()
        defer { pool.stop() }
        let image = SubjectNetworkTests.photo()
        let (sticker, used) = try await StickerStage.extract(image, outline: OutlineSpec(width: 4), segmenter: .classical, on: ComputeJob(pool, lease: .unleased),
                                                             memory: ActivationMemory())
        #expect(used == .classical)
        Self.expectSame(sticker, try await StickerExtractor.extract(from: image, options: OutlineSpec(width: 4).stickerOptions, on: InlineStages()))
        #expect(sticker.confidence > 0, "the disc was cut, not a fallback")
    }

    /// The runners a cut-out must not notice: its stages inline, on the pool one after another, on the pool at once.
    static func runners(_ pool: ComputePool) -> [(String, any StageRunner)] {
        [("inline", InlineStages()), ("in turn", PoolStages(ComputeJob(pool, lease: .unleased), concurrent: false)), ("at once", PoolStages(ComputeJob(pool, lease: .unleased)))]
    }

    /// The test photos: the disc, corpus/subjects/pair.jpg, and a nearly flat grey (no visible structure: the
    /// classical region map is not needed, and a runner at once makes it anyway and drops it).
    static func photos() throws -> [(String, Image)] {
        var flat = [UInt8](repeating: 128, count: 96 * 64 * 4)
        for i in stride(from: 0, to: flat.count, by: 4) { flat[i] = UInt8(127 + (i / 4) % 2); flat[i + 3] = 255 }
        return [("disc", SubjectNetworkTests.photo()), ("pair", try pair()), ("flat", Image(width: 96, height: 64, pixels: flat))]
    }

    /// The algorithm does not choose its schedule: the classical cut-out is the same whichever runner runs it.
    @Test func theClassicalCutIsTheSameOnEveryRunner() async throws {
        let pool = ComputePool(threads: 2)
        pool.start()
        defer { pool.stop() }
        let options = OutlineSpec(width: 4).stickerOptions
        for (photo, image) in try Self.photos() {
            var stickers: [(String, Sticker)] = []
            for (name, runner) in Self.runners(pool) {
                stickers.append((name, try await StickerExtractor.extract(from: image, options: options, on: runner)))
            }
            for (name, sticker) in stickers.dropFirst() { Self.expectSame(sticker, stickers[0].1, "\(photo), \(name) vs inline:") }
        }
    }

    /// The network's cut-out is the same whichever runner runs its passes and stages, with a decisive map (the map
    /// alone) and an undecided one (the classical maps guessed beside it at once, made after it in turn).
    @Test func theNetworkCutIsTheSameOnEveryRunner() async throws {
        let pool = ComputePool(threads: 2)
        pool.start()
        defer { pool.stop() }
        let networks = try SubjectNetwork.Networks.load()
        let options = StickerStage.networkOptions(StickerOptions())
        var decisive: [String: Bool] = [:]
        for (photo, image) in try Self.photos() {
            decisive[photo] = try await SubjectNetwork.map(for: image, mirrored: true, networks: networks, on: InlineStages()).isDecisive
            var stickers: [(String, Sticker)] = []
            for (name, runner) in Self.runners(pool) {
                let sticker = try await StickerExtractor.extract(from: image, options: options, subjectMap: {
                    try await SubjectNetwork.map(for: image, mirrored: true, networks: networks, on: runner,
                                                 memory: ActivationMemory())
                }, on: runner)
                stickers.append((name, sticker))
            }
            for (name, sticker) in stickers.dropFirst() { Self.expectSame(sticker, stickers[0].1, "\(photo), \(name) vs inline:") }
        }
        #expect(Set(decisive.values) == [true, false], "maps decisive: \(decisive): one path left untested")
    }

    /// Both schedules of the network's cut-out (a photo within the concurrent limit, and one over
    /// it, whose map comes first) give the cut-out of the stages run in turn.
    @Test(arguments: [SubjectNetwork.concurrentPassPixels, 0])
    func theNetworkCutAtOnceEqualsTheStagesInTurn(concurrentUpTo limit: Int) async throws {
        let pool = ComputePool(threads: 2)
        pool.start()
        defer { pool.stop() }
        let image = SubjectNetworkTests.photo()
        let (sticker, used) = try await StickerStage.extract(image, outline: nil, segmenter: .network, on: ComputeJob(pool, lease: .unleased), memory: ActivationMemory(),
                                                             concurrentUpTo: limit)
        #expect(used == .network)
        let networks = try SubjectNetwork.Networks.load()
        let inline = try await StickerExtractor.extract(from: image, options: StickerStage.networkOptions(StickerOptions()),
                                                        subjectMap: {
            try await SubjectNetwork.map(for: image, mirrored: true, networks: networks, on: InlineStages())
        }, on: InlineStages())
        Self.expectSame(sticker, inline)
        // The disc, not the whole frame.
        #expect(sticker.confidence > 0 && sticker.coverage > 0.1 && sticker.coverage < 0.5)
    }

    /// A box under half the photo is cut from the photo's map averaged with its own part's (on the vase of
    /// corpus/subjects/pair.jpg, a cut that differs from the photo's map alone); a larger one from the photo's map
    /// alone. Without the mirror passes, which the other tests cover: one pass a map.
    @Test(arguments: [(PixelRect(x: 15, y: 20, width: 115, height: 202), true),
                      (PixelRect(x: 0, y: 0, width: 200, height: 240), false)])
    func aSmallBoxIsCutFromItsFocusedMap(box: PixelRect, focused: Bool) async throws {
        let (image, sticker, settled) = try await Self.pairSticker(.box(box))
        let networks = try SubjectNetwork.Networks.load()
        let region = SubjectNetwork.focusRegion(for: box, width: image.width, height: image.height)
        #expect((region != nil) == focused, "\(String(describing: region))")
        let whole = try await StickerExtractor.extract(from: image, options: settled, subjectMap: {
            try await SubjectNetwork.map(for: image, mirrored: false, networks: networks, on: InlineStages())
        }, on: InlineStages())
        guard let region else { return Self.expectSame(sticker, whole) }
        let expected = try await StickerExtractor.extract(from: image, options: settled, subjectMap: {
            try await SubjectNetwork.map(for: image, focusedOn: region, longSide: settled.workingSize, mirrored: false,
                                         networks: networks, on: InlineStages())
        }, on: InlineStages())
        Self.expectSame(sticker, expected)
        let differs = expected.mask.values != whole.mask.values
        #expect(differs, "the photo's map alone gives the same cut: a test that cannot fail")
    }

    /// corpus/subjects/pair.jpg, a photo of two subjects.
    static func pair() throws -> Image {
        try ImageCodec.decode(Array(try Data(contentsOf: URL(fileURLWithPath: Corpus.path("subjects/pair.jpg")))), on: .inTurn).image
    }

    /// corpus/subjects/pair.jpg cut by `StickerStage.extract` with `prompt`, without the mirror passes, and the
    /// network's options with the prompt, for the cut expected.
    static func pairSticker(_ prompt: SubjectPrompt) async throws -> (image: Image, sticker: Sticker, options: StickerOptions) {
        let pool = ComputePool(threads: 2)
        pool.start()
        defer { pool.stop() }
        let image = try pair()
        let (sticker, _) = try await StickerStage.extract(image, outline: nil, segmenter: .network, on: ComputeJob(pool, lease: .unleased),
                                                          memory: ActivationMemory(),
                                                          cut: StickerCutSpec(subject: SubjectSpec(prompt)), mirrored: false)
        var options = StickerStage.networkOptions(StickerOptions())
        options.subject = prompt
        return (image, sticker, options)
    }

    /// A point on corpus/subjects/pair.jpg: the subject under it is cut again from its own part of the photo, mapped
    /// with one pass at the mirror network's size (a cut that differs from the whole photo's with the point as its
    /// prompt). Without the mirror passes.
    @Test func aPointsSubjectIsCutAgainOnItsOwnPart() async throws {
        let (image, sticker, settled) = try await Self.pairSticker(.point(224, 162))
        let networks = try SubjectNetwork.Networks.load()
        let once = try await StickerExtractor.extract(from: image, options: settled, subjectMap: {
            try await SubjectNetwork.map(for: image, mirrored: false, networks: networks, on: InlineStages())
        }, on: InlineStages())
        let expected = try await StickerExtractor.extract(from: image, options: settled, photoMap: {
            try await SubjectNetwork.map(for: image, mirrored: false, networks: networks, on: InlineStages())
        }, ownCutMap: { photo in
            try await SubjectNetwork.map(for: photo, mirrored: false, networks: networks.small, on: InlineStages())
        }, on: InlineStages())
        Self.expectSame(sticker, expected)
        let differs = expected.mask.values != once.mask.values
        #expect(differs, "the whole photo's cut alone is the same: a test that cannot fail")
        #expect(sticker.boundingBox.x > image.width / 2, "the right-hand subject: \(sticker.boundingBox)")
    }

    /// `image.subjects` on corpus/subjects/pair.jpg: the search's rounds with the mirrored map, each subject's own cut
    /// with one pass at the mirror network's size, as `StickerExtractor.subjects` cuts them with those maps.
    @Test func theSubjectsOwnCutsTakeOnePassAtTheSmallerSize() async throws {
        let pool = ComputePool(threads: 2)
        pool.start()
        defer { pool.stop() }
        let image = try Self.pair()
        let (found, _) = try await StickerStage.subjects(image, outline: nil, segmenter: .network, decontaminate: true,
                                                         on: ComputeJob(pool, lease: .unleased), memory: ActivationMemory())
        let networks = try SubjectNetwork.Networks.load()
        let expected = try await StickerExtractor.subjects(in: image, options: StickerStage.networkOptions(StickerOptions()),
                                                           subjectMap: { photo in
            try await SubjectNetwork.map(for: photo, mirrored: true, networks: networks, on: InlineStages())
        }, ownCutMap: { photo in
            try await SubjectNetwork.map(for: photo, mirrored: false, networks: networks.small, on: InlineStages())
        }, on: InlineStages())
        #expect(found.subjects == expected.subjects, "\(found.subjects)\nexpected \(expected.subjects)")
        #expect(found.subjects.count >= 2, "\(found.subjects)")
    }

    @Test func aCancelledStickerStopsWithCancellation() async throws {
        let pool = ComputePool(threads: 2)
        pool.start()
        defer { pool.stop() }
        let image = SubjectNetworkTests.photo(width: 1200, height: 800)
        let task = Task { try await StickerStage.extract(image, outline: nil, segmenter: .network, on: ComputeJob(pool, lease: .unleased),
                                                        memory: ActivationMemory()) }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await Deadline.value(of: task, "the cancelled sticker to end") }
    }

    /// Three stickers at once on two threads, their passes borrowing from the worker's memory: the blocks
    /// held never exceed the budget (one 320x320 block and one mirror block), where memory without a budget lends
    /// every pass its block as it asks, before it has a thread (all six at once here, 183 MB); and every sticker is
    /// the one it is alone.
    @Test func stickersAtOnceHoldNoMoreThanTheBudget() async throws {
        let services = WorkerServices(options: WorkerOptions(), maxJobs: 2)
        let pool = services.compute, memory = services.activations
        pool.start()
        defer { pool.stop() }
        let budget = try #require(SubjectNetwork.activationBudget(threads: 2))
        let networks = try SubjectNetwork.Networks.load()
        #expect(budget < 2 * networks.direct.activationBytes, "budget \(budget)")
        let images = (0..<3).map { SubjectNetworkTests.photo(width: 240 + 40 * $0, height: 200) }
        var alone: [Sticker] = []
        for image in images {
            alone.append(try await StickerStage.extract(image, outline: nil, segmenter: .network, on: ComputeJob(pool, lease: .unleased),
                                                        memory: ActivationMemory()).sticker)
        }
        let together = try await withThrowingTaskGroup(of: (Int, Sticker).self) { group in
            for (i, image) in images.enumerated() {
                group.addTask { (i, try await StickerStage.extract(image, outline: nil, segmenter: .network, on: ComputeJob(pool, lease: .unleased), memory: memory).sticker) }
            }
            return try await group.reduce(into: [Int: Sticker]()) { $0[$1.0] = $1.1 }
        }
        #expect(memory.peakHeldBytes <= budget, "\(memory.peakHeldBytes) bytes held at most, over a budget of \(budget)")
        for i in images.indices { Self.expectSame(try #require(together[i]), alone[i]) }
    }
}
