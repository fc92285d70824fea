import CSyscalls
import Synchronization

/// A malloc mmap threshold that holds while any job inside the scope runs, and another once the last has ended.
///
/// ``motion``: 256 KiB while clips are made into stickers, so a clip's frames, maps and a network pass's scratch are
/// mapped for themselves and handed back when freed. glibc's dynamic threshold rises to 32 MiB once a buffer that large
/// has been freed (a decoded 4K frame is), after which such buffers come from the heap and leave it fragmented: a 10 s
/// 4K clip peaks about 7 MiB higher. Not for the whole process: every large buffer then faults in afresh, which cost a
/// 100-photo batch 7-23% of its throughput (bench/README.md). When the last motion job ends, the thresholds are where
/// glibc's dynamic rule leaves them after a large buffer (32 MiB, and a trim threshold of twice that).
///
/// Process-wide, as malloc is: still jobs running beside a clip pay the page faults too.
final class MallocThresholdScope: Sendable {
    /// An mmap threshold and a trim threshold, in bytes.
    typealias Thresholds = (mmap: Int, trim: Int)

    static let motion = MallocThresholdScope(inside: (256 << 10, 128 << 10), after: (32 << 20, 64 << 20)) {
        cs_set_mmap_threshold($0.mmap, $0.trim)
    }

    private let inside: Thresholds
    private let after: Thresholds
    private let apply: @Sendable (Thresholds) -> Void
    /// Jobs inside the scope now; the thresholds change only when it goes from 0 to 1 and back, under this lock.
    private let running = Mutex(0)

    /// - Parameter apply: sets the thresholds (mallopt; a recorder in tests).
    init(inside: Thresholds, after: Thresholds, apply: @escaping @Sendable (Thresholds) -> Void) {
        self.inside = inside
        self.after = after
        self.apply = apply
    }

    /// Runs `body` with the scope's thresholds in force, whatever it returns or throws.
    func during<T>(_ body: () async throws -> T) async throws -> T {
        running.withLock { count in
            if count == 0 { apply(inside) }
            count += 1
        }
        defer {
            running.withLock { count in
                count -= 1
                if count == 0 { apply(after) }
            }
        }
        return try await body()
    }
}
