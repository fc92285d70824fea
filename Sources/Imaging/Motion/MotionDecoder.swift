import Compute
import Glibc
import Synchronization

/// Frames of a GIF, an animated WebP or a video (MP4/MOV with H.264 or HEVC, WebM/Matroska with VP8 or VP9),
/// pulled one at a time: only the frame being handed out (and, for GIF, the screen it is composited on) is in
/// memory, never the clip.
///
/// ```swift
/// let decoder = try MotionDecoder(bytes: data, limits: MotionLimits(maxFrames: 300))
/// while let frame = try decoder.next() { ... }
/// ```
///
/// Limits (``MotionLimits``) are checked at open from what the container declares, before any frame buffer is
/// allocated, and again for every frame handed out; a source over a limit is refused, never cut. GIFs are read as
/// browsers read them: delays under 20 ms play as 100 ms, disposal to background clears to transparent, a
/// truncated file gives the frames and rows that arrived (the last one marked `truncated`), and a file without
/// any colour map reads as a grey ramp.
///
/// `Sendable`: every use of the reader goes through the mutex, so a decoder can be handed to a compute thread;
/// frames come out in order whichever thread asks.
public final class MotionDecoder: Sendable {
    /// As displayed (rotation applied to the size).
    public let info: MotionInfo
    private let limits: MotionLimits
    private let window: (start: Double, duration: Double?)
    private let state: Mutex<State>

    private struct State: ~Copyable {
        /// Nil once closed (``close()``).
        var reader: (any MotionReader)?
        /// What the reader had warned of when it was closed.
        var closedWarnings: [String] = []
        var handedOut = 0
        var ended = false
    }

    /// Opens a source held in memory (the bytes are copied once, to an address the C reader can keep).
    /// - Parameters:
    ///   - start: seconds from the source's start; frames that end before it are skipped (a video seeks to the
    ///     key frame before it).
    ///   - duration: seconds from `start`; frames that start after it are not decoded.
    ///   - loop: whose cancellation stops the opening (``InTurnLoop``, the loop for code off the compute pool: the calling
    ///     task's).
    /// - Throws: `MotionError` (or `CancellationError`).
    public convenience init(bytes: [UInt8], limits: MotionLimits = MotionLimits(), start: Double = 0,
                            duration: Double? = nil, on loop: some ParallelLoop) throws {
        guard let container = MotionContainer(sniffing: bytes) else { throw MotionError.unknownFormat }
        let reader = try Self.open(container, bytes: MotionBytes(bytes), fd: -1, limits: limits, countFrames: false,
                                   on: loop)
        try self.init(reader: reader, limits: limits, start: start, duration: duration)
    }

    /// Opens a regular file through an already opened descriptor (the caller's confined access). A video is read
    /// from it as FFmpeg asks (through a duplicate of the descriptor, kept until the decoder is released); a GIF
    /// or WebP is read whole. The caller keeps and closes its own descriptor.
    /// - Throws: `MotionError` (or `CancellationError`).
    public convenience init(fileDescriptor fd: Int32, limits: MotionLimits = MotionLimits(), start: Double = 0,
                            duration: Double? = nil, on loop: some ParallelLoop) throws {
        let reader = try Self.open(fileDescriptor: fd, limits: limits, countFrames: false, on: loop)
        try self.init(reader: reader, limits: limits, start: start, duration: duration)
    }

    /// The facts of a source without decoding more than its first frame; a video container that does not declare
    /// its frame count has its packets counted. Limits apply as for decoding.
    public static func info(bytes: [UInt8], limits: MotionLimits = MotionLimits(),
                            on loop: some ParallelLoop) throws -> MotionInfo {
        guard let container = MotionContainer(sniffing: bytes) else { throw MotionError.unknownFormat }
        let reader = try open(container, bytes: MotionBytes(bytes), fd: -1, limits: limits, countFrames: true, on: loop)
        return try checked(reader.info, limits: limits, window: (0, nil))
    }

    /// ``info(bytes:limits:on:)`` for an opened file (the caller keeps its descriptor).
    public static func info(fileDescriptor fd: Int32, limits: MotionLimits = MotionLimits(),
                            on loop: some ParallelLoop) throws -> MotionInfo {
        let reader = try open(fileDescriptor: fd, limits: limits, countFrames: true, on: loop)
        return try checked(reader.info, limits: limits, window: (0, nil))
    }

    /// What a source held in memory is, whatever the limits, and which of them it is over (``MotionSurvey``): frames
    /// are counted up to ``MotionSurvey/countedFrames``, and a clip whose declared frame size is over the pixel limit
    /// is described from its container without decoding a frame.
    public static func survey(bytes: [UInt8], limits: MotionLimits = MotionLimits(),
                              on loop: some ParallelLoop) throws -> MotionSurvey {
        guard let container = MotionContainer(sniffing: bytes) else { throw MotionError.unknownFormat }
        let source = MotionBytes(bytes)
        return try survey(limits: limits) { counting in
            try open(container, bytes: source, fd: -1, limits: counting, countFrames: true, describesOversize: true,
                     on: loop)
        }
    }

