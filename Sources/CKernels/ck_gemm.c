#include "ck_gemm_tile.h"

CK_INLINE void ck_gemm_body(const int level, long m, long n, long depth, const float *a, long block, const float *b,
                            long ldb, float *c, long ldc, int accumulate) {
    long j = 0;
    // Column strips of 16 (the last of 8 when 8 to 15 columns are left) outside, row blocks inside: a strip of B
    // (depth x 16) stays in L1 while every row block reads it; A, packed, is read as one sequential stream per strip.
    while (j + 8 <= n) {
        const int wide = j + 16 <= n;
        gemm_panel(level, m, wide, depth, a, block, b + j, ldb, c + j, ldc, accumulate);
        j += wide ? 16 : 8;
    }
    // The last columns one at a time, with the same operations in the same order as a vector lane.
    for (; j < n; j++) {
        for (long i = 0; i < m; i++) {
            const float *row = a + i / CK_GEMM_ROWS * block + i % CK_GEMM_ROWS;
            float sum = 0;
            for (long p = 0; p < depth; p++) sum = sum + row[p * CK_GEMM_ROWS] * b[p * ldb + j];
            c[i * ldc + j] = accumulate ? c[i * ldc + j] + sum : sum;
        }
    }
}
CK_DISPATCH_LEVEL(ck_gemm,
                  (long m, long n, long depth, const float *a, long block, const float *b, long ldb, float *c,
                   long ldc, int accumulate),
                  (m, n, depth, a, block, b, ldb, c, ldc, accumulate))

long ck_gemm_packed_count(long m, long depth) { return (m + CK_GEMM_ROWS - 1) / CK_GEMM_ROWS * CK_GEMM_ROWS * depth; }

void ck_gemm_pack(long m, long depth, const float *a, long lda, float *packed) {
    for (long i = 0; i < ck_gemm_packed_count(m, depth); i++) packed[i] = 0;
    for (long i = 0; i < m; i++) {
        for (long p = 0; p < depth; p++) {
            packed[i / CK_GEMM_ROWS * CK_GEMM_ROWS * depth + p * CK_GEMM_ROWS + i % CK_GEMM_ROWS] = a[i * lda + p];
        }
    }
}
