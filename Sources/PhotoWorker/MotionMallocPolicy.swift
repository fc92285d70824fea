import CSyscalls
import Synchronization

/// malloc's mmap threshold while clips are made into stickers: 256 KiB, so a clip's frames, maps and a network
/// pass's scratch are mapped for themselves and handed back when freed. glibc's dynamic threshold rises to 32 MiB once
/// a buffer that large has been freed (a decoded 4K frame is), after which such buffers come from the heap and leave
/// it fragmented: a 10 s 4K clip peaks about 7 MiB higher. Not for the whole process: every large buffer then faults in afresh, which cost a
/// 100-photo batch 7-23% of its throughput (bench/README.md). When the last motion job ends, the thresholds are where
/// glibc's dynamic rule leaves them after a large buffer (32 MiB, and a trim threshold of twice that).
///
/// Process-wide, as malloc is: still jobs running beside a clip pay the page faults too.
enum MotionMallocPolicy {
    /// Motion jobs running now.
    private static let running = Mutex(0)

    /// Runs a motion job's `body` under the small threshold.
    static func during<T>(_ body: () async throws -> T) async throws -> T {
        running.withLock { count in
            if count == 0 { cs_set_mmap_threshold(256 << 10, 128 << 10) }
            count += 1
        }
        defer {
            running.withLock { count in
                count -= 1
                if count == 0 { cs_set_mmap_threshold(32 << 20, 64 << 20) }
            }
        }
        return try await body()
    }
}