    /// ``survey(bytes:limits:on:)`` for an opened file (the caller keeps its descriptor).
    public static func survey(fileDescriptor fd: Int32, limits: MotionLimits = MotionLimits(),
                              on loop: some ParallelLoop) throws -> MotionSurvey {
        try survey(limits: limits) { counting in
            try open(fileDescriptor: fd, limits: counting, countFrames: true, describesOversize: true, on: loop)
        }
    }

    private static func survey(limits: MotionLimits, _ open: (MotionLimits) throws -> any MotionReader) throws -> MotionSurvey {
        var counting = limits
        counting.maxFrames = max(limits.maxFrames, MotionSurvey.countedFrames)
        let stored: MotionInfo
        do {
            stored = try open(counting).info
        } catch let oversized as VideoMotionReader.Oversized {
            stored = oversized.info
        }
        return MotionSurvey(info: displayed(stored), exceeded: MotionSurvey.excesses(of: stored, limits: limits))
    }

    /// True when the first bytes are a GIF, WebP, MP4/MOV or WebM/Matroska (a HEIF/AVIF still is not).
    public static func recognizes(_ head: some Collection<UInt8>) -> Bool { MotionContainer(sniffing: head) != nil }

    private init(reader: sending any MotionReader, limits: MotionLimits, start: Double, duration: Double?) throws {
        window = (max(start, 0), duration)
        info = try Self.checked(reader.info, limits: limits, window: window)
        self.limits = limits
        if start > 0 { _ = try reader.seek(to: start) }
        state = Mutex(State(reader: reader))
    }

    /// The next frame, upright, or nil after the last (or past the window's end), decoded and turned on `loop`
    /// (whose cancellation stops it; ``InTurnLoop``, the loop for code off the compute pool, is the calling task's).
    /// - Throws: `MotionError` (a damaged frame, or a limit crossed: more frames or a later time than allowed)
    ///   or `CancellationError`.
    public func next(on loop: some ParallelLoop) throws -> MotionFrame? {
        try state.withLock { state throws -> MotionFrame? in
            while !state.ended, let reader = state.reader {
                guard var frame = try reader.next(on: loop) else {
                    state.ended = true
                    return nil
                }
                if frame.truncated { state.ended = true }
                if window.start > 0 && frame.time + frame.duration <= window.start + 1e-6 && !frame.truncated { continue }
                if let length = window.duration, frame.time >= window.start + length - 1e-6 {
                    state.ended = true
                    return nil
                }
                guard state.handedOut < limits.maxFrames else {
                    state.ended = true
                    throw MotionError.tooManyFrames(count: state.handedOut + 1, limit: limits.maxFrames)
                }
                // What the window holds counts, not the last frame's overhang past its end (the window passed the
                // limit at open; a frame straddling its end must not fail it).
                var end = frame.time + frame.duration - window.start
                if let length = window.duration { end = min(end, length) }
                guard end <= limits.maxDuration + 1e-3 else {
                    state.ended = true
                    throw MotionError.tooLong(seconds: end, limit: limits.maxDuration)
                }
                if let orientation = Orientation(rotation: info.rotation), orientation != .up {
                    frame.image = try orientation.apply(to: frame.image, on: loop)
                }
                frame.index = state.handedOut
                state.handedOut += 1
                return frame
            }
            return nil
        }
    }

    /// Asks for the frames still to come at `width` x `height` (as displayed), no larger than the source on either
    /// side: a video scales them while converting them from the stream's pixel format, which costs about what the
    /// conversion alone does (a 1080p frame read at 512 px skips the full-size RGBA copy and its resampling).
    /// Returns false when the reader cannot (GIF and WebP frames keep the source's size): the caller resizes.
    public func scaleFrames(toWidth width: Int, height: Int) throws -> Bool {
        let turned = info.rotation == 90 || info.rotation == 270
        return try state.withLock { state in
            try state.reader?.scaleFrames(toWidth: turned ? height : width, height: turned ? width : height) ?? false
        }
    }

    /// What the libraries warned of so far (FFmpeg's log at warning level and above, skipped packets), kept after
    /// ``close()``.
    public var warnings: [String] { state.withLock { $0.reader?.warnings ?? $0.closedWarnings } }

    /// Releases the reader now rather than with the decoder: a video's codec context and its reference frames (a 4K
    /// HEVC stream's are tens of megabytes), once no more frames are wanted while the decoder is still held (for its
    /// `info` and `warnings`). Later calls of ``next(on:)`` return nil.
    public func close() {
        state.withLock { state in
            state.ended = true
            state.closedWarnings = state.reader?.warnings ?? state.closedWarnings
            state.reader = nil
        }
    }

