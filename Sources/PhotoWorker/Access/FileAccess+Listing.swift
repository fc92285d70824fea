import Glibc

extension FileAccess {
    /// The names of the regular files in the folder `path` (no `.`/`..`, no subfolders), opened as the read policy
    /// allows (the same confined open as a source's): what a Live Photo's clip is looked for in, beside its still.
    /// - Throws: `WorkerError` (-32001 when the folder cannot be read, -32006 outside the policy).
    public func fileNames(in path: String) throws -> [String] {
        let fd: Int32
        do {
            fd = try Self.open(path, in: policy.read, flags: O_RDONLY | O_DIRECTORY)
        } catch let failure as Failure {
            throw failure.error(path: path, reading: true)
        }
        // fdopendir owns the descriptor from here; closedir closes it.
        guard let dir = fdopendir(fd) else {
            close(fd)
            throw WorkerError.sourceUnavailable(source: path, reason: String(cString: strerror(errno)))
        }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            // DT_UNKNOWN (some filesystems say nothing): the open that reads the file decides.
            let type = entry.pointee.d_type
            guard name != ".", name != "..", type == UInt8(DT_REG) || type == UInt8(DT_UNKNOWN) else { continue }
            names.append(name)
        }
        return names.sorted()
    }
}
