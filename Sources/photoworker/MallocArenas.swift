import CSyscalls
import Foundation

/// One malloc arena per compute thread, set before the server starts its threads. glibc otherwise makes up to
/// eight per core, and each keeps the high-water mark of whatever ran on it: with the network's activations in
/// their own blocks, `photos.process` of 100 photos peaked at 431 MiB with glibc's default and 339 MiB with two
/// arenas, at the same speed (bench/README.md). `MALLOC_ARENA_MAX` in the environment still wins.
enum MallocArenas {
    static func limit(to jobs: Int) {
        guard ProcessInfo.processInfo.environment["MALLOC_ARENA_MAX"] == nil else { return }
        _ = cs_malloc_arena_limit(Int32(max(1, jobs)))
    }
}
