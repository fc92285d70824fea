#ifndef CK_GEMM_TILE_H
#define CK_GEMM_TILE_H

#include "ck_vector.h"

/// `rows x width` of C (`width` 8 or 16, one vector of type `V`; up to two packed row blocks of A, `block` floats
/// apart, element (i, p) of a block at `a[p * CK_GEMM_ROWS + i]`) from the whole depth: every element is `0 + a·b`
/// summed in the order of the depth, a product then a sum (two roundings, no fused multiply-add), whichever path
/// computes it. `rows` is a constant at each call, so the accumulators stay in registers.
#define CK_GEMM_TILE(name, V, load, store)                                                                          \
    CK_INLINE void name(const int rows, long depth, const float *restrict a, long block, const float *restrict b,   \
                        long ldb, float *restrict c, long ldc, int accumulate) {                                    \
        V acc[2 * CK_GEMM_ROWS];                                                                                    \
        for (int i = 0; i < rows; i++) acc[i] = (V){0};                                                             \
        for (long p = 0; p < depth; p++) {                                                                          \
            const V bv = load(b + p * ldb);                                                                         \
            for (int i = 0; i < rows; i++) {                                                                        \
                acc[i] = acc[i] + a[i / CK_GEMM_ROWS * block + p * CK_GEMM_ROWS + i % CK_GEMM_ROWS] * bv;           \
            }                                                                                                       \
        }                                                                                                           \
        for (int i = 0; i < rows; i++) {                                                                            \
            float *out = c + i * ldc;                                                                               \
            store(out, accumulate ? load(out) + acc[i] : acc[i]);                                                   \
        }                                                                                                           \
    }
CK_GEMM_TILE(gemm_tile8, v8, load8, store8)
CK_GEMM_TILE(gemm_tile16, v16, load16, store16)

/// A tile of up to `CK_GEMM_ROWS` rows (one packed block), with the row count a constant in each call.
#define CK_GEMM_ROWS_SWITCH(tile)                                                                                   \
    switch (rows) {                                                                                                 \
    case 6: tile(6, depth, a, 0, b, ldb, c, ldc, accumulate); break;                                                \
    case 5: tile(5, depth, a, 0, b, ldb, c, ldc, accumulate); break;                                                \
    case 4: tile(4, depth, a, 0, b, ldb, c, ldc, accumulate); break;                                                \
    case 3: tile(3, depth, a, 0, b, ldb, c, ldc, accumulate); break;                                                \
    case 2: tile(2, depth, a, 0, b, ldb, c, ldc, accumulate); break;                                                \
    default: tile(1, depth, a, 0, b, ldb, c, ldc, accumulate); break;                                               \
    }

/// A block of up to `CK_GEMM_ROWS` rows by a strip of 16 columns (`wide`) or 8.
CK_INLINE void gemm_strip(int rows, int wide, long depth, const float *a, const float *b, long ldb, float *c, long ldc,
                          int accumulate) {
    if (wide) {
        CK_GEMM_ROWS_SWITCH(gemm_tile16)
    } else {
        CK_GEMM_ROWS_SWITCH(gemm_tile8)
    }
}

/// Every row block of a packed A (`m` rows, `block` floats apart) by one strip of B; at `level` ``CK_AVX512`` two
/// blocks at a time. The same floats either way.
CK_INLINE void gemm_panel(const int level, long m, int wide, long depth, const float *a, long block, const float *b,
                          long ldb, float *c, long ldc, int accumulate) {
    long i = 0;
    // Two blocks (12 rows) at a time where twelve vectors of 16 fit in registers: each row of B then serves twelve
    // products (on Zen 4 the products run as fast as OpenBLAS's; six rows reached 0.8x). AVX2 would spill half.
    if (level == CK_AVX512 && wide) {
        for (; i + 2 * CK_GEMM_ROWS <= m; i += 2 * CK_GEMM_ROWS) {
            gemm_tile16(2 * CK_GEMM_ROWS, depth, a + i / CK_GEMM_ROWS * block, block, b, ldb, c + i * ldc, ldc,
                        accumulate);
        }
    }
    for (; i < m; i += CK_GEMM_ROWS) {
        const long rows = m - i < CK_GEMM_ROWS ? m - i : CK_GEMM_ROWS;
        gemm_strip((int)rows, wide, depth, a + i / CK_GEMM_ROWS * block, b, ldb, c + i * ldc, ldc, accumulate);
    }
}

#endif
