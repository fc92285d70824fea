import Compute
import Imaging
import Inference
@testable import PhotoWorker
import Testing

/// The worker's sticker schedule (classical maps, faces and the network's passes at once, then the
/// two cuts side by side) against the same stage graph run inline, one stage after another.
struct StickerStageTests {
    static func expectSame(_ a: Sticker, _ b: Sticker, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(a.mask.values == b.mask.values, sourceLocation: sourceLocation)
        #expect(a.image.pixels == b.image.pixels, sourceLocation: sourceLocation)
        #expect(a.boundingBox == b.boundingBox && a.confidence == b.confidence, sourceLocation: sourceLocation)
    }

    @Test func theClassicalCutAtOnceEqualsTheStagesInTurn() async throws {
        let pool = ComputePool(threads: 2)
        pool.start()
        defer { pool.stop() }
        let image = SubjectNetworkTests.photo()
        let (sticker, used) = try await StickerStage.extract(image, outline: OutlineSpec(width: 4), segmenter: .classical, on: pool,
                                                             memory: ActivationMemory())
        #expect(used == .classical)
        Self.expectSame(sticker, try await StickerExtractor.extract(from: image, options: OutlineSpec(width: 4).stickerOptions))
        #expect(sticker.confidence > 0, "the disc was cut, not a fallback")
    }

    /// Both schedules of the network's cut-out (a photo within the concurrent limit, and one over
    /// it, whose map comes first) give the cut-out of the stages run in turn.
    @Test(arguments: [SubjectNetwork.concurrentPassPixels, 0])
    func theNetworkCutAtOnceEqualsTheStagesInTurn(concurrentUpTo limit: Int) async throws {
        let pool = ComputePool(threads: 2)
        pool.start()
        defer { pool.stop() }
        let image = SubjectNetworkTests.photo()
        let (sticker, used) = try await StickerStage.extract(image, outline: nil, segmenter: .network, on: pool, memory: ActivationMemory(),
                                                             concurrentUpTo: limit)
        #expect(used == .network)
        let networks = try SubjectNetwork.Networks.load()
        let inline = try await StickerExtractor.extract(from: image, options: StickerStage.networkOptions(StickerOptions()),
                                                        subjectMap: {
            try await SubjectNetwork.map(for: image, mirrored: true, networks: networks)
        })
        Self.expectSame(sticker, inline)
        // The disc, not the whole frame.
        #expect(sticker.confidence > 0 && sticker.coverage > 0.1 && sticker.coverage < 0.5)
    }

    @Test func aCancelledStickerStopsWithCancellation() async throws {
        let pool = ComputePool(threads: 2)
        pool.start()
        defer { pool.stop() }
        let image = SubjectNetworkTests.photo(width: 1200, height: 800)
        let task = Task { try await StickerStage.extract(image, outline: nil, segmenter: .network, on: pool,
                                                        memory: ActivationMemory()) }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
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
            alone.append(try await StickerStage.extract(image, outline: nil, segmenter: .network, on: pool,
                                                        memory: ActivationMemory()).sticker)
        }
        let together = try await withThrowingTaskGroup(of: (Int, Sticker).self) { group in
            for (i, image) in images.enumerated() {
                group.addTask { (i, try await StickerStage.extract(image, outline: nil, segmenter: .network, on: pool, memory: memory).sticker) }
            }
            return try await group.reduce(into: [Int: Sticker]()) { $0[$1.0] = $1.1 }
        }
        #expect(memory.peakHeldBytes <= budget, "\(memory.peakHeldBytes) bytes held at most, over a budget of \(budget)")
        for i in images.indices { Self.expectSame(try #require(together[i]), alone[i]) }
    }
}