    // MARK: - Opening

    /// - Parameter describesOversize: see ``VideoMotionReader/open(bytes:fd:limits:countFrames:describesOversize:)``.
    private static func open(_ container: MotionContainer, bytes: MotionBytes?, fd: Int32, limits: MotionLimits,
                             countFrames: Bool, describesOversize: Bool = false,
                             on loop: some ParallelLoop) throws -> any MotionReader {
        switch container {
        case .gif: return try GIFMotionReader.open(bytes!, limits: limits)
        case .webp: return try WebPMotionReader.open(bytes!)
        case .video:
            return try VideoMotionReader.open(bytes: bytes, fd: fd, limits: limits, countFrames: countFrames,
                                              describesOversize: describesOversize, on: loop)
        }
    }

    /// Largest GIF or WebP file read whole.
    static let maxFileBytes = 1 << 31

    private static func open(fileDescriptor fd: Int32, limits: MotionLimits, countFrames: Bool,
                             describesOversize: Bool = false, on loop: some ParallelLoop) throws -> any MotionReader {
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            throw MotionError.invalid(container: "file", message: "not a regular file")
        }
        let size = Int(st.st_size)
        var head = [UInt8](repeating: 0, count: 16)
        let n = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 16, 0) }
        guard n > 0, let container = MotionContainer(sniffing: head.prefix(n)) else { throw MotionError.unknownFormat }
        if container == .video {
            let own = dup(fd)
            guard own >= 0 else { throw MotionError.invalid(container: "file", message: "cannot duplicate the descriptor") }
            return try open(.video, bytes: nil, fd: own, limits: limits, countFrames: countFrames,
                            describesOversize: describesOversize, on: loop)
        }
        guard size <= maxFileBytes else {
            throw MotionError.invalid(container: container == .gif ? "GIF" : "WebP", message: "the file is larger than \(maxFileBytes) bytes")
        }
        let bytes = try [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            var offset = 0
            while offset < size {
                let r = pread(fd, buffer.baseAddress! + offset, size - offset, off_t(offset))
                if r < 0 && errno == EINTR { continue }
                if r < 0 { throw MotionError.invalid(container: "file", message: String(cString: strerror(errno))) }
                if r == 0 { break }
                offset += r
                initialized = offset
            }
        }
        return try open(container, bytes: MotionBytes(bytes), fd: -1, limits: limits, countFrames: countFrames,
                        describesOversize: describesOversize, on: loop)
    }

    /// The reader's facts as displayed, refused when over a limit or when the window cannot be read.
    ///
    /// The duration limit is on what is decoded: the part of the source from `window.start`, `window.duration`
    /// seconds long or to the end the container declares, whichever comes first. A source that declares no
    /// duration is held to the limit frame by frame (``next(on:)``). Frames count against their limit for the whole
    /// source only (and always for a GIF, whose count is its walk's).
    private static func checked(_ stored: MotionInfo, limits: MotionLimits,
                                window: (start: Double, duration: Double?)) throws -> MotionInfo {
        guard pixelCount(stored.width, stored.height) <= limits.maxPixels else {
            throw MotionError.tooLarge(width: stored.width, height: stored.height, limit: limits.maxPixels)
        }
        let whole = window.start <= 0 && window.duration == nil
        if let count = stored.frameCount, count > limits.maxFrames, whole || stored.codec == "gif" {
            throw MotionError.tooManyFrames(count: count, limit: limits.maxFrames)
        }
        if let length = stored.duration {
            if window.start > 0 && window.start >= length - 1e-6 {
                throw MotionError.startPastEnd(start: window.start, length: length)
            }
            let rest = length - window.start
            let used = min(window.duration ?? .infinity, rest)
            if used > limits.maxDuration + 1e-3 {
                throw whole ? MotionError.tooLong(seconds: length, limit: limits.maxDuration)
                            : MotionError.windowTooLong(seconds: used, limit: limits.maxDuration)
            }
        }
        return displayed(stored)
    }

    /// Facts as stored, turned as displayed (a quarter turn swaps the sides).
    private static func displayed(_ stored: MotionInfo) -> MotionInfo {
        var info = stored
        if stored.rotation == 90 || stored.rotation == 270 { swap(&info.width, &info.height) }
        return info
    }
}

extension Orientation {
    /// The EXIF orientation that turns a picture `degrees` clockwise (0, 90, 180, 270).
    init?(rotation degrees: Int) {
        switch degrees {
        case 0: self = .up
        case 90: self = .right
        case 180: self = .down
        case 270: self = .left
        default: return nil
        }
    }
}
