#ifndef CK_VECTOR_H
#define CK_VECTOR_H

#include "ck_common.h"
#include <string.h>

// The vector helpers below are always inlined, so no vector crosses a call and the ABI note clang gives for
// passing eight floats by value without AVX does not apply.
#pragma clang diagnostic ignored "-Wpsabi"

/// Eight columns' values, one per lane: one ymm register with AVX2 or AVX-512, two xmm registers on the baseline.
typedef float v8 __attribute__((vector_size(32)));
/// Sixteen columns' values: one zmm register at the AVX-512 level (where Zen 4 then issues half the instructions of
/// two ymm for the same FLOPs), two ymm with AVX2, four xmm on the baseline. Each lane's arithmetic is the same.
typedef float v16 __attribute__((vector_size(64)));

CK_INLINE v8 load8(const float *p) {
    v8 x;
    memcpy(&x, p, sizeof x);
    return x;
}

CK_INLINE void store8(float *p, v8 x) { memcpy(p, &x, sizeof x); }

CK_INLINE v16 load16(const float *p) {
    v16 x;
    memcpy(&x, p, sizeof x);
    return x;
}

CK_INLINE void store16(float *p, v16 x) { memcpy(p, &x, sizeof x); }

#endif
