import Compute
import Foundation
import Imaging

import Glibc

/// Turns an `ImageSource` into a decoded image: reads the bytes (file, inline or URL), consults
/// the cache, decodes with the worker's limits, and maps every failure to a `WorkerError`.
public struct ImageLoader: Sendable {
    public let options: WorkerOptions
    public let cache: ImageCache
    /// File reads, hashes of inline data and URL transfers: blocking work off the cooperative pool.
    let blocking: BlockingPool
    let fetcher: URLFetcher

    public init(options: WorkerOptions, cache: ImageCache, blocking: BlockingPool,
                urlTestHooks: URLFetcher.TestHooks = URLFetcher.TestHooks()) {
        self.options = options
        self.cache = cache
        self.blocking = blocking
        fetcher = URLFetcher(maxBytes: options.maxFetchBytes, timeout: options.fetchTimeout, testHooks: urlTestHooks,
                             blocking: blocking)
    }

    /// Largest file read from disk; decoding limits apply on top.
    static let maxFileBytes = 1 << 31

    /// Reads the raw bytes of a source, as the request's `access` allows.
    public func bytes(of source: ImageSource, access: FileAccess) async throws -> [UInt8] {
        switch source {
        case .data(let d), .fetched(_, let d): return d
        case .url(let u): return try await fetcher.fetch(u, policy: access.policy.urls)
        case .path(let p):
            let fd = try access.openForReading(p)
            defer { close(fd) }
            return try await blocking.run { try Self.readFile(fd, path: p) }
        }
    }

    /// Decodes a source (through the cache).
    /// - Parameters:
    ///   - shrink: shrink-on-load hint: what the caller will make of the image (nil: full size).
    ///   - allowTruncated: accept what the codec recovers from truncated data.
    ///   - cached: keep the decode in the cache. Batches pass false: each photo is used once, and
    ///     caching them would only grow memory towards the cache budget.
    ///   - access: what the request may read (files and URLs).
    ///   - compute: the job the decode runs as.
    public func load(_ source: ImageSource, access: FileAccess, shrink: ShrinkOnLoad? = nil, allowTruncated: Bool = false,
                     cached: Bool = true, on compute: ComputeJob) async throws -> DecodedImage {
        let options = DecodeOptions(maxPixels: self.options.maxPixels, allowTruncated: allowTruncated, shrinkOnLoad: shrink)
        let variant = (shrink?.description ?? "full") + (allowTruncated ? "+t" : "")
        // A path is opened once, through the policy: its identity and its bytes come from the same file.
        var file: (fd: Int32, path: String)?
        if case .path(let p) = source { file = (try access.openForReading(p), p) }
        defer { if let file { close(file.fd) } }
        let fresh = {
            let data: [UInt8]
            if let file {
                data = try await blocking.run { try Self.readFile(file.fd, path: file.path) }
            } else {
                data = try await bytes(of: source, access: access)
            }
            return try await compute.run { loop in try Self.decode(data, options: options, source: source, on: loop) }
        }
        guard cached else { return try await fresh() }
        return try await cache.image(for: .init(identity: try await identity(of: source, file: file), variant: variant), load: fresh)
    }

    /// Header facts without a full decode.
    public func info(_ source: ImageSource, access: FileAccess) async throws -> (ImageInfo, bytes: Int) {
        let data = try await bytes(of: source, access: access)
        do {
            return (try ImageCodec.info(data), data.count)
        } catch {
            throw WorkerError(error, source: source.description)
        }
    }

    static func decode(_ data: [UInt8], options: DecodeOptions, source: ImageSource, on loop: some ParallelLoop) throws -> DecodedImage {
        do {
            return try ImageCodec.decode(data, options: options, on: loop)
        } catch let e as ImagingError {
            if e == .unknownFormat && isVideo(data.prefix(16)) {
                throw WorkerError.invalidImage(source: source.description, detail:
                    "a video clip (MP4/MOV, WebM/Matroska), not a still image: image.info describes it, image.animatedSticker cuts it (photos.process too, with \"animated\"); this method reads stills",
                    truncated: false)
            }
            throw WorkerError(e, source: source.description)
        }
    }

    /// The cache identity of a source. A file's is its device, inode, size and modification time, read
    /// from the opened file (so an edited or replaced file is decoded afresh).
    private func identity(of source: ImageSource, file: (fd: Int32, path: String)?) async throws -> String {
        if let file {
            var st = stat()
            guard fstat(file.fd, &st) == 0 else {
                throw WorkerError.sourceUnavailable(source: file.path, reason: String(cString: strerror(errno)))
            }
            return "file:\(st.st_dev):\(st.st_ino):\(st.st_size):\(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)"
        }
        switch source {
        case .url(let u), .fetched(let u, _): return "url:\(u.absoluteString)"
        case .data(let d): return "data:\(try await blocking.run { FNV1a.hash(d) }):\(d.count)"
        case .path(let p): return "path:\(p)"  // not reached: a path is always opened first
        }
    }

    /// Reads an opened regular file from its start. Directories, FIFOs and devices are refused up
    /// front, so `/dev/zero` or a FIFO nobody writes cannot hang or exhaust the worker.
    static func readFile(_ fd: Int32, path: String) throws -> [UInt8] {
        try readFile(fd, path: path, upTo: .max).bytes
    }

    /// Reads at most `limit` bytes of an opened regular file from its start (a header's prefix), with the file's
    /// size; refuses what ``readFile(_:path:)`` refuses.
    static func readFile(_ fd: Int32, path: String, upTo limit: Int) throws -> (bytes: [UInt8], size: Int) {
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            throw WorkerError.sourceUnavailable(source: path, reason: String(cString: strerror(errno)))
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            let kind = (st.st_mode & S_IFMT) == S_IFDIR ? "a directory" : "not a regular file"
            throw WorkerError.sourceUnavailable(source: path, reason: "the path is \(kind)")
        }
        let size = Int(st.st_size)
        guard size <= maxFileBytes else {
            throw WorkerError.sourceUnavailable(source: path, reason: "the file is larger than \(maxFileBytes) bytes")
        }
        guard size > 0 else {
            throw WorkerError.invalidImage(source: path, detail: "the file is empty", truncated: false)
        }
        // Read straight into uninitialised storage: zero-filling megabytes first only to overwrite
        // them was a measurable part of a thumbnail request.
        let wanted = min(size, max(0, limit))
        let bytes = try [UInt8](unsafeUninitializedCapacity: wanted) { buffer, initialized in
            var offset = 0
            while offset < wanted {
                let n = pread(fd, buffer.baseAddress! + offset, wanted - offset, off_t(offset))
                if n < 0 && errno == EINTR { continue }
                if n < 0 {
                    throw WorkerError.sourceUnavailable(source: path, reason: String(cString: strerror(errno)))
                }
                if n == 0 { break }  // the file shrank since fstat: keep what was read
                offset += n
                initialized = offset
            }
        }
        return (bytes, size)
    }
}

/// 64-bit FNV-1a: a fast, stable identity for inline data (not a security hash).
enum FNV1a {
    static func hash(_ bytes: [UInt8]) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes {
            h ^= UInt64(b)
            h = h &* 0x100_0000_01b3
        }
        return String(h, radix: 16)
    }
}
