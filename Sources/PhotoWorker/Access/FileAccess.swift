import Compute
import CSyscalls
import Foundation
import Imaging

import Glibc

/// `O_PATH`: glibc declares it only under `_GNU_SOURCE`, so the C shim exports it.
private let O_PATH = cs_o_path

/// Opens, creates and replaces files as an ``AccessPolicy`` allows, race-free.
///
/// Confined paths are never checked and then used: the folder the policy allows is opened, and the
/// rest of the path is opened relative to it with `openat2(RESOLVE_BENEATH)`, so the kernel refuses
/// `..`, absolute symbolic links and links leading out at the moment of use (a link swapped in
/// after any earlier look changes nothing). Where the kernel has no `openat2`, the path is walked
/// one component at a time with `O_NOFOLLOW`: stricter (no symbolic link at all), never looser.
/// Writes go to a temporary file in the opened folder and are renamed into place relative to it.
public struct FileAccess: Sendable {
    public let policy: AccessPolicy

    public init(policy: AccessPolicy) {
        self.policy = policy
    }

    /// Access as a script's session has it by default: any path, outputs replace images only.
    public static let unrestricted = FileAccess(policy: .unrestricted)

    /// Opens a file for reading (`O_RDONLY | O_NONBLOCK`). The caller closes the descriptor.
    public func openForReading(_ path: String) throws -> Int32 {
        do {
            return try Self.open(path, in: policy.read, flags: O_RDONLY | O_NONBLOCK)
        } catch let failure as Failure {
            throw failure.error(path: path, reading: true)
        }
    }

    /// Checks an output folder exists (creating it and its parents when asked) inside the write scope.
    public func prepareDirectory(_ path: String, create: Bool) throws {
        do {
            let fd = try Self.open(path, in: policy.write, flags: O_PATH | O_DIRECTORY)
            close(fd)
            return
        } catch let failure as Failure {
            switch failure {
            case .system(ENOENT) where create: break
            case .system(ENOTDIR): throw WorkerError.outputFailed(path: path, reason: "not a directory")
            case .system(ENOENT): throw WorkerError.outputFailed(path: path, reason: "the folder does not exist")
            default: throw failure.error(path: path, reading: false)
            }
        }
        do {
            let fd = try Self.createDirectories(path, in: policy.write)
            close(fd)
        } catch let failure as Failure {
            if case .system(let e) = failure {
                throw WorkerError.outputFailed(path: path, reason: "cannot create the folder: \(String(cString: strerror(e)))")
            }
            throw failure.error(path: path, reading: false)
        }
    }

    /// Writes `bytes` to `path` through a temporary file in the same folder and a rename.
    ///
    /// An existing file is replaced only as ``AccessPolicy/replace`` allows (or with `overwrite`);
    /// directories, symbolic links and special files never are. The rename replaces the name, not
    /// the file it named, so a hard link to a file elsewhere is unlinked, never written through.
    /// - Important: It blocks (a write, a rename): call it on the blocking pool or from a compute job's body,
    ///   never on the cooperative pool.
    /// - Parameters:
    ///   - overwrite: the request's `"overwrite": true`.
    ///   - loop: the piece the write runs in, whose cancellation stops it before the rename (nothing is left at
    ///     `path`). On the blocking pool, the loop `BlockingPool.run(polling:)` hands its body (the calling task's
    ///     cancellation, raised into the pool's thread); in a task (tests) ``InTurnLoop``.
    public func writeAtomically(_ bytes: [UInt8], to path: String, overwrite: Bool = false,
                                on loop: some ParallelLoop) throws {
        let (dir, name) = try openFolder(of: path)
        defer { close(dir) }
        let existed = try checkReplaceable(name, in: dir, path: path, overwrite: overwrite)
        let temp = ".\(name).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = openat(dir, temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw WorkerError.outputFailed(path: path, reason: String(cString: strerror(errno)))
        }
        var renamed = false
        defer {
            if !renamed { unlinkat(dir, temp, 0) }
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
        try loop.checkCancellation()
        // A new name must still be free: a file that appeared meanwhile was not checked.
        let result = existed ? (renameat(dir, temp, dir, name) == 0 ? 0 : -errno)
                             : cs_renameat_noreplace(dir, temp, dir, name)
        if result == -EEXIST {
            throw WorkerError.outputFailed(path: path, reason: "a file appeared at the path while the output was written; it was left alone",
                                           rule: "exists")
        }
        guard result == 0 else {
            throw WorkerError.outputFailed(path: path, reason: String(cString: strerror(-result)))
        }
        renamed = true
    }

    /// Checks, writing nothing, that ``writeAtomically(_:to:overwrite:on:)`` could write `path` now: the path names a
    /// file, its folder exists inside what the session may write, and what the path holds (if anything) may be
    /// replaced. The same checks, in the same words, as the write makes (which makes them again: the folder may go
    /// meanwhile); run before a job's work so that an output it could never write is refused first.
    public func checkWritable(_ path: String, overwrite: Bool = false) throws {
        let (dir, name) = try openFolder(of: path)
        defer { close(dir) }
        _ = try checkReplaceable(name, in: dir, path: path, overwrite: overwrite)
    }

