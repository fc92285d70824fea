import Foundation

/// The memory this process may use, as its machine and its control groups say: the smaller of the machine's
/// memory (`/proc/meminfo`) and every memory limit on the way up from the process's cgroup (v2 `memory.max`, v1
/// `memory.limit_in_bytes`; both exist in the wild, and a host may mount both). Read once, at start.
public struct MemoryLimit: Sendable, Equatable, CustomStringConvertible {
    /// The limit in bytes.
    public var bytes: Int
    /// Where it was read, in words (`cgroup v1 limit at /sys/fs/cgroup/memory/…`, `the machine's memory`).
    public var origin: String

    public init(bytes: Int, origin: String) {
        self.bytes = bytes
        self.origin = origin
    }

    public var description: String { "\(MemorySize.describe(bytes)) (\(origin))" }

    /// The limit that applies to this process, read under `root` (tests give a folder laid out like `/`).
    public static func detect(root: String = "") -> MemoryLimit {
        let read = { (path: String) in readSmallFile(root + path) }
        let machine = read("/proc/meminfo").flatMap(machineBytes) .map { MemoryLimit(bytes: $0, origin: "the machine's memory") }
        let groups = cgroupLimits(mountinfo: read("/proc/self/mountinfo") ?? "", cgroup: read("/proc/self/cgroup") ?? "",
                                  read: read)
        let all = (machine.map { [$0] } ?? []) + groups
        return all.min { $0.bytes < $1.bytes } ?? MemoryLimit(bytes: 1 << 30, origin: "a guess of 1 GiB (no /proc/meminfo)")
    }

    /// `MemTotal` from /proc/meminfo, in bytes.
    static func machineBytes(_ meminfo: String) -> Int? {
        guard let line = meminfo.split(separator: "\n").first(where: { $0.hasPrefix("MemTotal:") }),
              let kB = Int(line.split(separator: " ").dropFirst().first ?? ""),
              !kB.multipliedReportingOverflow(by: 1024).overflow else { return nil }
        return kB * 1024
    }

    /// The memory limits of the process's cgroups and their ancestors, v1 and v2, as `mountinfo` and `cgroup` (the
    /// process's /proc/self files) place them; `read` reads a file. Unlimited levels give nothing.
    static func cgroupLimits(mountinfo: String, cgroup: String, read: (String) -> String?) -> [MemoryLimit] {
        var limits: [MemoryLimit] = []
        for line in cgroup.split(separator: "\n") {
            // hierarchy-ID:controller-list:cgroup-path
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            let controllers = fields[1].split(separator: ",")
            let isV2 = fields[0] == "0" && fields[1].isEmpty
            guard isV2 || controllers.contains("memory") else { continue }
            guard let mount = mountPoint(mountinfo, v2: isV2) else { continue }
            let file = isV2 ? "memory.max" : "memory.limit_in_bytes"
            let version = isV2 ? "v2" : "v1"
            for dir in directories(from: mount, cgroupPath: String(fields[2])) {
                guard let text = read("\(dir)/\(file)")?.trimmingCharacters(in: .whitespacesAndNewlines),
                      let bytes = Int(text), bytes > 0, bytes < 1 << 60 else { continue }  // "max", or v1's near-2^63
                limits.append(MemoryLimit(bytes: bytes, origin: "the cgroup \(version) limit in \(dir)/\(file)"))
            }
        }
        return limits
    }

    /// A cgroup mount: where it is mounted and which cgroup path its root is.
    struct Mount: Equatable {
        var point: String
        var root: String
    }

    /// The memory controller's v1 mount, or the v2 mount, from /proc/self/mountinfo.
    static func mountPoint(_ mountinfo: String, v2: Bool) -> Mount? {
        for line in mountinfo.split(separator: "\n") {
            // id parent major:minor root mount-point options [optional...] - fstype source super-options
            let halves = line.components(separatedBy: " - ")
            guard halves.count == 2 else { continue }
            let left = halves[0].split(separator: " "), right = halves[1].split(separator: " ")
            guard left.count >= 5, right.count >= 1 else { continue }
            let fstype = right[0], superOptions = right.count >= 3 ? right[2].split(separator: ",") : []
            let matches = v2 ? fstype == "cgroup2" : fstype == "cgroup" && superOptions.contains("memory")
            if matches { return Mount(point: unescape(left[4]), root: unescape(left[3])) }
        }
        return nil
    }

    /// The cgroup's folder and its ancestors' up to the mount point. A path outside the mount's root (a cgroup
    /// namespace shows `/` inside a container whose mount root is its own group) is the mount point itself.
    static func directories(from mount: Mount, cgroupPath: String) -> [String] {
        var relative = cgroupPath
        if mount.root != "/" {
            if relative == mount.root || relative.hasPrefix(mount.root + "/") {
                relative = String(relative.dropFirst(mount.root.count))
            } else {
                relative = "/"
            }
        }
        var parts = relative.split(separator: "/").map(String.init)
        var dirs: [String] = []
        while true {
            dirs.append(([mount.point] + parts).joined(separator: "/"))
            guard !parts.isEmpty else { break }
            parts.removeLast()
        }
        return dirs
    }

    /// mountinfo escapes spaces and a few others as octal (`\040`).
    private static func unescape(_ field: Substring) -> String {
        guard field.contains("\\") else { return String(field) }
        var out = "", chars = Array(field), i = 0
        while i < chars.count {
            if chars[i] == "\\", i + 3 < chars.count, let code = UInt8(String(chars[(i + 1)...(i + 3)]), radix: 8) {
                out.append(Character(UnicodeScalar(code)))
                i += 4
            } else {
                out.append(chars[i])
                i += 1
            }
        }
        return out
    }

    /// A procfs or sysfs file, read with `read(2)` (they report a size of 0); nil if absent or over 1 MiB.
    static func readSmallFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 8192)
        while true {
            if bytes.count >= 1 << 20 { return nil }
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { return nil }
            if n == 0 { break }
            bytes += chunk[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
