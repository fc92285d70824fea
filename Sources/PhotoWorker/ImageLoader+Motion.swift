import Compute
import Imaging

import Glibc

/// Motion sources (GIF, animated WebP, MP4/MOV, WebM/Matroska) read through the same confined access as stills: a
/// path is opened through the request's policy and FFmpeg reads only that descriptor; a URL is fetched with the
/// worker's fetcher (its size limit and address policy); inline data is used as given.
extension ImageLoader {
    /// A pull decoder over a motion source, opened on a compute thread (a video's first frame is decoded at open).
    /// Pull frames with `next(on:)` on a compute thread too, handed its piece; each is a full RGBA canvas, upright.
    /// - Parameters:
    ///   - start: seconds from the source's start to begin at; `duration`: seconds to decode from there.
    /// - Throws: `WorkerError` (-32001/-32004/-32006 reaching the source, -32002/-32003 from the decoder).
    public func motionDecoder(_ source: ImageSource, access: FileAccess, start: Double = 0,
                              duration: Double? = nil, on compute: ComputeJob) async throws -> MotionDecoder {
        let limits = options.motionLimits
        return try await openMotion(source, access: access, on: compute) { input, loop in
            switch input {
            case .file(let fd): try MotionDecoder(fileDescriptor: fd, limits: limits, start: start, duration: duration, on: loop)
            case .bytes(let bytes): try MotionDecoder(bytes: bytes, limits: limits, start: start, duration: duration, on: loop)
            }
        }
    }

    /// A motion source's facts (a video whose container does not declare its frame count has its packets
    /// counted) and the size of its file.
    public func motionInfo(_ source: ImageSource, access: FileAccess, on compute: ComputeJob) async throws -> (MotionInfo, bytes: Int) {
        let limits = options.motionLimits
        var size = 0
        let info = try await openMotion(source, access: access, size: &size, on: compute) { input, loop in
            switch input {
            case .file(let fd): try MotionDecoder.info(fileDescriptor: fd, limits: limits, on: loop)
            case .bytes(let bytes): try MotionDecoder.info(bytes: bytes, limits: limits, on: loop)
            }
        }
        return (info, size)
    }

    /// A motion source's facts whatever the limits, with the limits it is over (``MotionSurvey``): what `image.info`
    /// reports.
    public func motionSurvey(_ source: ImageSource, access: FileAccess, on compute: ComputeJob) async throws -> MotionSurvey {
        let limits = options.motionLimits
        return try await openMotion(source, access: access, on: compute) { input, loop in
            switch input {
            case .file(let fd): try MotionDecoder.survey(fileDescriptor: fd, limits: limits, on: loop)
            case .bytes(let bytes): try MotionDecoder.survey(bytes: bytes, limits: limits, on: loop)
            }
        }
    }

    /// Whether `source` moves (a video, or a GIF or WebP of more than one frame), and the source to read it by from
    /// now on: a URL is fetched once and handed back as `.fetched`, so the job that reads it next does not fetch it
    /// again. Only what tells is read: a file's first bytes (and a GIF's or WebP's records, nothing decoded); no
    /// video is opened. False for a source that cannot be read or is not a motion format: reading it as a still says
    /// why. A damaged video is true: its cut says what is wrong with it.
    public func probeMotion(_ source: ImageSource, access: FileAccess, on compute: ComputeJob) async -> (moves: Bool, source: ImageSource) {
        let limits = options.motionLimits
        switch source {
        case .path(let p):
            guard let fd = try? access.openForReading(p) else { return (false, source) }
            defer { close(fd) }
            let head = Self.head(of: fd)
            guard MotionDecoder.recognizes(head) else { return (false, source) }
            if isVideo(head) { return (true, source) }
            let info = try? await compute.run { loop in try MotionDecoder.info(fileDescriptor: fd, limits: limits, on: loop) }
            return (info.map(Self.moves) ?? false, source)
        case .data(let bytes), .fetched(_, let bytes):
            return (await Self.moves(bytes, limits: limits, on: compute), source)
        case .url(let u):
            guard let bytes = try? await self.bytes(of: source, access: access) else { return (false, source) }
            return (await Self.moves(bytes, limits: limits, on: compute), .fetched(u, bytes))
        }
    }

    private static func moves(_ bytes: [UInt8], limits: MotionLimits, on compute: ComputeJob) async -> Bool {
        guard MotionDecoder.recognizes(bytes.prefix(16)) else { return false }
        if isVideo(bytes.prefix(16)) { return true }
        return (try? await compute.run { loop in try MotionDecoder.info(bytes: bytes, limits: limits, on: loop) }).map(moves) ?? false
    }

