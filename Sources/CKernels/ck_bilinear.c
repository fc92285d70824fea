#include "ck_common.h"

CK_INLINE void ck_bilinear_row_body(const float *restrict row, const long *restrict first,
                                    const long *restrict second, const float *restrict weight, long count,
                                    float *restrict out) {
    for (long i = 0; i < count; i++) {
        out[i] = ck_lerp(row[first[i]], row[second[i]], weight[i]);
    }
}
CK_DISPATCH(ck_bilinear_row,
            (const float *row, const long *first, const long *second, const float *weight, long count, float *out),
            (row, first, second, weight, count, out))

CK_INLINE void ck_bilinear_row_doubled_body(const float *restrict row, long source, float *restrict out) {
    out[0] = ck_lerp(row[0], row[1], 0.0f);
    for (long j = 0; j + 1 < source; j++) {
        const float a = row[j], b = row[j + 1];
        out[2 * j + 1] = ck_lerp(a, b, 0.25f);
        out[2 * j + 2] = ck_lerp(a, b, 0.75f);
    }
    const float last = row[source - 1];
    out[2 * source - 1] = ck_lerp(last, last, 0.0f);
}
CK_DISPATCH(ck_bilinear_row_doubled, (const float *row, long source, float *out), (row, source, out))

CK_INLINE void ck_bilinear_blend_body(const float *restrict a, const float *restrict b, float weight, long count,
                                      float *restrict out) {
    for (long i = 0; i < count; i++) out[i] = ck_lerp(a[i], b[i], weight);
}
CK_DISPATCH(ck_bilinear_blend, (const float *a, const float *b, float weight, long count, float *out),
            (a, b, weight, count, out))
