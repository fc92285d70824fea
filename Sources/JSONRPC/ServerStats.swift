import Foundation
import JSONRPCTransport

import Glibc

/// Monotonic counters for the stats method. Kept by the read loop and the registry, on the main actor.
@MainActor
public final class ServerStats {
    /// Messages received (requests, notifications, invalid lines).
    public internal(set) var received = 0
    public internal(set) var completed = 0
    public internal(set) var failed = 0
    public internal(set) var cancelled = 0
    nonisolated let startedAt = ContinuousClock.now

    nonisolated init() {}

    public nonisolated var uptimeSeconds: Double {
        (ContinuousClock.now - startedAt).inSeconds
    }

    /// The process's peak resident set size in bytes: the kernel's high-water mark of this address space
    /// (`VmHWM` in /proc/self/status). Not getrusage's `ru_maxrss`, which Linux carries across `execve`: a
    /// worker spawned by a 700 MB client reported a 713 MiB peak before it had done anything.
    public nonisolated static var peakRSSBytes: Int {
        if let kB = statusKiB("VmHWM") { return kB * 1024 }
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Int(usage.ru_maxrss) * 1024
    }

    /// A field of /proc/self/status in KiB (`VmHWM`, `VmRSS`), read with `read(2)`: procfs files report a size of 0,
    /// which Foundation's whole-file readers take at its word.
    public nonisolated static func statusKiB(_ field: String) -> Int? {
        let fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 1 << 16 {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        let line = String(decoding: bytes, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix(field + ":") }
        return line.flatMap { Int($0.dropFirst(field.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "") }
    }
}
