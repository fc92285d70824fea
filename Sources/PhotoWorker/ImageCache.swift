import Foundation
import Imaging
import JSONRPC
import Synchronization
import Waiting

/// Decoded images keyed by source identity and decode variant, LRU-bounded in bytes.
///
/// Under a memory budget the cache is one of its holders: it keeps no more than the running jobs leave free, and
/// gives back what a starting job needs (``MemoryBudget``), so it never makes a job wait.
///
/// A hit returns without suspending inside the actor; concurrent misses for the same key share
/// one decode (the second caller awaits the first caller's task, unless it is cancelled first).
public actor ImageCache {
    public struct Key: Hashable, Sendable {
        /// `path:<path>:<size>:<mtime>`, `url:<url>` or `data:<hash>:<count>`.
        public var identity: String
        /// The decode variant: `full`, or the shrink-on-load minimum size.
        public var variant: String
    }

    public struct Stats: Sendable, Codable {
        public var entries: Int
        public var bytes: Int
        public var capacityBytes: Int
        public var hits: Int
        public var misses: Int
        public var evictions: Int
    }

    private struct Entry {
        var image: DecodedImage
        var bytes: Int
        var lastUse: UInt64
    }

    private var entries: [Key: Entry] = [:]
    /// Keys being decoded right now, with the tickets of the callers waiting for that decode.
    private var inFlight: [Key: [ContinuationQueue<DecodedImage>.Ticket]] = [:]
    /// The callers waiting for another's decode (one queue for every key: a ticket names one wait).
    private var waiters = ContinuationQueue<DecodedImage>()
    private var bytes = 0 {
        didSet { heldBytes.value.store(bytes, ordering: .relaxed) }
    }
    /// `bytes`, readable outside the actor (the budget asks it from the protocol side).
    private nonisolated let heldBytes = HeldBytes()
    private final class HeldBytes: Sendable { let value = Atomic(0) }
    private let budget: MemoryBudget?
    private var clock: UInt64 = 0
    private var hits = 0, misses = 0, evictions = 0
    public let capacityBytes: Int

    /// - Parameter budget: the memory budget the cache holds part of, if any (it registers itself).
    public init(capacityBytes: Int, budget: MemoryBudget? = nil) {
        self.capacityBytes = max(0, capacityBytes)
        self.budget = budget
        guard let budget else { return }
        let held = heldBytes
        budget.register(MemoryBudget.Holder(name: "cache", held: { held.value.load(ordering: .relaxed) }, trim: { [weak self] atMost in
            guard let self else { return }
            Task { await self.trim(toAtMost: atMost) }
        }))
    }

    /// Drops the least recently used entries until at most `atMost` bytes remain.
    public func trim(toAtMost atMost: Int) {
        while bytes > max(0, atMost), let victim = entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
            entries[victim.key] = nil
            bytes -= victim.value.bytes
            evictions += 1
        }
    }

    /// The cached image for `key`, or the result of `load`, run by the first caller in that
    /// caller's task (so the decode stays on the job's compute thread, not on this actor).
    /// Concurrent callers for the same key wait for that one decode.
    public nonisolated func image(for key: Key, load: () async throws -> DecodedImage) async throws -> DecodedImage {
        while true {
            do {
                if let image = try await begin(key) { return image }
            } catch is CancellationError where !Task.isCancelled {
                continue  // the loading caller was cancelled, not us: try again
            }
            do {
                let image = try await load()
                await complete(key, .success(image))
                return image
            } catch {
                await complete(key, .failure(error))
                throw error
            }
        }
    }

    /// A hit returns at once; a miss for a key being loaded waits for it; otherwise nil tells
    /// the caller to load (and marks the key in flight).
    private func begin(_ key: Key) async throws -> DecodedImage? {
        clock += 1
        if var e = entries[key] {
            hits += 1
            e.lastUse = clock
            entries[key] = e
            return e.image
        }
        misses += 1
        if inFlight[key] != nil {
            let ticket = waiters.enqueue()
            inFlight[key]!.append(ticket)
            return try await Parking.wait({ waiters.park(ticket, $0).perform() }, onCancel: {
                Task { await self.stopWaiting(ticket) }
            })
        }
        inFlight[key] = []
        return nil
    }

    private func complete(_ key: Key, _ result: Result<DecodedImage, any Error>) {
        let tickets = inFlight.removeValue(forKey: key) ?? []
        if case .success(let image) = result { insert(image, for: key) }
        tickets.compactMap { waiters.resolve($0, with: result) }.perform()
    }

    /// A waiting caller's task was cancelled: it stops waiting now (the decode goes on for the others).
    private func stopWaiting(_ ticket: ContinuationQueue<DecodedImage>.Ticket) {
        waiters.resolve(ticket, with: .failure(CancellationError())).perform()
    }

    private func insert(_ image: DecodedImage, for key: Key) {
        let size = image.image.pixels.count + 256
        // Within what the running jobs leave of the budget, as well as the cache's own capacity.
        let capacity = min(capacityBytes, budget?.freeBytes ?? .max)
        guard size <= capacity, entries[key] == nil else { return }
        trim(toAtMost: capacity - size)
        clock += 1
        entries[key] = Entry(image: image, bytes: size, lastUse: clock)
        bytes += size
    }

    public func stats() -> Stats {
        Stats(entries: entries.count, bytes: bytes, capacityBytes: capacityBytes, hits: hits, misses: misses, evictions: evictions)
    }

    /// Drops every entry; returns how many there were.
    @discardableResult
    public func clear() -> Int {
        let n = entries.count
        entries = [:]
        bytes = 0
        return n
    }
}
