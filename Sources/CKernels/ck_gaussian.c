#include "ck_common.h"

/// One output of the horizontal pass with its window clamped to the row.
CK_INLINE float blur_clamped(const float *restrict row, long width, long x, const float *restrict k, long r) {
    float s = 0;
    for (long d = -r; d <= r; d++) {
        const long i = x + d < 0 ? 0 : x + d >= width ? width - 1 : x + d;
        s += k[d + r] * row[i];
    }
    return s;
}

/// Rows `first ..< last` of a separable convolution's horizontal pass: `out[x] = 0 + Σ k[d + r] · src[clamp(x + d)]`
/// for d from -r to r, in that order (the Swift loop it replaced, so the same floats), the clamp only where a
/// window reaches past an edge.
CK_INLINE void ck_blur_rows_body(const float *restrict src, long width, long first, long last, const float *restrict k,
                                 long r, float *restrict out) {
    // The windows of columns inner0 ..< inner1 lie inside the row: those are summed tap by tap across the row (the
    // same order per output, so the same floats, with the vector lanes along x).
    const long inner0 = r < width ? r : width, inner1 = width - r > inner0 ? width - r : inner0;
    for (long y = first; y < last; y++) {
        const float *row = src + y * width;
        float *o = out + y * width;
        for (long x = inner0; x < inner1; x++) o[x] = 0;
        for (long d = -r; d <= r; d++) {
            const float weight = k[d + r];
            for (long x = inner0; x < inner1; x++) o[x] += weight * row[x + d];
        }
#pragma clang loop vectorize(disable)
        for (long x = 0; x < inner0; x++) o[x] = blur_clamped(row, width, x, k, r);
#pragma clang loop vectorize(disable)
        for (long x = inner1; x < width; x++) o[x] = blur_clamped(row, width, x, k, r);
    }
}
CK_DISPATCH(ck_blur_rows,
            (const float *src, long width, long first, long last, const float *k, long r, float *out),
            (src, width, first, last, k, r, out))

/// Rows `first ..< last` of the vertical pass: `out[y][x] = 0 + Σ k[d + r] · src[clamp(y + d)][x]`, d from -r to r.
CK_INLINE void ck_blur_columns_body(const float *restrict src, long width, long height, long first, long last,
                                    const float *restrict k, long r, float *restrict out) {
    for (long y = first; y < last; y++) {
        float *o = out + y * width;
        for (long x = 0; x < width; x++) o[x] = 0;
        for (long d = -r; d <= r; d++) {
            const long yy = y + d < 0 ? 0 : y + d >= height ? height - 1 : y + d;
            const float *row = src + yy * width, weight = k[d + r];
            for (long x = 0; x < width; x++) o[x] += weight * row[x];
        }
    }
}
CK_DISPATCH(ck_blur_columns,
            (const float *src, long width, long height, long first, long last, const float *k, long r, float *out),
            (src, width, height, first, last, k, r, out))