    /// The folder that holds `path`, opened (`O_PATH`) within the write scope, and the file's name in it.
    private func openFolder(of path: String) throws -> (dir: Int32, name: String) {
        let name = (path as NSString).lastPathComponent
        guard !path.hasSuffix("/"), !name.isEmpty, name != ".", name != ".." else {
            throw WorkerError.outputFailed(path: path, reason: "the path names no file")
        }
        let parent = (path as NSString).deletingLastPathComponent
        do {
            return (try Self.open(parent.isEmpty ? "." : parent, in: policy.write, flags: O_PATH | O_DIRECTORY), name)
        } catch let failure as Failure {
            switch failure {
            case .system(ENOENT): throw WorkerError.outputFailed(path: path, reason: "the folder \(parent) does not exist")
            case .system(ENOTDIR): throw WorkerError.outputFailed(path: path, reason: "\(parent) is not a folder")
            default: throw failure.error(path: path, reading: false)
            }
        }
    }

    /// Whether `name` exists in `dir`; throws when it exists and must not be replaced.
    private func checkReplaceable(_ name: String, in dir: Int32, path: String, overwrite: Bool) throws -> Bool {
        var st = stat()
        guard fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { return false }
        switch st.st_mode & S_IFMT {
        case S_IFREG:
            if overwrite { return true }
            if policy.replace == .never {
                throw WorkerError.outputFailed(path: path, reason:
                    "the path holds a file and this session replaces files only with \"overwrite\": true", rule: "exists")
            }
            if st.st_size > 0 && !Self.holdsImage(name, in: dir) {
                throw WorkerError.outputFailed(path: path, reason:
                    "the path holds a file that is not an image; pass \"overwrite\": true to replace it", rule: "not-an-image")
            }
            return true
        case S_IFDIR: throw WorkerError.outputFailed(path: path, reason: "the path is a directory", rule: "not-a-file")
        case S_IFLNK: throw WorkerError.outputFailed(path: path, reason: "the path is a symbolic link", rule: "not-a-file")
        default: throw WorkerError.outputFailed(path: path, reason: "the path exists and is not a regular file", rule: "not-a-file")
        }
    }

    /// Whether the file starts like an image the worker reads (``ImageCodec/sniff(_:)`` on its first bytes).
    static func holdsImage(_ name: String, in dir: Int32) -> Bool {
        let fd = openat(dir, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: 64)
        let n = head.withUnsafeMutableBytes { read(fd, $0.baseAddress!, 64) }
        guard n > 0 else { return false }
        return ImageCodec.sniff(Array(head.prefix(n))) != nil
    }

    // MARK: - Resolution

    /// Why a path could not be opened, before it is named in a ``WorkerError``.
    enum Failure: Error, Equatable {
        /// Not inside any allowed folder, even with the parent's symbolic links resolved.
        case outside
        /// The kernel refused: `..`, an absolute symbolic link, or a link leading out.
        case escapes
        /// A symbolic link where the fallback walk follows none.
        case symlink
        case system(Int32)

        func error(path: String, reading: Bool) -> WorkerError {
            switch self {
            case .outside:
                return .accessDenied(path: path, rule: "outside-allowed-directories",
                                     reason: "the path is not inside a folder this session may \(reading ? "read" : "write")")
            case .escapes:
                return .accessDenied(path: path, rule: "escapes-allowed-directory",
                                     reason: "the path leaves the allowed folder (\"..\" or a symbolic link leading out)")
            case .symlink:
                return .accessDenied(path: path, rule: "symlink-refused",
                                     reason: "symbolic links are not followed in confined paths on this kernel (no openat2)")
            case .system(let e):
                let text = String(cString: strerror(e))
                return reading ? .sourceUnavailable(source: path, reason: text) : .outputFailed(path: path, reason: text)
            }
        }
    }

    /// Opens `path` with `flags` (plus `O_CLOEXEC`) if `scope` allows where it resolves.
    static func open(_ path: String, in scope: AccessPolicy.Scope, flags: Int32, useOpenat2: Bool = true) throws -> Int32 {
        guard case .within(let roots) = scope else {
            let fd = Glibc.open(path, flags | O_CLOEXEC)
            guard fd >= 0 else { throw Failure.system(errno) }
            return fd
        }
        let full = absolute(path)
        guard let (root, relative) = locate(full, in: roots) else { throw Failure.outside }
        do {
            return try openBeneath(root, relative, flags: flags, useOpenat2: useOpenat2)
        } catch Failure.escapes {
            // An absolute symbolic link, or one through a folder outside, may still end inside an
            // allowed folder: try once more with every link resolved. The open is again beneath
            // the folder, so a link changed meanwhile can only make it fail.
            guard let real = realpath(full, nil) else { throw Failure.escapes }
            defer { free(real) }
            guard let (root, relative) = locate(String(cString: real), in: roots),
                  let fd = try? openBeneath(root, relative, flags: flags, useOpenat2: useOpenat2) else {
                throw Failure.escapes
            }
            return fd
        }
    }

