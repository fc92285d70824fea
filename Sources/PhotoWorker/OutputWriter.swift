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
        try writeAtomically(encoded, to: path)
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
    public static func writeAtomically(_ bytes: [UInt8], to path: String) throws {
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
            case S_IFREG: break
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
}
