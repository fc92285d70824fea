#include "ck_common.h"

/// Swift's `max(x, y)`, so the pooled values (and which of two equal zeros) are the Swift engine's.
CK_INLINE float swift_max(float x, float y) { return y >= x ? y : x; }

CK_INLINE void pool_row(const float *restrict r0, const float *restrict r1, long width, float *restrict out) {
    const long pairs = width / 2;
    for (long x = 0; x < pairs; x++) {
        out[x] = swift_max(swift_max(r0[2 * x], r0[2 * x + 1]), swift_max(r1[2 * x], r1[2 * x + 1]));
    }
    if (width % 2) {
        const float a = r0[width - 1], b = r1[width - 1];
        out[pairs] = swift_max(swift_max(a, a), swift_max(b, b));
    }
}

CK_INLINE void ck_max_pool_2x2_body(const float *plane, long height, long width, float *out) {
    const long outHeight = (height + 1) / 2, outWidth = (width + 1) / 2;
    for (long y = 0; y < outHeight; y++) {
        const long y0 = 2 * y, y1 = y0 + 1 < height ? y0 + 1 : height - 1;
        pool_row(plane + y0 * width, plane + y1 * width, width, out + y * outWidth);
    }
}
CK_DISPATCH(ck_max_pool_2x2, (const float *plane, long height, long width, float *out), (plane, height, width, out))
