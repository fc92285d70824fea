import Foundation
import Imaging
import JSONRPC
import JSONRPCTransport

import Glibc

/// A Live Photo: a still (HEIC/HEIF or JPEG) and its clip (MOV or MP4) with the same base name in the same folder, as
/// a phone writes them (`IMG_1234.HEIC` + `IMG_1234.MOV`). Methods take the clip as `motion` beside the still
/// `source`; a batch pairs a still path with its clip by these names (``LivePhotoPairing``).
///
/// - Important: names only say where to look. What a file is comes from its content, as for every source, and the
///   clip is opened through the same ``FileAccess`` (the session's policy) as the still.
enum LivePhoto {
    /// A Live Photo still's extensions, compared in any case.
    static let stillExtensions: Set<String> = ["heic", "heif", "jpg", "jpeg"]
    /// A Live Photo clip's extensions, compared in any case; a `.mov` is preferred to an `.mp4` of the same name.
    static let clipExtensions = ["mov", "mp4"]

    /// Whether `path` names a still a clip may belong to.
    static func isStill(_ path: String) -> Bool {
        stillExtensions.contains((path as NSString).pathExtension.lowercased())
    }

    /// Whether `path` names a clip a still may have.
    static func isClip(_ path: String) -> Bool {
        clipExtensions.contains((path as NSString).pathExtension.lowercased())
    }

    /// The folder (as written, "" for a bare name) and the base name a still and its clip share.
    static func key(_ path: String) -> (folder: String, stem: String) {
        let ns = path as NSString
        return (ns.deletingLastPathComponent, (ns.lastPathComponent as NSString).deletingPathExtension)
    }

    /// `name` in `folder`, written as the still's path was (relative stays relative).
    static func join(_ folder: String, _ name: String) -> String {
        folder.isEmpty ? name : folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    /// The clip beside the still at `path`: a file of the same base name with a clip's extension in its folder
    /// (`names`, the folder's files, when the caller listed it already), that the session may read and that is a
    /// regular file. Nil when there is none, or when the folder or the clip cannot be read: the still stays a still.
    static func clip(beside path: String, names given: [String]? = nil, access: FileAccess) -> String? {
        let (folder, stem) = key(path)
        guard let names = given ?? (try? access.fileNames(in: folder.isEmpty ? "." : folder)) else { return nil }
        for ext in clipExtensions {
            for name in names where name != (path as NSString).lastPathComponent {
                let n = name as NSString
                guard n.deletingPathExtension == stem, n.pathExtension.lowercased() == ext else { continue }
                let clip = join(folder, name)
                if readable(clip, access: access) { return clip }
            }
        }
        return nil
    }

    /// Whether the session may open `path` for reading and it is a regular file.
    static func readable(_ path: String, access: FileAccess) -> Bool {
        guard let fd = try? access.openForReading(path) else { return false }
        defer { close(fd) }
        var st = stat()
        return fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG
    }

    /// The still format `source` holds, from its first bytes, when it is one no clip reader takes (HEIF, JPEG, PNG,
    /// AVIF; a GIF or WebP is a motion source, animated or not). Nil otherwise, or when it cannot be read (a URL is
    /// not fetched for this: the clip reader says what is wrong with it).
    static func stillFormat(of source: ImageSource, access: FileAccess) -> ImageFormat? {
        let head: [UInt8]
        switch source {
        case .path(let p):
            guard let fd = try? access.openForReading(p) else { return nil }
            defer { close(fd) }
            var bytes = [UInt8](repeating: 0, count: 256)
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 256, 0) }
            head = Array(bytes.prefix(max(0, n)))
        case .data(let bytes), .fetched(_, let bytes):
            head = Array(bytes.prefix(256))
        case .url:
            return nil
        }
        guard let format = ImageCodec.sniff(head), format != .gif, format != .webp else { return nil }
        return format
    }

    /// -32602 at `path` for a still given where a clip is needed, saying how to pass its clip: the same-name clip
    /// beside it when there is one, else an example.
    static func stillIsNotAClip(_ source: ImageSource, format: ImageFormat, path: String, access: FileAccess) -> RPCError {
        var reason = "this is a still photo (\(format.rawValue.uppercased())), not a clip"
        if case .path(let p) = source, let clip = clip(beside: p, access: access) {
            reason += "; for a Live Photo, pass its clip as `motion`: \"motion\": {\"path\": \"\(clip)\"} (found beside it)"
        } else {
            reason += "; for a Live Photo, pass its clip as `motion`, e.g. \"motion\": {\"path\": \"IMG_1234.MOV\"}"
        }
        return RPCError.invalidParams(path: path, reason)
    }
}
