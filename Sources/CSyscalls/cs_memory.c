#define _GNU_SOURCE
#include <malloc.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include "CSyscalls.h"

int cs_malloc_trim(void) {
    return malloc_trim(0);
}

/// One malloc arena per two cores (one on two), in any process that links this library (the worker, and the tests
/// that run its code in process). glibc otherwise makes up to eight per core, each keeping the high-water mark of
/// the threads that used it: `photos.process` of 100 photos peaked at 431 MiB with its default, 209-233 MiB with two
/// arenas and 203-207 with one, at the same speed (bench/README.md; the arenas hold large buffers, whose lock is
/// taken rarely). `MALLOC_ARENA_MAX` in the environment wins.
///
/// Runs before main, so before any thread the Swift runtime or Foundation starts: glibc gives each thread that
/// allocates a new arena until the limit, and a limit set later (it was, at the top of the command's `run`) leaves
/// the arenas made until then (one more than meant: found by counting the worker's arena heaps in /proc/pid/maps).
///
/// And a fixed mmap threshold of 256 KiB: buffers from there up (frames, maps, a pass's scratch) are mapped for
/// themselves and handed back when freed. glibc's default raises the threshold to the largest buffer freed so far
/// (up to 32 MiB), after which such buffers come from the heap and leave it fragmented: a 4K clip's animated sticker
/// peaked 5-10 MiB higher, a batch of 12 photos 14 MiB, at the same CPU time within the noise (bench/README.md).
/// `MALLOC_MMAP_THRESHOLD_` in the environment wins.
__attribute__((constructor)) static void cs_malloc_policy_at_start(void) {
    if (getenv("MALLOC_MMAP_THRESHOLD_") == NULL) mallopt(M_MMAP_THRESHOLD, 256 * 1024);
    if (getenv("MALLOC_ARENA_MAX") != NULL) return;  // glibc has read it already, and it wins
    cpu_set_t cpus;
    const long cores = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) : sysconf(_SC_NPROCESSORS_ONLN);
    const int count = cores > 1 ? (int)((cores + 1) / 2) : 1;
    mallopt(M_ARENA_MAX, count);
}
