#ifndef CK_GEMM_TILE_H
#define CK_GEMM_TILE_H

#include "ck_common.h"
#include <string.h>

// The vector helpers below are always inlined, so no vector crosses a call and the ABI note clang gives for
// passing eight floats by value without AVX does not apply.
#pragma clang diagnostic ignored "-Wpsabi"

/// Eight columns' values, one per lane: one ymm register with AVX2 or AVX-512, two xmm registers on the baseline.
typedef float v8 __attribute__((vector_size(32)));

CK_INLINE v8 load8(const float *p) {
    v8 x;
    memcpy(&x, p, sizeof x);
    return x;
}

CK_INLINE void store8(float *p, v8 x) { memcpy(p, &x, sizeof x); }

/// `rows x 8·vectors` of C from the whole depth and one packed row block of A (element (i, p) at `a[p * CK_GEMM_ROWS
/// + i]`): every element is `0 + a·b` summed in the order of the depth, a product then a sum (two roundings, no fused
/// multiply-add), whichever path computes it.
CK_INLINE void gemm_tile(const int rows, const int vectors, long depth, const float *restrict a,
                         const float *restrict b, long ldb, float *restrict c, long ldc, int accumulate) {
    v8 acc[CK_GEMM_ROWS][2];
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < vectors; j++) acc[i][j] = (v8){0};
    for (long p = 0; p < depth; p++) {
        v8 bv[2];
        for (int j = 0; j < vectors; j++) bv[j] = load8(b + p * ldb + 8 * j);
        for (int i = 0; i < rows; i++) {
            const float x = a[p * CK_GEMM_ROWS + i];
            const v8 av = {x, x, x, x, x, x, x, x};
            for (int j = 0; j < vectors; j++) acc[i][j] = acc[i][j] + av * bv[j];
        }
    }
    for (int i = 0; i < rows; i++) {
        for (int j = 0; j < vectors; j++) {
            float *out = c + i * ldc + 8 * j;
            store8(out, accumulate ? load8(out) + acc[i][j] : acc[i][j]);
        }
    }
}

/// A tile of up to `CK_GEMM_ROWS` rows, with the row count a constant in each call so the accumulators stay in
/// registers.
CK_INLINE void gemm_rows(int rows, const int vectors, long depth, const float *a, const float *b, long ldb, float *c,
                         long ldc, int accumulate) {
    switch (rows) {
    case 6: gemm_tile(6, vectors, depth, a, b, ldb, c, ldc, accumulate); break;
    case 5: gemm_tile(5, vectors, depth, a, b, ldb, c, ldc, accumulate); break;
    case 4: gemm_tile(4, vectors, depth, a, b, ldb, c, ldc, accumulate); break;
    case 3: gemm_tile(3, vectors, depth, a, b, ldb, c, ldc, accumulate); break;
    case 2: gemm_tile(2, vectors, depth, a, b, ldb, c, ldc, accumulate); break;
    default: gemm_tile(1, vectors, depth, a, b, ldb, c, ldc, accumulate); break;
    }
}

/// A block of up to `CK_GEMM_ROWS` rows by a strip of 16 columns (`wide`) or 8.
CK_INLINE void gemm_strip(int rows, int wide, long depth, const float *a, const float *b, long ldb, float *c, long ldc,
                          int accumulate) {
    if (wide) gemm_rows(rows, 2, depth, a, b, ldb, c, ldc, accumulate);
    else gemm_rows(rows, 1, depth, a, b, ldb, c, ldc, accumulate);
}

#endif
