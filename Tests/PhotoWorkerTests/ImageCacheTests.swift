import Deadlines
import Foundation
import Imaging
import JSONRPC
@testable import PhotoWorker
import Synchronization
import Testing

@Suite(.timeLimit(.minutes(10)))
struct ImageCacheTests {
    final class Counter: Sendable {
        let value = Atomic<Int>(0)
    }

    private func decoded(_ side: Int) -> DecodedImage {
        DecodedImage(
            image: Image(width: side, height: side),
            metadata: ImageMetadata(format: .png, originalWidth: side, originalHeight: side, orientation: 1, hadAlpha: true,
                                    bitDepth: 8, channels: 4, iccProfile: nil, scaleDenominator: 1),
            warnings: [])
    }

    @Test func concurrentMissesShareOneLoad() async throws {
        let cache = ImageCache(capacityBytes: 1 << 20)
        let loads = Counter()
        let (gate, open) = AsyncStream.makeStream(of: Void.self)
        let key = ImageCache.Key(identity: "a", variant: "full")
        let image = decoded(4)
        async let first = cache.image(for: key) {
            loads.value.add(1, ordering: .relaxed)
            for await _ in gate { break }  // hold the load until the second caller is waiting
            return image
        }
        // Wait until the second caller has joined (a miss recorded while the load is in flight).
        async let second = cache.image(for: key) {
            loads.value.add(1, ordering: .relaxed)
            return image
        }
        try await Deadline.until("the second caller joined the load in flight") { await cache.stats().misses >= 2 }
        open.yield()
        let (a, b) = try await (first, second)
        #expect(a.image == b.image)
        #expect(loads.value.load(ordering: .relaxed) == 1)
        #expect(await cache.stats().entries == 1)
    }

    /// A caller waiting for another's decode stops waiting when cancelled (it used to wait for the decode to end).
    @Test func aCancelledCallerStopsWaitingForTheLoadInFlight() async throws {
        let cache = ImageCache(capacityBytes: 1 << 20)
        let (gate, open) = AsyncStream.makeStream(of: Void.self)
        let key = ImageCache.Key(identity: "a", variant: "full")
        let image = decoded(4)
        let first = Task {
            try await cache.image(for: key) {
                for await _ in gate { break }  // held until the test lets it go
                return image
            }
        }
        try await Deadline.until("the first caller loading") { await cache.stats().misses >= 1 }
        let second = Task { try await cache.image(for: key) { image } }
        try await Deadline.until("the second caller joined the load in flight") { await cache.stats().misses >= 2 }
        second.cancel()
        let outcome = try await Deadline.value(of: Task { await second.result }, "the cancelled caller to return while the load is held")
        #expect(throws: CancellationError.self) { try outcome.get() }
        open.yield()
        #expect(try await Deadline.value(of: first, "the first caller's load").image == image.image)
        #expect(await cache.stats().entries == 1)
    }

    @Test func evictsLeastRecentlyUsedWithinTheBudget() async throws {
        let one = 16 * 16 * 4 + 256
        let cache = ImageCache(capacityBytes: one * 2)
        for name in ["a", "b"] {
            _ = try await cache.image(for: .init(identity: name, variant: "full")) { decoded(16) }
        }
        _ = try await cache.image(for: .init(identity: "a", variant: "full")) { decoded(16) }  // a is now newest
        _ = try await cache.image(for: .init(identity: "c", variant: "full")) { decoded(16) }
        let stats = await cache.stats()
        #expect(stats.entries == 2)
        #expect(stats.evictions == 1)
        #expect(stats.bytes <= stats.capacityBytes)
        // b was evicted: loading it again is a miss that calls the loader.
        let loads = Counter()
        _ = try await cache.image(for: .init(identity: "b", variant: "full")) {
            loads.value.add(1, ordering: .relaxed)
            return decoded(16)
        }
        #expect(loads.value.load(ordering: .relaxed) == 1)
    }

    @Test func failedLoadsAreNotCached() async throws {
        struct Boom: Error {}
        let cache = ImageCache(capacityBytes: 1 << 20)
        let key = ImageCache.Key(identity: "x", variant: "full")
        await #expect(throws: Boom.self) { try await cache.image(for: key) { throw Boom() } }
        let again = try await cache.image(for: key) { decoded(2) }
        #expect(again.image.width == 2)
    }

    /// Under a budget the cache keeps only what running jobs leave free, and gives it back when asked.
    @Test func underABudgetTheCacheKeepsWhatJobsLeaveAndTrimsOnRequest() async throws {
        let budget = MemoryBudget(bytes: 1 << 20, origin: "test")
        let cache = ImageCache(capacityBytes: 1 << 30, budget: budget)
        let image = decoded(256)  // 256 KiB
        for i in 0..<8 {
            _ = try await cache.image(for: .init(identity: "\(i)", variant: "full")) { image }
        }
        let held = await cache.stats().bytes
        #expect(held <= 1 << 20, "the cache holds \(held) bytes of a 1 MiB budget")
        #expect(budget.heldBytes["cache"] == held)
        await cache.trim(toAtMost: 300 << 10)
        let trimmed = await cache.stats()
        #expect(trimmed.bytes <= 300 << 10 && trimmed.entries == 1, "\(trimmed)")
    }
}