    private static func moves(_ info: MotionInfo) -> Bool { (info.frameCount ?? 2) > 1 }

    /// `file`: a descriptor `openMotion` owns and closes only after the compute job using it has returned.
    private enum MotionInput: Sendable {
        case file(Int32)
        case bytes([UInt8])
    }

    private func openMotion<T: Sendable>(_ source: ImageSource, access: FileAccess, on compute: ComputeJob,
                                         _ body: @escaping @Sendable (MotionInput, ComputePiece) throws -> T) async throws -> T {
        var size = 0
        return try await openMotion(source, access: access, size: &size, on: compute, body)
    }

    private func openMotion<T: Sendable>(_ source: ImageSource, access: FileAccess, size: inout Int,
                                         on compute: ComputeJob, _ body: @escaping @Sendable (MotionInput, ComputePiece) throws -> T) async throws -> T {
        let input: MotionInput
        var opened: Int32 = -1
        defer { if opened >= 0 { close(opened) } }
        switch source {
        case .path(let p):
            opened = try access.openForReading(p)
            size = try Self.regularFileSize(opened, path: p)
            input = .file(opened)
        case .data, .url, .fetched:
            let bytes = try await self.bytes(of: source, access: access)
            size = bytes.count
            input = .bytes(bytes)
        }
        do {
            return try await compute.run { loop in try body(input, loop) }
        } catch let error as MotionError {
            throw WorkerError(error, source: source.description)
        }
    }

    /// An opened file's first 16 bytes (fewer for a shorter file, none when it cannot be read): enough to tell a video
    /// container from a still format or an animation.
    private static func head(of fd: Int32) -> [UInt8] {
        var head = [UInt8](repeating: 0, count: 16)
        let n = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 16, 0) }
        return Array(head.prefix(max(0, n)))
    }

    /// The size of an opened regular file; directories, FIFOs and devices are refused as for stills.
    private static func regularFileSize(_ fd: Int32, path: String) throws -> Int {
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            throw WorkerError.sourceUnavailable(source: path, reason: String(cString: strerror(errno)))
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            let kind = (st.st_mode & S_IFMT) == S_IFDIR ? "a directory" : "not a regular file"
            throw WorkerError.sourceUnavailable(source: path, reason: "the path is \(kind)")
        }
        guard st.st_size > 0 else { throw WorkerError.invalidImage(source: path, detail: "the file is empty", truncated: false) }
        return Int(st.st_size)
    }

    /// What a source is, from its first bytes: a still format (GIF and WebP included, animated or not) is
    /// described by its header as before; a video container (MP4/MOV, WebM/Matroska) by its motion facts, whatever
    /// the limits (``motionSurvey(_:access:)``). A path is opened once and only a video's descriptor is handed to
    /// FFmpeg; a URL is fetched once.
    public func describe(_ source: ImageSource, access: FileAccess, on compute: ComputeJob) async throws -> SourceDescription {
        let limits = options.motionLimits
        let data: [UInt8]
        var opened: Int32 = -1
        defer { if opened >= 0 { close(opened) } }
        if case .path(let p) = source {
            opened = try access.openForReading(p)
            let size = try Self.regularFileSize(opened, path: p)
            if isVideo(Self.head(of: opened)) {
                let fd = opened
                do {
                    return .clip(try await compute.run { loop in try MotionDecoder.survey(fileDescriptor: fd, limits: limits, on: loop) },
                                 bytes: size)
                } catch let error as MotionError {
                    throw WorkerError(error, source: source.description)
                }
            }
            // A whole file: on the blocking pool, never the cooperative pool.
            let fd = opened
            data = try await blocking.run { try Self.readFile(fd, path: p) }
        } else {
            data = try await bytes(of: source, access: access)
        }
        do {
            if isVideo(data.prefix(16)) {
                return .clip(try await compute.run { loop in try MotionDecoder.survey(bytes: data, limits: limits, on: loop) },
                                 bytes: data.count)
            }
            return .still(try ImageCodec.info(data), bytes: data.count)
        } catch let error as MotionError {
            throw WorkerError(error, source: source.description)
        } catch let error as ImagingError {
            throw WorkerError(error, source: source.description)
        }
    }
}

/// A video container's first bytes (a GIF or WebP is a still format that may also move): such a source is read
/// only as a motion source.
func isVideo(_ head: some Collection<UInt8>) -> Bool {
    MotionDecoder.recognizes(head) && ImageCodec.sniff(Array(head)) == nil
}

/// What ``ImageLoader/describe(_:access:)`` found; `bytes` is the encoded source's size.
public enum SourceDescription: Sendable {
    case still(ImageInfo, bytes: Int)
    case clip(MotionSurvey, bytes: Int)
}
