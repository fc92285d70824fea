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
__attribute__((constructor)) static void cs_limit_arenas_at_start(void) {
    if (getenv("MALLOC_ARENA_MAX") != NULL) return;  // glibc has read it already, and it wins
    cpu_set_t cpus;
    const long cores = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) : sysconf(_SC_NPROCESSORS_ONLN);
    const int count = cores > 1 ? (int)((cores + 1) / 2) : 1;
    mallopt(M_ARENA_MAX, count);
}

void cs_set_mmap_threshold(size_t bytes, size_t trim_bytes) {
    mallopt(M_MMAP_THRESHOLD, (int)bytes);
    mallopt(M_TRIM_THRESHOLD, (int)trim_bytes);
}
