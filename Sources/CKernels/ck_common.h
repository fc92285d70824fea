#ifndef CK_COMMON_H
#define CK_COMMON_H

#include "ck_kernels.h"

/// Helpers are inlined into each variant, so they are compiled for its instruction set too.
#define CK_INLINE static inline __attribute__((always_inline))

/// `a` moved towards `b` by `w`, in the order the Swift code it replaced computed it (`a + (b - a) * w`), which every
/// bilinear kernel keeps to give the same floats.
CK_INLINE float ck_lerp(float a, float b, float w) { return a + (b - a) * w; }

/// Defines `void name params` as three copies of `name##_body` (always inlined), compiled for AVX-512
/// (x86-64-v4), AVX2 (x86-64-v3) and baseline x86-64, and calls the one for the level in use.
#define CK_DISPATCH(name, params, args) CK_DISPATCH_CALLS(name, params, args, args, args, args)

/// ``CK_DISPATCH`` for a body whose first argument is its level (a constant in each copy), for a kernel whose shape,
/// not its arithmetic, depends on how many registers the level has.
#define CK_DISPATCH_LEVEL(name, params, args)                                                                      \
    CK_DISPATCH_CALLS(name, params, (CK_AVX512, CK_ARGS args), (CK_AVX2, CK_ARGS args), (CK_BASELINE, CK_ARGS args), \
                      args)

#define CK_ARGS(...) __VA_ARGS__

#define CK_DISPATCH_CALLS(name, params, avx512, avx2, baseline, args)                                              \
    __attribute__((target("arch=x86-64-v4"))) static void name##_avx512 params { name##_body avx512; }             \
    __attribute__((target("arch=x86-64-v3"))) static void name##_avx2 params { name##_body avx2; }                 \
    static void name##_baseline params { name##_body baseline; }                                                   \
    void name params {                                                                                             \
        switch (ck_current_level()) {                                                                              \
        case CK_AVX512: name##_avx512 args; break;                                                                 \
        case CK_AVX2: name##_avx2 args; break;                                                                     \
        default: name##_baseline args; break;                                                                      \
        }                                                                                                          \
    }

#endif
