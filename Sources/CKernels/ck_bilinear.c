#include "ck_common.h"

CK_INLINE void ck_bilinear_row_body(const float *restrict row, const long *restrict first,
                                    const long *restrict second, const float *restrict weight, long count,
                                    float *restrict out) {
    for (long i = 0; i < count; i++) {
        const float a = row[first[i]];
        out[i] = a + (row[second[i]] - a) * weight[i];
    }
}
CK_DISPATCH(ck_bilinear_row,
            (const float *row, const long *first, const long *second, const float *weight, long count, float *out),
            (row, first, second, weight, count, out))

CK_INLINE void ck_bilinear_row_doubled_body(const float *restrict row, long source, float *restrict out) {
    out[0] = row[0] + (row[1] - row[0]) * 0.0f;
    for (long j = 0; j + 1 < source; j++) {
        const float a = row[j], b = row[j + 1];
        out[2 * j + 1] = a + (b - a) * 0.25f;
        out[2 * j + 2] = a + (b - a) * 0.75f;
    }
    const float last = row[source - 1];
    out[2 * source - 1] = last + (last - last) * 0.0f;
}
CK_DISPATCH(ck_bilinear_row_doubled, (const float *row, long source, float *out), (row, source, out))

CK_INLINE void ck_bilinear_blend_body(const float *restrict a, const float *restrict b, float weight, long count,
                                      float *restrict out) {
    for (long i = 0; i < count; i++) out[i] = a[i] + (b[i] - a[i]) * weight;
}
CK_DISPATCH(ck_bilinear_blend, (const float *a, const float *b, float weight, long count, float *out),
            (a, b, weight, count, out))
