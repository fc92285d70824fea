import Compute
import Foundation
import Imaging

import Glibc

extension ImageLoader {
    /// How much of a file is read for its header before the whole of it: JPEG's frame header, PNG's, WebP's and
    /// GIF's lie well inside it, as does a phone's HEIC or AVIF `meta` box.
    static let headerPrefixBytes = 256 << 10

    /// The facts a memory estimate starts from, reading as little as tells: a file's first bytes (the whole file
    /// only for a still format whose header lies further in), inline bytes, or a URL fetched once and handed back as
    /// `.fetched`, so the work does not fetch it again. Throws what opening, reading or fetching throws and the pixel limit
    /// (the work would throw the same, later); a source whose header says nothing (not an image, or damaged) is
    /// estimated as its bytes alone, which is what the work reads before it says what is wrong.
    func estimateSource(_ source: ImageSource, access: FileAccess) async throws -> (MemoryEstimate.Source, ImageSource) {
        let (facts, read) = try await headerFacts(source, access: access)
        // The pixel limit is the first thing a header tells: refused as the decoder would refuse it.
        guard !facts.fromHeader || facts.pixels <= options.maxPixels else {
            throw WorkerError.tooLarge(source: source.description, width: facts.width, height: facts.height,
                                       limit: options.maxPixels)
        }
        return (facts, read)
    }

    private func headerFacts(_ source: ImageSource, access: FileAccess) async throws -> (MemoryEstimate.Source, ImageSource) {
        switch source {
        case .path(let p):
            let fd = try access.openForReading(p)
            defer { close(fd) }
            let facts = try await blocking.run { () throws -> MemoryEstimate.Source in
                let (prefix, size) = try Self.readFile(fd, path: p, upTo: Self.headerPrefixBytes)
                if let info = try? ImageCodec.info(prefix) { return MemoryEstimate.Source(info, encodedBytes: size) }
                if size > prefix.count, ImageCodec.sniff(prefix) != nil,
                   let info = try? ImageCodec.info(try Self.readFile(fd, path: p)) {
                    return MemoryEstimate.Source(info, encodedBytes: size)
                }
                return Self.unreadable(encodedBytes: size)
            }
            return (facts, source)
        case .data(let bytes), .fetched(_, let bytes):
            return (Self.facts(bytes), source)
        case .url(let u):
            let bytes = try await self.bytes(of: source, access: access)
            return (Self.facts(bytes), .fetched(u, bytes))
        }
    }

    /// The most bytes of URL downloads a batch's estimate keeps for its work
    /// (``batchChild(_:motion:access:on:held:whileHeld:)``).
    static let heldDownloadBytes = 64 << 20

    /// One child of a batch, as its estimate sees it: whether it moves (when `motion`, as `probeMotion` tells), its
    /// header's facts (nil when it cannot be read, or when it moves: the child's own work says why; one bad photo
    /// never fails a batch), and the source to read it by from now on. `whileHeld` runs on the source as read (a
    /// clip's estimate, say), before a download that is not kept is dropped. A URL's download is kept (`.fetched`)
    /// while the batch's kept downloads, `held`, stay within ``heldDownloadBytes``; past that the child fetches it
    /// again in its turn, so a batch of many URLs never holds them all.
    func batchChild(_ source: ImageSource, motion: Bool, access: FileAccess, on compute: ComputeJob, held: inout Int,
                    whileHeld: (_ moves: Bool, _ read: ImageSource) async -> Int) async
        -> (moves: Bool, facts: MemoryEstimate.Source?, source: ImageSource, bytes: Int) {
        var read = source, moves = false
        if motion {
            (moves, read) = await probeMotion(source, access: access, on: compute)
        }
        var facts: MemoryEstimate.Source?
        if !moves, let (f, r) = try? await estimateSource(read, access: access) {
            facts = f
            read = r
        }
        let bytes = await whileHeld(moves, read)
        if case .url = source, case .fetched(_, let download) = read {
            guard held + download.count <= Self.heldDownloadBytes else { return (moves, facts, source, bytes) }
            held += download.count
        }
        return (moves, facts, read, bytes)
    }

    private static func facts(_ bytes: [UInt8]) -> MemoryEstimate.Source {
        (try? ImageCodec.info(bytes)).map { MemoryEstimate.Source($0, encodedBytes: bytes.count) }
            ?? unreadable(encodedBytes: bytes.count)
    }

    /// A source whose header says nothing (a video, a damaged file): no decoder allocates pixels for it, so its
    /// bytes alone (a method's constant covers the rest).
    static func unreadable(encodedBytes: Int) -> MemoryEstimate.Source {
        var facts = MemoryEstimate.Source(width: 1, height: 1, format: .png, encodedBytes: encodedBytes)
        facts.fromHeader = false
        return facts
    }
}
