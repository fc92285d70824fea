#include "ck_vector.h"

/// Sixteen sums a step, each loaded before it is stored, so `out` may be `a` or `b` itself (the activation plan
/// writes an elementwise step over its input when it is the input's last reader); the clang vectorizer would not
/// assume that and left the Swift loop scalar.
CK_INLINE void ck_add_body(const float *a, const float *b, long count, float *out) {
    long i = 0;
    for (; i + 16 <= count; i += 16) store16(out + i, load16(a + i) + load16(b + i));
    for (; i < count; i++) out[i] = a[i] + b[i];
}
CK_DISPATCH(ck_add, (const float *a, const float *b, long count, float *out), (a, b, count, out))
