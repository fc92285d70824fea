#include "ck_common.h"

CK_INLINE void ck_guided_fit_body(long count, const float *const *mean, const float *const *corr, float epsilon,
                                  float *const *a, float *b) {
    // The coefficients may be written over the means: each pixel's inputs are all read before its outputs are written.
    const float *m0s = mean[0], *m1s = mean[1], *m2s = mean[2], *mps = mean[3];
    const float *rr = corr[0], *rg = corr[1], *rb = corr[2], *gg = corr[3], *gb = corr[4], *bb = corr[5];
    const float *rp = corr[6], *gp = corr[7], *bp = corr[8];
    float *a0s = a[0], *a1s = a[1], *a2s = a[2];
    for (long i = 0; i < count; i++) {
        const float m0 = m0s[i], m1 = m1s[i], m2 = m2s[i], mp = mps[i];
        // Σ + εU, in double: near-flat windows make Σ almost singular.
        const double s00 = (double)(rr[i] - m0 * m0 + epsilon), s01 = (double)(rg[i] - m0 * m1);
        const double s02 = (double)(rb[i] - m0 * m2), s11 = (double)(gg[i] - m1 * m1 + epsilon);
        const double s12 = (double)(gb[i] - m1 * m2), s22 = (double)(bb[i] - m2 * m2 + epsilon);
        const double v0 = (double)(rp[i] - m0 * mp), v1 = (double)(gp[i] - m1 * mp), v2 = (double)(bp[i] - m2 * mp);
        // Σ⁻¹·v by the adjugate.
        const double c00 = s11 * s22 - s12 * s12, c01 = s02 * s12 - s01 * s22, c02 = s01 * s12 - s02 * s11;
        const double c11 = s00 * s22 - s02 * s02, c12 = s01 * s02 - s00 * s12, c22 = s00 * s11 - s01 * s01;
        const double det = s00 * c00 + s01 * c01 + s02 * c02;
        const int solvable = det > 1e-18;
        const float a0 = solvable ? (float)((c00 * v0 + c01 * v1 + c02 * v2) / det) : 0;
        const float a1 = solvable ? (float)((c01 * v0 + c11 * v1 + c12 * v2) / det) : 0;
        const float a2 = solvable ? (float)((c02 * v0 + c12 * v1 + c22 * v2) / det) : 0;
        a0s[i] = a0;
        a1s[i] = a1;
        a2s[i] = a2;
        b[i] = solvable ? mp - a0 * m0 - a1 * m1 - a2 * m2 : mp;
    }
}
CK_DISPATCH(ck_guided_fit,
            (long count, const float *const *mean, const float *const *corr, float epsilon, float *const *a, float *b),
            (count, mean, corr, epsilon, a, b))

/// One enlarged sample of `plane` between rows `r0` and `r1`: along x, then between the rows.
CK_INLINE float enlarged(const float *restrict plane, long r0, long r1, long x0, long x1, float wx, float wy) {
    return ck_lerp(ck_lerp(plane[r0 + x0], plane[r0 + x1], wx), ck_lerp(plane[r1 + x0], plane[r1 + x1], wx), wy);
}

CK_INLINE void ck_guided_mask_row_body(const float *const *restrict planes, long row0, long row1, float wy,
                                       const long *restrict x0, const long *restrict x1, const float *restrict wx,
                                       const uint8_t *restrict rgba, long count, float scale, float level,
                                       uint8_t *restrict out) {
    const float *ar = planes[0], *ag = planes[1], *ab = planes[2], *bs = planes[3];
    for (long x = 0; x < count; x++) {
        const float r = enlarged(ar, row0, row1, x0[x], x1[x], wx[x], wy);
        const float g = enlarged(ag, row0, row1, x0[x], x1[x], wx[x], wy);
        const float bl = enlarged(ab, row0, row1, x0[x], x1[x], wx[x], wy);
        const float b = enlarged(bs, row0, row1, x0[x], x1[x], wx[x], wy);
        const float dot = r * (float)rgba[4 * x] + g * (float)rgba[4 * x + 1] + bl * (float)rgba[4 * x + 2];
        out[x] = b + dot * scale >= level ? 255 : 0;
    }
}
CK_DISPATCH(ck_guided_mask_row,
            (const float *const *planes, long row0, long row1, float wy, const long *x0, const long *x1,
             const float *wx, const uint8_t *rgba, long count, float scale, float level, uint8_t *out),
            (planes, row0, row1, wy, x0, x1, wx, rgba, count, scale, level, out))