    private static func openBeneath(_ root: String, _ relative: String, flags: Int32, useOpenat2: Bool) throws -> Int32 {
        let rootFD = Glibc.open(root, O_PATH | O_DIRECTORY | O_CLOEXEC)
        guard rootFD >= 0 else { throw Failure.system(errno) }
        defer { close(rootFD) }
        return try openBeneath(rootFD, relative, flags: flags, useOpenat2: useOpenat2)
    }

    /// Creates the folder `path` and its missing parents inside `scope`; returns it opened (`O_PATH`).
    static func createDirectories(_ path: String, in scope: AccessPolicy.Scope) throws -> Int32 {
        guard case .within(let roots) = scope else {
            // mkdir -p, keeping the system's reason for a failure.
            var prefix = path.hasPrefix("/") ? "" : "."
            for component in path.split(separator: "/") {
                prefix += "/" + component
                if mkdir(prefix, 0o755) != 0 && errno != EEXIST { throw Failure.system(errno) }
            }
            return try open(path, in: scope, flags: O_PATH | O_DIRECTORY)
        }
        guard let (root, relative) = locate(absolute(path), in: roots) else { throw Failure.outside }
        var current = Glibc.open(root, O_PATH | O_DIRECTORY | O_CLOEXEC)
        guard current >= 0 else { throw Failure.system(errno) }
        for component in relative.split(separator: "/") where component != "." {
            let name = String(component)
            let parent = current
            defer { close(parent) }
            guard name != ".." else { throw Failure.escapes }
            if mkdirat(parent, name, 0o755) != 0 && errno != EEXIST { throw Failure.system(errno) }
            current = try openBeneath(parent, name, flags: O_PATH | O_DIRECTORY, useOpenat2: true)
        }
        return current
    }

    /// The allowed folder that holds `path` and the rest of the path relative to it: by the path as
    /// written, else with its parent's symbolic links resolved (so `/tmp/link/x.png`, with the link
    /// pointing into an allowed folder, is found). Either way the open that follows is what decides.
    static func locate(_ path: String, in roots: [String]) -> (root: String, relative: String)? {
        func match(_ p: String) -> (String, String)? {
            for root in roots {
                if p == root { return (root, ".") }
                let prefix = root == "/" ? "/" : root + "/"
                if p.hasPrefix(prefix) {
                    let rest = String(p.dropFirst(prefix.count))
                    return (root, rest.isEmpty ? "." : rest)
                }
            }
            return nil
        }
        if let found = match(path) { return found }
        let parent = (path as NSString).deletingLastPathComponent
        guard let real = realpath(parent, nil) else { return nil }
        defer { free(real) }
        let resolved = String(cString: real)
        return match(resolved == "/" ? "/" + (path as NSString).lastPathComponent
                                     : resolved + "/" + (path as NSString).lastPathComponent)
    }

    /// `path` made absolute against the working directory (not normalised: the kernel resolves it).
    static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        return FileManager.default.currentDirectoryPath + "/" + path
    }

    /// Opens `relative` beneath the folder `dir`.
    static func openBeneath(_ dir: Int32, _ relative: String, flags: Int32, useOpenat2: Bool) throws -> Int32 {
        if useOpenat2 {
            let fd = cs_openat2_beneath(dir, relative, flags | O_CLOEXEC, 0)
            if fd >= 0 { return fd }
            switch -fd {
            case ENOSYS, EPERM:
                break  // no openat2 here (or a seccomp filter refusing it): walk instead
            case EXDEV: throw Failure.escapes
            default: throw Failure.system(-fd)
            }
        }
        // One component at a time, never following a symbolic link.
        let parts = relative.split(separator: "/").filter { $0 != "." }
        var current = dup(dir)
        guard current >= 0 else { throw Failure.system(errno) }
        if parts.isEmpty {
            defer { close(current) }
            let fd = openat(current, ".", flags | O_CLOEXEC)
            guard fd >= 0 else { throw Failure.system(errno) }
            return fd
        }
        for (i, part) in parts.enumerated() {
            let parent = current
            defer { close(parent) }
            guard part != ".." else { throw Failure.escapes }
            let last = i == parts.count - 1
            let fd = openat(parent, String(part), (last ? flags : O_PATH | O_DIRECTORY) | O_NOFOLLOW | O_CLOEXEC)
            if fd < 0 {
                let e = errno
                var st = stat()
                if (e == ELOOP || e == ENOTDIR) && fstatat(parent, String(part), &st, AT_SYMLINK_NOFOLLOW) == 0
                    && (st.st_mode & S_IFMT) == S_IFLNK {
                    throw Failure.symlink
                }
                throw Failure.system(e)
            }
            if last { return fd }
            current = fd
        }
        fatalError("unreachable: the last component returns")
    }
}
