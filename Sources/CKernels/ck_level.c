#include "ck_common.h"
#include <stdatomic.h>

/// -1 until the first kernel call or ``ck_use_level``. Atomic because tests switch it while other tests' passes
/// run; which level a concurrent call sees does not matter (every level computes the same floats).
static _Atomic int level = -1;

int ck_supported_level(void) {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("x86-64-v4")) return CK_AVX512;
    if (__builtin_cpu_supports("x86-64-v3")) return CK_AVX2;
    return CK_BASELINE;
}

int ck_use_level(int requested) {
    const int supported = ck_supported_level();
    const int chosen = requested < CK_BASELINE ? CK_BASELINE : requested > supported ? supported : requested;
    atomic_store_explicit(&level, chosen, memory_order_relaxed);
    return chosen;
}

int ck_current_level(void) {
    int current = atomic_load_explicit(&level, memory_order_relaxed);
    if (current < 0) {
        // Two threads may both get here; they store the same value.
        current = ck_supported_level();
        atomic_store_explicit(&level, current, memory_order_relaxed);
    }
    return current;
}
