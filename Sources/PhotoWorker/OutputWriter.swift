import Foundation
import Imaging

#if canImport(Glibc)
import Glibc
#endif

/// Encodes an image and delivers it as its `OutputSpec` says.
///
/// Files are written atomically: the bytes go to a temporary file in the destination folder,
/// cancellation is checked, then the file is renamed into place. A failed or cancelled job
/// leaves nothing behind.
///
/// - Important: An output never destroys what the worker could not have made: an existing file is
///   replaced only if it is empty or already holds a PNG or JPEG image (by its first bytes), unless
///   the request says `"overwrite": true`. Directories and special files are never replaced.
public enum OutputWriter {
    /// Encodes and writes on the compute threads.
    public static func write(_ image: Image, to spec: OutputSpec, on compute: ComputePool) async throws -> OutputResult {
        try await compute.run { try write(image, to: spec) }
    }

    public static func write(_ image: Image, to spec: OutputSpec) throws -> OutputResult {
        let encoded = try encode(image, spec)
        var result = OutputResult(path: nil, data: nil, format: spec.format, width: image.width, height: image.height, bytes: encoded.count)
        if spec.inline {
            try Cancellation.check()
            result.data = Data(encoded).base64EncodedString()
            return result
        }
        // The decoder refuses a spec with neither; a spec built in code could still have none.
        guard let path = spec.path else {
            throw WorkerError.outputFailed(path: "", reason: "the output has neither a path nor \"inline\": true")
        }
        try writeAtomically(encoded, to: path, overwrite: spec.overwrite)
        result.path = path
        return result
    }

    public static func encode(_ image: Image, _ spec: OutputSpec) throws -> [UInt8] {
        do throws(ImagingError) {
            switch spec.format {
            case .png: return try ImageCodec.encodePNG(image, compressionLevel: spec.compressionLevel)
            case .jpeg: return try ImageCodec.encodeJPEG(image, quality: spec.quality, progressive: spec.progressive)
            }
        } catch {
            throw WorkerError.encodingFailed(detail: error.message)
        }
    }

    /// Writes `bytes` to `path` via a temporary file and `rename(2)`.
    /// - Parameter overwrite: replace an existing regular file whatever it holds.
    public static func writeAtomically(_ bytes: [UInt8], to path: String, overwrite: Bool = false) throws {
        let url = URL(fileURLWithPath: path)
        let dir = url.deletingLastPathComponent().path
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDir), isDir.boolValue else {
            throw WorkerError.outputFailed(path: path, reason: "the folder \(dir) does not exist")
        }
        // Only regular files are replaced: renaming over a device, FIFO or socket (say /dev/null
        // when running as root) would silently swap the special file for an image.
        var st = stat()
        if lstat(path, &st) == 0 {
            switch st.st_mode & S_IFMT {
            case S_IFREG:
                if !overwrite && st.st_size > 0 && !holdsImage(path) {
                    throw WorkerError.outputFailed(path: path, reason:
                        "the path holds a file that is not a PNG or JPEG image; pass \"overwrite\": true to replace it")
                }
            case S_IFDIR: throw WorkerError.outputFailed(path: path, reason: "the path is a directory")
            default: throw WorkerError.outputFailed(path: path, reason: "the path exists and is not a regular file")
            }
        }
        let temp = "\(dir)/.\(url.lastPathComponent).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw WorkerError.outputFailed(path: path, reason: String(cString: strerror(errno)))
        }
        var ok = false
        defer {
            if !ok { unlink(temp) }
        }
        let written = bytes.withUnsafeBytes { raw -> Bool in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n > 0 { offset += n; continue }
                if n < 0 && errno == EINTR { continue }
                return false
            }
            return true
        }
        let writeError = errno
        close(fd)
        guard written else {
            throw WorkerError.outputFailed(path: path, reason: String(cString: strerror(writeError)))
        }
        try Cancellation.check()
        guard rename(temp, path) == 0 else {
            throw WorkerError.outputFailed(path: path, reason: String(cString: strerror(errno)))
        }
        ok = true
    }

    /// Whether the file at `path` starts like a PNG (its 8-byte signature) or a JPEG (SOI and a marker).
    static func holdsImage(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: 8)
        let n = head.withUnsafeMutableBytes { read(fd, $0.baseAddress!, 8) }
        if n >= 8 && head == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] { return true }
        return n >= 3 && head[0] == 0xFF && head[1] == 0xD8 && head[2] == 0xFF
    }
}
