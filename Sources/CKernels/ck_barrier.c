#include "ck_vector.h"

/// Integer lanes of a comparison of two v8: all bits set where it holds.
typedef int v8i __attribute__((vector_size(32)));

/// `yes` where `mask` is set, else `no` (lane by lane, bit for bit).
CK_INLINE v8 barrier_select(v8i mask, v8 yes, v8 no) { return (v8)(((v8i)yes & mask) | ((v8i)no & ~mask)); }

/// One relaxation of ck_barrier_scans: pixel p from its visited neighbour q, eight channels side by side, with the
/// selections of Swift's max(u[q], v[p]) (`v >= u ? v : u`) and min(l[q], v[p]) (`v < l ? v : l`). p's distance is
/// not stored: it is `u[p] - l[p]`, the subtraction that made it (the largest float's span, +inf, before p's first
/// relaxation). Written with vector types: as a loop over the lanes the compiler made scalar branches of it.
CK_INLINE void barrier_relax(v8 v, float *restrict up, float *restrict lp, const float *restrict uq,
                             const float *restrict lq) {
    const v8 uqv = load8(uq), lqv = load8(lq), u = load8(up), l = load8(lp);
    const v8 uu = barrier_select(v >= uqv, v, uqv), ll = barrier_select(v < lqv, v, lqv);
    const v8i better = uu - ll < u - l;
    store8(up, barrier_select(better, uu, u));
    store8(lp, barrier_select(better, ll, l));
}

CK_INLINE void ck_barrier_scans_body(const float *restrict v, long width, long height, float *restrict u,
                                     float *restrict l) {
    for (int pass = 0; pass < 4; pass++) {
        if (pass % 2 == 0) {
            for (long y = 1; y < height - 1; y++) {
                for (long x = 1; x < width - 1; x++) {
                    const long p = 8 * (y * width + x), left = p - 8, up = p - 8 * width;
                    const v8 vp = load8(v + p);
                    barrier_relax(vp, u + p, l + p, u + left, l + left);
                    barrier_relax(vp, u + p, l + p, u + up, l + up);
                }
            }
        } else {
            for (long y = height - 2; y >= 1; y--) {
                for (long x = width - 2; x >= 1; x--) {
                    const long p = 8 * (y * width + x), right = p + 8, down = p + 8 * width;
                    const v8 vp = load8(v + p);
                    barrier_relax(vp, u + p, l + p, u + right, l + right);
                    barrier_relax(vp, u + p, l + p, u + down, l + down);
                }
            }
        }
    }
}
CK_DISPATCH(ck_barrier_scans, (const float *v, long width, long height, float *u, float *l), (v, width, height, u, l))
