#include "ck_vector.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/// Pixels of replicated edge round each padded target plane: a patch's samples are read without a bounds check
/// as long as its top-left corner stays within this far outside the frame (its position is clamped to that).
enum { BORDER = 16 };

/// The largest patch side (`ck_flow_params.patch`): the per-patch arrays below are sized for it.
enum { MAX_PATCH = 16 };

/// A neighbour's vector replaces a patch's own start only when its residual is this much lower: between vectors
/// that fit about as well, the least residual favours positions where bilinear sampling blurs least (whole pixels),
/// which biased subpixel motion by up to 0.06 pixels; a vector from another motion fits far worse.
static const float clearly_better = 0.9f;

/// The 5-tap binomial filter of each halving (Burt and Adelson's pyramid; OpenCV's pyrDown).
static const float binomial[5] = {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f};

void ck_flow_default_params(ck_flow_params *params) {
    if (!params) return;
    *params = (ck_flow_params){
        .patch = 8, .stride = 4, .iterations = 12, .finest = 1, .coarsest_side = 16, .refinement = 3};
}

/// `a * b` into `out`, nonzero on overflow or when either is negative.
CK_INLINE int mul_checked(long a, long b, long *out) { return a < 0 || b < 0 || __builtin_mul_overflow(a, b, out); }

/// The checks ``ck_flow`` makes of its sizes and parameters, and the levels they give: `levels` is the coarsest
/// level searched plus one, `sizes[k]` level k's width and height.
static int plan_levels(long width, long height, const ck_flow_params *p, long *levels, long sizes[][2]) {
    if (!p || width <= 0 || height <= 0) return CK_FLOW_EINVAL;
    if ((p->patch != 8 && p->patch != 16) || p->stride < 1 || p->stride > p->patch || p->iterations < 1 ||
        p->iterations > 64 || p->finest < 0 || p->finest >= CK_FLOW_MAX_LEVELS || p->coarsest_side < p->patch ||
        p->coarsest_side > 4096 || p->refinement < 0 || p->refinement > 16)
        return CK_FLOW_EINVAL;
    if (width > CK_FLOW_MAX_SIDE || height > CK_FLOW_MAX_SIDE) return CK_FLOW_ESIZE;
    long w = width, h = height, k = 0;
    sizes[0][0] = w;
    sizes[0][1] = h;
    while (k + 1 < CK_FLOW_MAX_LEVELS) {
        const long nw = (w + 1) / 2, nh = (h + 1) / 2;
        // Below the finest level every halving is made; past it, only while the next still has the coarsest side.
        if (k + 1 > p->finest && (nw < p->coarsest_side || nh < p->coarsest_side)) break;
        k++;
        w = nw;
        h = nh;
        sizes[k][0] = w;
        sizes[k][1] = h;
        if (k == p->finest && (w < p->patch || h < p->patch)) return CK_FLOW_ESIZE;
    }
    if (k < p->finest) return CK_FLOW_ESIZE;
    if (sizes[p->finest][0] < p->patch || sizes[p->finest][1] < p->patch) return CK_FLOW_ESIZE;
    *levels = k + 1;
    return CK_FLOW_OK;
}

int ck_flow_field_size(long width, long height, const ck_flow_params *params, long *columns, long *rows) {
    long levels, sizes[CK_FLOW_MAX_LEVELS][2];
    if (!columns || !rows) return CK_FLOW_EINVAL;
    const int status = plan_levels(width, height, params, &levels, sizes);
    if (status != CK_FLOW_OK) return status;
    *columns = sizes[params->finest][0];
    *rows = sizes[params->finest][1];
    return CK_FLOW_OK;
}

/// One level of both frames' pyramids (`from` and `to` are null at level 0 unless the search runs there: that level
/// is only read as bytes).
struct level {
    long w, h;
    float *from, *to;
};

/// What a patch's search needs of its template (the `P` x `P` patch of `from` at (`px`, `py`)): the sums of its
/// gradients and the inverse of the Hessian of the mean-normalised residual, computed once per patch and level.
struct patch_template {
    float Sx, Sy, i11, i12, i22;
    /// Nonzero for a patch too flat to say which way it moved: it is not refined, only compared.
    int flat;
};

/// The variational refinement's planes at the finest level (`n` pixels): the image terms, fixed for the refinement,
/// and the linear system of one fixed-point iteration. The planes ``refine_system`` reads at a pixel's neighbours
/// (`u`, `v` and their increments, the edge weights) have `w + 16` zeros before and after, so the neighbours above
/// and below the frame, and eight lanes read past its end, are inside the allocation; where a neighbour lies outside
/// the frame its edge's weight is zero. The others have 16 floats to spare after their end.
///
/// The colour planes hold row `y`'s pixels of one colour of the checkerboard (`x + y` even for colour 0, odd for
/// 1), `x = 2k + ((y + colour) & 1)` at `[y * stride + k]`, with a row of zeros above and below, a zero before each
/// row and at least 15 after its last pixel (an edge or padding weighs nothing there).
struct refinement {
    float *ix, *iy, *iz, *n0, *ixx, *ixy, *iyy, *ixz, *iyz, *n1, *n2;
    float *u, *v, *du, *dv, *wx, *wy;
    float *inv11, *inv22, *a12, *b1, *b2, *smooth;
    /// What the sweeps read and write, split by the colours of a checkerboard (``refine_pack``).
    struct checkerboard {
        float *du, *dv, *wx, *wy, *a12, *b1, *b2, *inv11, *inv22;
    } colour[2];
    /// Floats between the rows of a colour's planes.
    long stride;
};

/// Everything one ``ck_flow`` call works in: the pyramids, and per-level planes sized for the finest level
/// searched (coarser levels use their first part).
struct flow_work {
    ck_flow_params p;
    long levels;
    const uint8_t *from, *to;
    struct level level[CK_FLOW_MAX_LEVELS];
    /// `from`'s gradients, `to` with its replicated border, the dense field and the coarser level's, the weights
    /// of the densification, the patches' vectors and residuals, and the halving's intermediate rows.
    float *gx, *gy, *padded, *u, *v, *coarse_u, *coarse_v, *weight, *patch_u, *patch_v, *patch_ssd, *rows;
    struct patch_template *templates;
    /// The variational refinement's planes (``refine``), null when it does not run.
    struct refinement *refinement;
    float *out_u, *out_v;
};

/// Row `y` clamped to `0 ..< h`.
CK_INLINE long clamp_row(long y, long h) { return y < 0 ? 0 : y >= h ? h - 1 : y; }

/// The vertical half of a halving: `rows` (`w` x `(h + 1) / 2`) gets the binomial taps down the columns of
/// `bytes` or `floats` (whichever is not null, `w` x `h`) centred on its even rows, edges replicated; each
/// output summed from zero in the order of the taps.
CK_INLINE void halve_columns(const uint8_t *restrict bytes, const float *restrict floats, long w, long h,
                             float *restrict rows) {
    for (long i = 0; i < (h + 1) / 2; i++) {
        float *o = rows + i * w;
        for (long x = 0; x < w; x++) o[x] = 0;
        for (long d = -2; d <= 2; d++) {
            const long y = clamp_row(2 * i + d, h);
            const float weight = binomial[d + 2];
            if (bytes) {
                const uint8_t *r = bytes + y * w;
                for (long x = 0; x < w; x++) o[x] += weight * (float)r[x];
            } else {
                const float *r = floats + y * w;
                for (long x = 0; x < w; x++) o[x] += weight * r[x];
            }
        }
    }
}

/// The horizontal half: `dst` (`(w + 1) / 2` x `rh`) gets the taps along the rows of `rows` (`w` x `rh`) centred on
/// its even columns, edges replicated; the clamp only where a window reaches past an edge.
CK_INLINE void halve_rows(const float *restrict rows, long w, long rh, float *restrict dst) {
    const long dw = (w + 1) / 2;
    // Windows of columns 1 ... inner - 1 lie inside the row (2j - 2 >= 0, 2j + 2 <= w - 1).
    const long inner = w >= 3 ? (w - 3) / 2 + 1 : 1;
    for (long i = 0; i < rh; i++) {
        const float *r = rows + i * w;
        float *o = dst + i * dw;
        for (long j = 1; j < inner; j++) {
            o[j] = 0 + binomial[0] * r[2 * j - 2] + binomial[1] * r[2 * j - 1] + binomial[2] * r[2 * j] +
                   binomial[3] * r[2 * j + 1] + binomial[4] * r[2 * j + 2];
        }
        for (long j = 0; j < dw; j = j == 0 && inner > 1 ? inner : j + 1) {
            float sum = 0;
            for (long d = -2; d <= 2; d++) sum += binomial[d + 2] * r[clamp_row(2 * j + d, w)];
            o[j] = sum;
        }
    }
}

/// Sobel gradients of `a` (`w` x `h`, `w >= 2`) divided by 8, so they are the slope per pixel; edges replicated.
CK_INLINE void gradients(const float *restrict a, long w, long h, float *restrict gx, float *restrict gy) {
    for (long y = 0; y < h; y++) {
        const float *t = a + (y > 0 ? y - 1 : 0) * w, *m = a + y * w, *b = a + (y + 1 < h ? y + 1 : y) * w;
        float *ox = gx + y * w, *oy = gy + y * w;
        for (long x = 1; x + 1 < w; x++) {
            ox[x] = ((t[x + 1] - t[x - 1]) + 2 * (m[x + 1] - m[x - 1]) + (b[x + 1] - b[x - 1])) * 0.125f;
            oy[x] = ((b[x - 1] - t[x - 1]) + 2 * (b[x] - t[x]) + (b[x + 1] - t[x + 1])) * 0.125f;
        }
        const long edges[2] = {0, w - 1};
        for (int e = 0; e < 2; e++) {
            const long x = edges[e], l = x > 0 ? x - 1 : 0, r = x + 1 < w ? x + 1 : x;
            ox[x] = ((t[r] - t[l]) + 2 * (m[r] - m[l]) + (b[r] - b[l])) * 0.125f;
            oy[x] = ((b[l] - t[l]) + 2 * (b[x] - t[x]) + (b[r] - t[r])) * 0.125f;
        }
    }
}

/// `src` (`w` x `h`) into `dst` with ``BORDER`` replicated pixels on every side (`w + 2 BORDER` floats a row).
CK_INLINE void pad(const float *restrict src, long w, long h, float *restrict dst) {
    const long pw = w + 2 * BORDER;
    for (long y = 0; y < h; y++) {
        float *o = dst + (y + BORDER) * pw;
        const float *s = src + y * w;
        for (long x = 0; x < BORDER; x++) o[x] = s[0];
        memcpy(o + BORDER, s, (size_t)w * sizeof(float));
        for (long x = BORDER + w; x < pw; x++) o[x] = s[w - 1];
    }
    for (long y = 0; y < BORDER; y++) {
        memcpy(dst + y * pw, dst + BORDER * pw, (size_t)pw * sizeof(float));
        memcpy(dst + (BORDER + h + y) * pw, dst + (BORDER + h - 1) * pw, (size_t)pw * sizeof(float));
    }
}

/// `x` clamped to `lo ... hi`; NaN goes to `lo`.
CK_INLINE float clampf(float x, float lo, float hi) { return !(x >= lo) ? lo : x > hi ? hi : x; }

/// A `w` x `h` plane sampled bilinearly at (x, y), clamped to its pixels.
CK_INLINE float sample(const float *a, long w, long h, float x, float y) {
    x = clampf(x, 0, (float)(w - 1));
    y = clampf(y, 0, (float)(h - 1));
    const long x0 = (long)x, y0 = (long)y;
    const long x1 = x0 + 1 < w ? x0 + 1 : x0, y1 = y0 + 1 < h ? y0 + 1 : y0;
    const float fx = x - (float)x0, fy = y - (float)y0;
    const float top = ck_lerp(a[y0 * w + x0], a[y0 * w + x1], fx);
    const float bottom = ck_lerp(a[y1 * w + x0], a[y1 * w + x1], fx);
    return ck_lerp(top, bottom, fy);
}

/// Where a patch at (`px`, `py`) moved by (`u`, `v`) is read from the padded target: its top-left corner clamped
/// so that every sample and its right and lower neighbours lie inside the padding, as whole pixels and the four
/// bilinear weights (the same for every pixel of a patch: a patch moves by a translation), one per lane.
struct patch_read {
    const float *origin;
    v8 w00, w01, w10, w11;
};

CK_INLINE struct patch_read patch_position(const float *padded, long w, long h, long P, long px, long py, float u,
                                           float v) {
    const long pw = w + 2 * BORDER;
    const float x = clampf((float)px + u, -(float)BORDER, (float)(w + BORDER - P - 1));
    const float y = clampf((float)py + v, -(float)BORDER, (float)(h + BORDER - P - 1));
    const float fx0 = floorf(x), fy0 = floorf(y);
    const float ax = x - fx0, ay = y - fy0;
    const long ix = (long)fx0, iy = (long)fy0;
    const v8 zero = {0};
    return (struct patch_read){
        .origin = padded + (iy + BORDER) * pw + ix + BORDER,
        .w00 = zero + (1 - ax) * (1 - ay), .w01 = zero + ax * (1 - ay), .w10 = zero + (1 - ax) * ay,
        .w11 = zero + ax * ay,
    };
}

/// The target under 8 pixels of a patch row (`top` and `bottom` the two rows it lies between).
CK_INLINE v8 patch_sample(const struct patch_read *at, const float *top, const float *bottom) {
    return at->w00 * load8(top) + at->w01 * load8(top + 1) + at->w10 * load8(bottom) + at->w11 * load8(bottom + 1);
}

/// The lanes of `x` added in order: every instruction set adds the same floats in the same order.
CK_INLINE float lanes_sum(v8 x, float sum) {
    for (int k = 0; k < 8; k++) sum += x[k];
    return sum;
}

CK_INLINE struct patch_template patch_template(const float *gx, const float *gy, long w, long P, long px, long py) {
    const float n = (float)(P * P);
    // Per-column partial sums, a lane a column, added in the order of the columns at the end.
    v8 sxx[MAX_PATCH / 8] = {{0}}, sxy[MAX_PATCH / 8] = {{0}}, syy[MAX_PATCH / 8] = {{0}};
    v8 sx[MAX_PATCH / 8] = {{0}}, sy[MAX_PATCH / 8] = {{0}};
    for (long r = 0; r < P; r++) {
        for (long q = 0; q < P / 8; q++) {
            const v8 ax = load8(gx + (py + r) * w + px + 8 * q), ay = load8(gy + (py + r) * w + px + 8 * q);
            sxx[q] += ax * ax;
            sxy[q] += ax * ay;
            syy[q] += ay * ay;
            sx[q] += ax;
            sy[q] += ay;
        }
    }
    float Sxx = 0, Sxy = 0, Syy = 0, Sx = 0, Sy = 0;
    for (long q = 0; q < P / 8; q++) {
        Sxx = lanes_sum(sxx[q], Sxx);
        Sxy = lanes_sum(sxy[q], Sxy);
        Syy = lanes_sum(syy[q], Syy);
        Sx = lanes_sum(sx[q], Sx);
        Sy = lanes_sum(sy[q], Sy);
    }
    // The gradients' covariance over the patch.
    const float hxx = Sxx - Sx * Sx / n, hxy = Sxy - Sx * Sy / n, hyy = Syy - Sy * Sy / n;
    const float trace = hxx + hyy;
    // A thousandth of the trace on the diagonal keeps an edge's rank-one Hessian invertible: the step is then along
    // the edge's normal only, its length hardly changed.
    const float reg = 1e-3f * trace, a = hxx + reg, c = hyy + reg;
    const float det = a * c - hxy * hxy;
    // Flat: a mean slope under a hundredth of a grey level per pixel.
    const int flat = !(trace > 1e-4f * n) || !(det > 0);
    return (struct patch_template){
        .Sx = Sx, .Sy = Sy, .flat = flat,
        .i11 = flat ? 0 : c / det, .i12 = flat ? 0 : -hxy / det, .i22 = flat ? 0 : a / det,
    };
}

/// The mean-normalised sum of squared differences between the template and the target under it moved by
/// (`u`, `v`), and in (`*bx`, `*by`) the residual's projection on the template's centred gradients (the
/// right-hand side of the Gauss-Newton step).
CK_INLINE float patch_residual(const float *from, const float *gx, const float *gy, const float *padded, long w, long h,
                               long P, long px, long py, const struct patch_template *t, float u, float v, float *bx,
                               float *by) {
    const float n = (float)(P * P);
    const struct patch_read at = patch_position(padded, w, h, P, px, py, u, v);
    const long pw = w + 2 * BORDER;
    v8 sd[MAX_PATCH / 8] = {{0}}, sdd[MAX_PATCH / 8] = {{0}}, sdx[MAX_PATCH / 8] = {{0}}, sdy[MAX_PATCH / 8] = {{0}};
    for (long r = 0; r < P; r++) {
        const float *top = at.origin + r * pw;
        const long row = (py + r) * w + px;
        for (long q = 0; q < P / 8; q++) {
            const v8 d = patch_sample(&at, top + 8 * q, top + pw + 8 * q) - load8(from + row + 8 * q);
            sd[q] += d;
            sdd[q] += d * d;
            sdx[q] += d * load8(gx + row + 8 * q);
            sdy[q] += d * load8(gy + row + 8 * q);
        }
    }
    float D = 0, DD = 0, DX = 0, DY = 0;
    for (long q = 0; q < P / 8; q++) {
        D = lanes_sum(sd[q], D);
        DD = lanes_sum(sdd[q], DD);
        DX = lanes_sum(sdx[q], DX);
        DY = lanes_sum(sdy[q], DY);
    }
    *bx = DX - t->Sx * D / n;
    *by = DY - t->Sy * D / n;
    return DD - D * D / n;
}

/// A patch's search (DIS's, with OpenCV's spatial propagation): of the vectors in `candidates`, the first with its
/// residual `known` when that is not negative, the one whose residual is least (a later one only when clearly
/// lower) is refined by inverse-compositional Lucas-Kanade for at most `iterations` steps. The patch keeps the
/// vector of least residual it visited, or its start when that lies more than `P` pixels away; `refine_first` zero
/// skips the refinement when the first candidate stays (it was refined already).
CK_INLINE void search_patch(const float *from, const float *gx, const float *gy, const float *padded, long w, long h,
                            long P, long iterations, long px, long py, const struct patch_template *t,
                            const float (*candidates)[2], int count, float known, int refine_first, float *pu,
                            float *pv, float *pssd) {
    float u0 = candidates[0][0], v0 = candidates[0][1], bx = 0, by = 0;
    float best = known >= 0 ? known : patch_residual(from, gx, gy, padded, w, h, P, px, py, t, u0, v0, &bx, &by);
    int chosen = 0;
    for (int k = 1; k < count; k++) {
        float cx, cy;
        const float ssd =
            patch_residual(from, gx, gy, padded, w, h, P, px, py, t, candidates[k][0], candidates[k][1], &cx, &cy);
        if (ssd < clearly_better * best) {
            best = ssd;
            u0 = candidates[k][0];
            v0 = candidates[k][1];
            bx = cx;
            by = cy;
            chosen = k;
        }
    }
    float u = u0, v = v0, bestU = u0, bestV = v0;
    if (!t->flat && (chosen > 0 || refine_first)) {
        for (long step = 0; step < iterations; step++) {
            const float du = t->i11 * bx + t->i12 * by, dv = t->i12 * bx + t->i22 * by;
            u -= du;
            v -= dv;
            const float ssd = patch_residual(from, gx, gy, padded, w, h, P, px, py, t, u, v, &bx, &by);
            if (!(ssd < best)) break;
            best = ssd;
            bestU = u;
            bestV = v;
            // A hundredth of a pixel changes nothing the densification could show.
            if (du * du + dv * dv < 1e-4f) break;
        }
    }
    const float mu = bestU - u0, mv = bestV - v0;
    const int far = mu * mu + mv * mv > (float)(P * P);
    *pu = far ? u0 : bestU;
    *pv = far ? v0 : bestV;
    if (far) best = patch_residual(from, gx, gy, padded, w, h, P, px, py, t, u0, v0, &bx, &by);
    *pssd = best;
}

/// The patches' positions along one axis: `count` of them `stride` apart from 0, the last one moved back to end at
/// the edge, so every pixel is covered.
CK_INLINE long patch_count(long size, long P, long stride) { return (size - P + stride - 1) / stride + 1; }
CK_INLINE long patch_at(long i, long size, long P, long stride) { return i * stride < size - P ? i * stride : size - P; }

/// Both passes over the patches of level `L` (``flow_level``), for a patch side `P` the compiler knows.
CK_INLINE void search_level(struct flow_work *work, const struct level *L, long P, long cw, long ch, int has_coarse) {
    const long w = L->w, h = L->h, S = work->p.stride, iterations = work->p.iterations;
    const long nx = patch_count(w, P, S), ny = patch_count(h, P, S);
    float *pu = work->patch_u, *pv = work->patch_v, *pssd = work->patch_ssd;
    const float *from = L->from, *gx = work->gx, *gy = work->gy, *padded = work->padded;
    // The first pass starts each patch from the coarser field at its centre (in this level's pixels), or from its
    // left or upper neighbour's vector; the second, in reverse order, moves a patch to its right or lower
    // neighbour's vector where that fits clearly better, and refines it from there. A patch whose own start is
    // wrong (one the coarser level blurred across the edge of a moving object, or one beyond the reach of its
    // texture's gradients) takes its neighbour's.
    for (long i = 0; i < ny; i++) {
        const long py = patch_at(i, h, P, S);
        for (long j = 0; j < nx; j++) {
            const long px = patch_at(j, w, P, S), cell = i * nx + j;
            work->templates[cell] = patch_template(gx, gy, w, P, px, py);
            float candidates[3][2] = {{0, 0}};
            int count = 1;
            if (has_coarse) {
                const float cx = ((float)px + 0.5f * (float)(P - 1)) * 0.5f;
                const float cy = ((float)py + 0.5f * (float)(P - 1)) * 0.5f;
                candidates[0][0] = 2 * sample(work->coarse_u, cw, ch, cx, cy);
                candidates[0][1] = 2 * sample(work->coarse_v, cw, ch, cx, cy);
            }
            if (j > 0) {
                candidates[count][0] = pu[cell - 1];
                candidates[count++][1] = pv[cell - 1];
            }
            if (i > 0) {
                candidates[count][0] = pu[cell - nx];
                candidates[count++][1] = pv[cell - nx];
            }
            search_patch(from, gx, gy, padded, w, h, P, iterations, px, py, &work->templates[cell], candidates, count,
                         -1, 1, &pu[cell], &pv[cell], &pssd[cell]);
        }
    }
    for (long i = ny - 1; i >= 0; i--) {
        const long py = patch_at(i, h, P, S);
        for (long j = nx - 1; j >= 0; j--) {
            const long px = patch_at(j, w, P, S), cell = i * nx + j;
            float candidates[3][2] = {{pu[cell], pv[cell]}};
            int count = 1;
            if (j + 1 < nx) {
                candidates[count][0] = pu[cell + 1];
                candidates[count++][1] = pv[cell + 1];
            }
            if (i + 1 < ny) {
                candidates[count][0] = pu[cell + nx];
                candidates[count++][1] = pv[cell + nx];
            }
            search_patch(from, gx, gy, padded, w, h, P, iterations, px, py, &work->templates[cell], candidates, count,
                         pssd[cell], 0, &pu[cell], &pv[cell], &pssd[cell]);
        }
    }
}

/// Densification of level `L` into `work->u`, `work->v`: every pixel the mean of its patches' vectors, each
/// weighted by `1 / max(1, |to(x + u) - from(x)|)`, how well it explains the pixel.
CK_INLINE void densify(struct flow_work *work, const struct level *L, long P) {
    const long w = L->w, h = L->h, S = work->p.stride, nx = patch_count(w, P, S), ny = patch_count(h, P, S);
    float *U = work->u, *V = work->v, *W = work->weight;
    memset(U, 0, (size_t)(w * h) * sizeof(float));
    memset(V, 0, (size_t)(w * h) * sizeof(float));
    memset(W, 0, (size_t)(w * h) * sizeof(float));
    const long pw = w + 2 * BORDER;
    const v8 one = (v8){0} + 1.0f;
    for (long i = 0; i < ny; i++) {
        const long py = patch_at(i, h, P, S);
        for (long j = 0; j < nx; j++) {
            const long px = patch_at(j, w, P, S);
            const float u = work->patch_u[i * nx + j], v = work->patch_v[i * nx + j];
            const struct patch_read at = patch_position(work->padded, w, h, P, px, py, u, v);
            for (long r = 0; r < P; r++) {
                const float *top = at.origin + r * pw;
                const long row = (py + r) * w + px;
                for (long q = 0; q < P / 8; q++) {
                    const long o = row + 8 * q;
                    const v8 d = patch_sample(&at, top + 8 * q, top + pw + 8 * q) - load8(L->from + o);
                    const v8 weight = one / __builtin_elementwise_max(__builtin_elementwise_abs(d), one);
                    store8(W + o, load8(W + o) + weight);
                    store8(U + o, load8(U + o) + weight * u);
                    store8(V + o, load8(V + o) + weight * v);
                }
            }
        }
    }
    for (long p = 0; p < w * h; p++) {
        U[p] /= W[p];
        V[p] /= W[p];
    }
}


// MARK: - Variational refinement

/// The refinement's energy (Brox, Bruhn, Papenberg & Weickert, ECCV 2004, in the normalised form OpenCV's
/// VariationalRefinement minimises, with its weights): brightness constancy `delta`, gradient constancy `gamma`,
/// smoothness `alpha`, each under the robust penalty `sqrt(s² + epsilon²)`, the data terms normalised by the
/// squared gradient plus `zeta²`.
static const float refine_alpha = 20, refine_gamma = 10, refine_delta = 5, refine_zeta2 = 0.01f,
                   refine_epsilon2 = 1e-6f;
/// Over-relaxation of the sweeps, and red-black sweeps per fixed-point iteration (OpenCV's).
static const float refine_omega = 1.6f;
enum { REFINE_SWEEPS = 5 };

/// Central differences of `a` (`w` x `h`) along x and y, edges replicated.
CK_INLINE void central(const float *restrict a, long w, long h, float *restrict dx, float *restrict dy) {
    for (long y = 0; y < h; y++) {
        const float *t = a + (y > 0 ? y - 1 : 0) * w, *m = a + y * w, *b = a + (y + 1 < h ? y + 1 : y) * w;
        float *ox = dx + y * w, *oy = dy + y * w;
        for (long x = 0; x < w; x++) oy[x] = 0.5f * (b[x] - t[x]);
        for (long x = 1; x + 1 < w; x++) ox[x] = 0.5f * (m[x + 1] - m[x - 1]);
        ox[0] = 0.5f * (m[1] - m[0]);
        ox[w - 1] = 0.5f * (m[w - 1] - m[w - 2]);
    }
}

/// The image terms at the current field (`work->u`, `work->v`): the target warped by it, the derivatives of the mean
/// of the two frames (as OpenCV takes them), the temporal difference and its derivatives, and the normalisations.
CK_INLINE void refine_prepare(const struct flow_work *work, const struct level *L, const struct refinement *R) {
    const long w = L->w, h = L->h, n = w * h, pw = w + 2 * BORDER;
    // Locals, not the structs' fields: a store through a float pointer could otherwise be a store to them.
    const float *restrict from = L->from, *restrict fu = work->u, *restrict fv = work->v;
    // The target with its replicated border (``pad``, still this level's): a point clamped to the border reads
    // what `sample` reads at the edge, without a clamp per tap.
    const float *restrict to = work->padded + BORDER * pw + BORDER;
    float *restrict iz = R->iz, *restrict ix = R->ix, *restrict iy = R->iy, *restrict ixx = R->ixx;
    float *restrict ixy = R->ixy, *restrict iyy = R->iyy;
    // `smooth` and `inv11` hold the mean and the warped target while the terms are made.
    float *restrict mean = R->smooth, *restrict warped = R->inv11;
    const float lo = -(float)BORDER, hx = (float)(w + BORDER - 2), hy = (float)(h + BORDER - 2);
    for (long y = 0; y < h; y++) {
        for (long x = 0; x < w; x++) {
            const long p = y * w + x;
            const float sx = clampf((float)x + fu[p], lo, hx), sy = clampf((float)y + fv[p], lo, hy);
            const float x0 = floorf(sx), y0 = floorf(sy), ax = sx - x0, ay = sy - y0;
            const float *a = to + (long)y0 * pw + (long)x0;
            warped[p] = ck_lerp(ck_lerp(a[0], a[1], ax), ck_lerp(a[pw], a[pw + 1], ax), ay);
        }
    }
    for (long p = 0; p < n; p++) {
        mean[p] = 0.5f * (from[p] + warped[p]);
        iz[p] = warped[p] - from[p];
    }
    central(mean, w, h, ix, iy);
    central(iz, w, h, R->ixz, R->iyz);
    central(ix, w, h, ixx, ixy);
    // d/dy of Iy; its d/dx (the same Ixy up to rounding) lands in `warped`, unused.
    central(iy, w, h, warped, iyy);
    float *restrict n0 = R->n0, *restrict n1 = R->n1, *restrict n2 = R->n2, *restrict u = R->u, *restrict v = R->v;
    float *restrict du = R->du, *restrict dv = R->dv;
    for (long p = 0; p < n; p++) {
        n0[p] = 1 / (ix[p] * ix[p] + iy[p] * iy[p] + refine_zeta2);
        n1[p] = 1 / (ixx[p] * ixx[p] + ixy[p] * ixy[p] + refine_zeta2);
        n2[p] = 1 / (iyy[p] * iyy[p] + ixy[p] * ixy[p] + refine_zeta2);
        u[p] = fu[p];
        v[p] = fv[p];
        du[p] = 0;
        dv[p] = 0;
    }
}

/// The smoothness weight of pixel `p`'s right and lower edges (`e`, `d`: its right and lower neighbours' offsets,
/// 0 at the frame's edge) at `u + du`.
CK_INLINE float smoothness(const float *u, const float *v, const float *du, const float *dv, long p, long e, long d) {
    const float ux = (u[p + e] + du[p + e]) - (u[p] + du[p]), vx = (v[p + e] + dv[p + e]) - (v[p] + dv[p]);
    const float uy = (u[p + d] + du[p + d]) - (u[p] + du[p]), vy = (v[p + d] + dv[p + d]) - (v[p] + dv[p]);
    return 0.5f * refine_alpha / sqrtf(ux * ux + vx * vx + uy * uy + vy * vy + refine_epsilon2);
}

/// One fixed-point iteration's linear system at the increments so far: the data terms' robust weights at the
/// linearised residuals, the smoothness weight of each pixel's right and lower edges at `u + du`, and the
/// inverses of the diagonal the sweeps divide by.
CK_INLINE void refine_system(const struct refinement *R, long w, long h) {
    const long n = w * h;
    // Locals, not R's fields: a store through a float pointer could otherwise be a store to them.
    const float *restrict u = R->u, *restrict v = R->v, *restrict du = R->du, *restrict dv = R->dv;
    const float *restrict ix = R->ix, *restrict iy = R->iy, *restrict iz = R->iz, *restrict n0 = R->n0;
    const float *restrict ixx = R->ixx, *restrict ixy = R->ixy, *restrict iyy = R->iyy, *restrict ixz = R->ixz;
    const float *restrict iyz = R->iyz, *restrict n1 = R->n1, *restrict n2 = R->n2;
    float *restrict s = R->smooth, *restrict wx = R->wx, *restrict wy = R->wy, *restrict a12 = R->a12;
    float *restrict b1 = R->b1, *restrict b2 = R->b2, *restrict inv11 = R->inv11, *restrict inv22 = R->inv22;
    const v8 zero = {0}, half_alpha = zero + 0.5f * refine_alpha, half_delta = zero + 0.5f * refine_delta;
    const v8 half_gamma = zero + 0.5f * refine_gamma, eps2 = zero + refine_epsilon2, zeta2 = zero + refine_zeta2;
    // Eight pixels at a time over the whole plane (the planes have room past their end; the neighbours past the
    // last column and row are corrected after).
    for (long p = 0; p < n; p += 8) {
        const v8 t = load8(u + p) + load8(du + p), q = load8(v + p) + load8(dv + p);
        const v8 ux = (load8(u + p + 1) + load8(du + p + 1)) - t, vx = (load8(v + p + 1) + load8(dv + p + 1)) - q;
        const v8 uy = (load8(u + p + w) + load8(du + p + w)) - t, vy = (load8(v + p + w) + load8(dv + p + w)) - q;
        store8(s + p, half_alpha / __builtin_elementwise_sqrt(ux * ux + vx * vx + uy * uy + vy * vy + eps2));
    }
    for (long y = 0; y < h; y++) s[y * w + w - 1] = smoothness(u, v, du, dv, y * w + w - 1, 0, y + 1 < h ? w : 0);
    for (long x = 0; x < w; x++) s[n - w + x] = smoothness(u, v, du, dv, n - w + x, x + 1 < w ? 1 : 0, 0);
    memcpy(wx, s, (size_t)n * sizeof(float));
    memcpy(wy, s, (size_t)(n - w) * sizeof(float));
    for (long y = 0; y < h; y++) wx[y * w + w - 1] = 0;
    for (long x = 0; x < w; x++) wy[n - w + x] = 0;
    for (long p = 0; p < n; p += 8) {
        const v8 Ix = load8(ix + p), Iy = load8(iy + p), Iz = load8(iz + p), N0 = load8(n0 + p);
        const v8 Du = load8(du + p), Dv = load8(dv + p), N1 = load8(n1 + p), N2 = load8(n2 + p);
        const v8 Ixx = load8(ixx + p), Ixy = load8(ixy + p), Iyy = load8(iyy + p), Ixz = load8(ixz + p);
        const v8 Iyz = load8(iyz + p);
        const v8 r0 = Iz + Ix * Du + Iy * Dv;
        const v8 k0 = half_delta / __builtin_elementwise_sqrt(r0 * r0 * N0 + eps2) * N0;
        const v8 rx = Ixz + Ixx * Du + Ixy * Dv, ry = Iyz + Ixy * Du + Iyy * Dv;
        const v8 k1 = half_gamma / __builtin_elementwise_sqrt(rx * rx * N1 + ry * ry * N2 + eps2);
        const v8 gx1 = Ixx * N1, gy1 = Ixy * N1, gx2 = Ixy * N2, gy2 = Iyy * N2;
        const v8 wl = load8(wx + p - 1), wr = load8(wx + p), wu = load8(wy + p - w), wd = load8(wy + p);
        const v8 around = wl + wr + wu + wd, U = load8(u + p), V = load8(v + p);
        const v8 a11 = k0 * Ix * Ix + zeta2 + k1 * (Ixx * gx1 + Ixy * gx2) + around;
        const v8 a22 = k0 * Iy * Iy + zeta2 + k1 * (Ixy * gy1 + Iyy * gy2) + around;
        store8(a12 + p, k0 * Ix * Iy + k1 * (Ixy * gx1 + Iyy * gx2));
        store8(b1 + p, zero - k0 * Iz * Ix - k1 * (Ixz * gx1 + Iyz * gx2) + wr * (load8(u + p + 1) - U) +
                           wl * (load8(u + p - 1) - U) + wd * (load8(u + p + w) - U) + wu * (load8(u + p - w) - U));
        store8(b2 + p, zero - k0 * Iz * Iy - k1 * (Ixz * gy1 + Iyz * gy2) + wr * (load8(v + p + 1) - V) +
                           wl * (load8(v + p - 1) - V) + wd * (load8(v + p + w) - V) + wu * (load8(v + p - w) - V));
        store8(inv11 + p, (zero + 1) / a11);
        store8(inv22 + p, (zero + 1) / a22);
    }
}

/// The first column of colour `colour` in row `y`, and the number of its pixels there.
CK_INLINE long colour_start(long y, int colour) { return (y + colour) & 1; }
CK_INLINE long colour_count(long w, long y, int colour) { return (w - colour_start(y, colour) + 1) / 2; }

/// The system's planes into the colour planes, for the sweeps.
CK_INLINE void refine_pack(const struct refinement *R, long w, long h) {
    for (int c = 0; c < 2; c++) {
        const struct checkerboard *B = &R->colour[c];
        float *const to[] = {B->wx, B->wy, B->a12, B->b1, B->b2, B->inv11, B->inv22};
        const float *const from[] = {R->wx, R->wy, R->a12, R->b1, R->b2, R->inv11, R->inv22};
        for (int i = 0; i < 7; i++) {
            for (long y = 0; y < h; y++) {
                const long t = colour_start(y, c), count = colour_count(w, y, c);
                float *restrict o = to[i] + y * R->stride;
                const float *restrict a = from[i] + y * w + t;
                for (long k = 0; k < count; k++) o[k] = a[2 * k];
            }
        }
    }
}

/// The increments from the colour planes into `du`, `dv`.
CK_INLINE void refine_unpack(const struct refinement *R, long w, long h) {
    for (int c = 0; c < 2; c++) {
        for (long y = 0; y < h; y++) {
            const long t = colour_start(y, c), count = colour_count(w, y, c);
            const float *restrict su = R->colour[c].du + y * R->stride, *restrict sv = R->colour[c].dv + y * R->stride;
            float *restrict u = R->du + y * w + t, *restrict v = R->dv + y * w + t;
            for (long k = 0; k < count; k++) {
                u[2 * k] = su[k];
                v[2 * k] = sv[k];
            }
        }
    }
}

/// Red-black successive over-relaxation of the system: the pixels of one colour of the checkerboard depend only on
/// the other's, so a colour's pass over a row is computed eight pixels at a time. This is colour `c`'s pass over
/// row `y`: pixel `k`'s left and right neighbours are the other colour's `k - 1 + t` and `k + t` (`t` the row's
/// first column of colour `c`), those above and below its `k` in the rows above and below.
CK_INLINE void refine_row(const struct refinement *R, long w, long y, int c) {
    const v8 omega = (v8){0} + refine_omega, keep = (v8){0} + (1 - refine_omega);
    const long S = R->stride, t = colour_start(y, c), count = colour_count(w, y, c);
    const struct checkerboard *own = &R->colour[c], *other = &R->colour[1 - c];
    // Locals, not the structs' fields: a store through a float pointer could otherwise be a store to them.
    float *restrict du = own->du + y * S, *restrict dv = own->dv + y * S;
    const float *restrict ou = other->du + y * S, *restrict ov = other->dv + y * S;
    const float *restrict wx = own->wx + y * S, *restrict wy = own->wy + y * S;
    const float *restrict owx = other->wx + y * S, *restrict owy = other->wy + (y - 1) * S;
    const float *restrict a12 = own->a12 + y * S, *restrict b1 = own->b1 + y * S, *restrict b2 = own->b2 + y * S;
    const float *restrict inv11 = own->inv11 + y * S, *restrict inv22 = own->inv22 + y * S;
    for (long k = 0; k < count; k += 8) {
        const v8 wl = load8(owx + k - 1 + t), wr = load8(wx + k), wu = load8(owy + k), wd = load8(wy + k);
        const v8 u0 = load8(du + k), v0 = load8(dv + k), a = load8(a12 + k);
        const v8 su = wr * load8(ou + k + t) + wl * load8(ou + k - 1 + t) + wd * load8(ou + S + k) +
                      wu * load8(ou - S + k);
        const v8 sv = wr * load8(ov + k + t) + wl * load8(ov + k - 1 + t) + wd * load8(ov + S + k) +
                      wu * load8(ov - S + k);
        const v8 u1 = keep * u0 + omega * ((load8(b1 + k) + su - a * v0) * load8(inv11 + k));
        const v8 v1 = keep * v0 + omega * ((load8(b2 + k) + sv - a * u1) * load8(inv22 + k));
        store8(du + k, u1);
        store8(dv + k, v1);
    }
}

/// One red-black sweep, as a wavefront: colour 0's pass over row `y`, then colour 1's over row `y - 1`, whose
/// neighbours of colour 0 are then all done. The same floats as a pass over every row per colour, with the rows
/// in cache while they are needed.
CK_INLINE void refine_sweep(const struct refinement *R, long w, long h) {
    for (long y = 0; y < h; y++) {
        refine_row(R, w, y, 0);
        if (y > 0) refine_row(R, w, y - 1, 1);
    }
    refine_row(R, w, h - 1, 1);
}

/// The variational refinement of the densified field at level `L`: `fixed` fixed-point iterations of
/// ``REFINE_SWEEPS`` red-black sweeps each, from the image terms of the field as DIS left it (the target warped
/// once, as OpenCV does); the increments are then added to it. The smoothness term fills what the patches could not
/// tell (flat regions) from around them and lets the motion vary within a patch (a zoom, a turn).
CK_INLINE void refine(struct flow_work *work, const struct level *L, long fixed) {
    struct refinement *R = work->refinement;
    const long w = L->w, h = L->h, n = w * h;
    refine_prepare(work, L, R);
    for (long f = 0; f < fixed; f++) {
        if (f > 0) refine_unpack(R, w, h);
        refine_system(R, w, h);
        refine_pack(R, w, h);
        for (int s = 0; s < REFINE_SWEEPS; s++) refine_sweep(R, w, h);
    }
    refine_unpack(R, w, h);
    for (long p = 0; p < n; p++) {
        work->u[p] += R->du[p];
        work->v[p] += R->dv[p];
    }
}

/// One level: the patches' search from the coarser field (`coarse_u`, `coarse_v`, `cw` x `ch`; none at the
/// coarsest level), then the densification, then at the finest level the variational refinement.
CK_INLINE void flow_level(struct flow_work *work, long k, long cw, long ch, int has_coarse) {
    const struct level *L = &work->level[k];
    gradients(L->from, L->w, L->h, work->gx, work->gy);
    pad(L->to, L->w, L->h, work->padded);
    if (work->p.patch == 8) {
        search_level(work, L, 8, cw, ch, has_coarse);
        densify(work, L, 8);
    } else {
        search_level(work, L, 16, cw, ch, has_coarse);
        densify(work, L, 16);
    }
    if (k == work->p.finest && work->p.refinement > 0) refine(work, L, work->p.refinement);
}

/// The pyramids, then the levels from the coarsest to `finest`, then the field in input pixels.
CK_INLINE void flow_run_body(struct flow_work *work) {
    const long width = work->level[0].w, height = work->level[0].h;
    if (work->level[0].from) {
        for (long p = 0; p < width * height; p++) {
            work->level[0].from[p] = (float)work->from[p];
            work->level[0].to[p] = (float)work->to[p];
        }
    }
    for (long k = 1; k < work->levels; k++) {
        const struct level *a = &work->level[k - 1];
        const int bytes = k == 1;
        halve_columns(bytes ? work->from : NULL, a->from, a->w, a->h, work->rows);
        halve_rows(work->rows, a->w, (a->h + 1) / 2, work->level[k].from);
        halve_columns(bytes ? work->to : NULL, a->to, a->w, a->h, work->rows);
        halve_rows(work->rows, a->w, (a->h + 1) / 2, work->level[k].to);
    }
    long cw = 0, ch = 0;
    for (long k = work->levels - 1; k >= work->p.finest; k--) {
        const int has_coarse = k < work->levels - 1;
        if (has_coarse) {
            // The finer level's field is computed into `u`, `v`: the coarser one moves aside first.
            memcpy(work->coarse_u, work->u, (size_t)(cw * ch) * sizeof(float));
            memcpy(work->coarse_v, work->v, (size_t)(cw * ch) * sizeof(float));
        }
        flow_level(work, k, cw, ch, has_coarse);
        cw = work->level[k].w;
        ch = work->level[k].h;
    }
    const float scale = (float)(1L << work->p.finest);
    for (long p = 0; p < cw * ch; p++) {
        work->out_u[p] = work->u[p] * scale;
        work->out_v[p] = work->v[p] * scale;
    }
}
static void flow_run(struct flow_work *work);
CK_DISPATCH(flow_run, (struct flow_work * work), (work))

/// Adds `count` items of `size` bytes (rounded up to a 64-byte line) to `*total`; nonzero on overflow.
static int reserve(long *total, long count, long size, long *offset) {
    long bytes;
    if (mul_checked(count, size, &bytes) || __builtin_add_overflow(bytes, 63L, &bytes)) return 1;
    bytes &= ~63L;
    *offset = *total;
    return __builtin_add_overflow(*total, bytes, total);
}

/// Where each buffer of a flow's scratch lies (byte offsets from its start, each on a 64-byte line), and its size.
struct flow_layout {
    long levels;
    long sizes[CK_FLOW_MAX_LEVELS][2];
    long offsets[2 * CK_FLOW_MAX_LEVELS];
    long o_gx, o_gy, o_pad, o_u, o_v, o_cu, o_cv, o_w, o_pu, o_pv, o_ps, o_t, o_rows;
    long o_r, o_rp, o_rc, rpadded, rplane, rstride, rcolour;
    long total;
};

/// Plans the scratch of a flow between `width` x `height` frames, after checking the sizes and parameters.
static int flow_layout(long width, long height, const ck_flow_params *params, struct flow_layout *L) {
    *L = (struct flow_layout){0};
    int status = plan_levels(width, height, params, &L->levels, L->sizes);
    if (status != CK_FLOW_OK) return status;
    const long finest = params->finest, F = (long)sizeof(float);
    long pixels, fine;
    // Sides are at most CK_FLOW_MAX_SIDE, so these products fit; checked all the same.
    if (mul_checked(width, height, &pixels) || mul_checked(L->sizes[finest][0], L->sizes[finest][1], &fine))
        return CK_FLOW_ESIZE;
    // One block: the pyramids (level 0 as floats only when it is searched), then the working planes sized for
    // the finest level searched.
    long total = 0;
    int overflow = 0;
    for (long k = finest > 0 ? 1 : 0; k < L->levels; k++) {
        long n;
        overflow |= mul_checked(L->sizes[k][0], L->sizes[k][1], &n);
        overflow |= reserve(&total, n, F, &L->offsets[2 * k]) | reserve(&total, n, F, &L->offsets[2 * k + 1]);
    }
    const long fw = L->sizes[finest][0], fh = L->sizes[finest][1], P = params->patch, S = params->stride;
    long padded, patches, halving, coarse;
    overflow |= mul_checked(fw + 2 * BORDER, fh + 2 * BORDER, &padded);
    overflow |= mul_checked(patch_count(fw, P, S), patch_count(fh, P, S), &patches);
    overflow |= mul_checked(width, (height + 1) / 2, &halving);
    overflow |= mul_checked((fw + 1) / 2, (fh + 1) / 2, &coarse);
    overflow |= reserve(&total, fine, F, &L->o_gx) | reserve(&total, fine, F, &L->o_gy) | reserve(&total, padded, F, &L->o_pad);
    overflow |= reserve(&total, fine, F, &L->o_u) | reserve(&total, fine, F, &L->o_v) | reserve(&total, fine, F, &L->o_w);
    overflow |= reserve(&total, coarse, F, &L->o_cu) | reserve(&total, coarse, F, &L->o_cv);
    overflow |= reserve(&total, patches, F, &L->o_pu) | reserve(&total, patches, F, &L->o_pv);
    overflow |= reserve(&total, patches, F, &L->o_ps) | reserve(&total, patches, (long)sizeof(struct patch_template), &L->o_t);
    overflow |= reserve(&total, halving, F, &L->o_rows);
    // The refinement: 17 planes of the finest level, and 6 with `fw + 16` floats of zeros either side.
    L->rstride = (fw + 1) / 2 + 16;
    if (params->refinement > 0) {
        long planes, padded_planes, colour_planes;
        overflow |= __builtin_add_overflow(fine, 2 * (fw + 16), &L->rpadded);
        overflow |= __builtin_add_overflow(fine, 16L, &L->rplane);
        overflow |= mul_checked(L->rstride, fh + 2, &L->rcolour);
        overflow |= mul_checked(L->rplane, 17, &planes) | mul_checked(L->rpadded, 6, &padded_planes);
        overflow |= mul_checked(L->rcolour, 18, &colour_planes);
        overflow |= reserve(&total, planes, F, &L->o_r) | reserve(&total, padded_planes, F, &L->o_rp);
        overflow |= reserve(&total, colour_planes, F, &L->o_rc);
    }
    if (overflow) return CK_FLOW_ESIZE;
    L->total = total;
    return CK_FLOW_OK;
}

int ck_flow_scratch_size(long width, long height, const ck_flow_params *params, long *bytes) {
    if (!params || !bytes) return CK_FLOW_EINVAL;
    struct flow_layout L;
    int status = flow_layout(width, height, params, &L);
    if (status != CK_FLOW_OK) return status;
    *bytes = L.total;
    return CK_FLOW_OK;
}

int ck_flow(const uint8_t *from, const uint8_t *to, long count, long width, long height, const ck_flow_params *params,
            float *u, float *v, long capacity) {
    if (!from || !to || !u || !v || !params || count <= 0 || capacity <= 0) return CK_FLOW_EINVAL;
    long bytes;
    int status = ck_flow_scratch_size(width, height, params, &bytes);
    if (status != CK_FLOW_OK) return status;
    void *block = aligned_alloc(64, (size_t)bytes);
    if (!block) return CK_FLOW_ENOMEM;
    status = ck_flow_with_scratch(from, to, count, width, height, params, u, v, capacity, block, bytes);
    free(block);
    return status;
}

int ck_flow_with_scratch(const uint8_t *from, const uint8_t *to, long count, long width, long height,
                         const ck_flow_params *params, float *u, float *v, long capacity, void *scratch,
                         long scratch_bytes) {
    if (!from || !to || !u || !v || !params || !scratch || count <= 0 || capacity <= 0) return CK_FLOW_EINVAL;
    if (((uintptr_t)scratch & 63) != 0) return CK_FLOW_EINVAL;
    struct flow_work work = {0};
    struct flow_layout L;
    int status = flow_layout(width, height, params, &L);
    if (status != CK_FLOW_OK) return status;
    work.levels = L.levels;
    work.p = *params;
    const long finest = params->finest;
    const long fw = L.sizes[finest][0];
    if (count < width * height || capacity < L.sizes[finest][0] * L.sizes[finest][1] || scratch_bytes < L.total)
        return CK_FLOW_ECAPACITY;
    char *block = (char *)scratch;
    struct refinement refinement;
    for (long k = 0; k < work.levels; k++) {
        const int floats = k > 0 || finest == 0;
        work.level[k] = (struct level){.w = L.sizes[k][0], .h = L.sizes[k][1],
                                       .from = floats ? (float *)(block + L.offsets[2 * k]) : NULL,
                                       .to = floats ? (float *)(block + L.offsets[2 * k + 1]) : NULL};
    }
    work.from = from;
    work.to = to;
    work.gx = (float *)(block + L.o_gx);
    work.gy = (float *)(block + L.o_gy);
    work.padded = (float *)(block + L.o_pad);
    work.u = (float *)(block + L.o_u);
    work.v = (float *)(block + L.o_v);
    work.weight = (float *)(block + L.o_w);
    work.coarse_u = (float *)(block + L.o_cu);
    work.coarse_v = (float *)(block + L.o_cv);
    work.patch_u = (float *)(block + L.o_pu);
    work.patch_v = (float *)(block + L.o_pv);
    work.patch_ssd = (float *)(block + L.o_ps);
    work.templates = (struct patch_template *)(block + L.o_t);
    work.rows = (float *)(block + L.o_rows);
    if (params->refinement > 0) {
        const long rpadded = L.rpadded, rplane = L.rplane, rstride = L.rstride, rcolour = L.rcolour;
        float *plane = (float *)(block + L.o_r), *padded_plane = (float *)(block + L.o_rp);
        // The padding must read as zeros (weights) and finite values (what they weigh): a reused scratch holds the
        // last flow's values.
        memset(padded_plane, 0, (size_t)(6 * rpadded) * sizeof(float));
        memset(plane, 0, (size_t)(17 * rplane) * sizeof(float));
        float **planes[] = {&refinement.ix, &refinement.iy, &refinement.iz, &refinement.n0, &refinement.ixx,
                            &refinement.ixy, &refinement.iyy, &refinement.ixz, &refinement.iyz, &refinement.n1,
                            &refinement.n2, &refinement.inv11, &refinement.inv22, &refinement.a12, &refinement.b1,
                            &refinement.b2, &refinement.smooth};
        for (int i = 0; i < 17; i++) *planes[i] = plane + i * rplane;
        float **padded_planes[] = {&refinement.u, &refinement.v, &refinement.du, &refinement.dv, &refinement.wx,
                                   &refinement.wy};
        for (int i = 0; i < 6; i++) *padded_planes[i] = padded_plane + i * rpadded + fw + 16;
        float *colour_plane = (float *)(block + L.o_rc);
        memset(colour_plane, 0, (size_t)(18 * rcolour) * sizeof(float));
        for (int c = 0; c < 2; c++) {
            struct checkerboard *B = &refinement.colour[c];
            float **colour_planes[] = {&B->du, &B->dv, &B->wx, &B->wy, &B->a12, &B->b1, &B->b2, &B->inv11, &B->inv22};
            // Row 0 after the row of zeros above, pixel 0 after the zero before it.
            for (int i = 0; i < 9; i++) *colour_planes[i] = colour_plane + (9 * c + i) * rcolour + rstride + 1;
        }
        refinement.stride = rstride;
        work.refinement = &refinement;
    }
    work.out_u = u;
    work.out_v = v;
    flow_run(&work);
    return CK_FLOW_OK;
}

// MARK: - Fields

/// The checks of a field's description; its grid's `columns` and `rows`.
static int field_grid(const ck_flow_field *f, long *columns, long *rows) {
    if (!f || !f->u || !f->v || !f->r || f->width <= 0 || f->height <= 0 || f->step < 1 || f->step > 64 ||
        f->count <= 0)
        return CK_FLOW_EINVAL;
    if (f->width > CK_FLOW_MAX_SIDE || f->height > CK_FLOW_MAX_SIDE) return CK_FLOW_ESIZE;
    const long c = (f->width + f->step - 1) / f->step, r = (f->height + f->step - 1) / f->step;
    long cells;
    if (mul_checked(c, r, &cells)) return CK_FLOW_ESIZE;
    if (f->count < cells) return CK_FLOW_ECAPACITY;
    *columns = c;
    *rows = r;
    return CK_FLOW_OK;
}

/// A field's grid and where it is sampled from.
struct grid {
    const float *u, *v, *r;
    long columns, rows;
    float inverse_step;
};

CK_INLINE struct grid grid_of(const ck_flow_field *f, long columns, long rows) {
    return (struct grid){.u = f->u, .v = f->v, .r = f->r, .columns = columns, .rows = rows,
                         .inverse_step = 1.0f / (float)f->step};
}

/// The field bilinearly at frame point (x, y), clamped to the grid.
CK_INLINE void grid_sample(const struct grid *g, float x, float y, float *u, float *v, float *r) {
    const float gx = clampf(x * g->inverse_step, 0, (float)(g->columns - 1));
    const float gy = clampf(y * g->inverse_step, 0, (float)(g->rows - 1));
    const long x0 = (long)gx, y0 = (long)gy;
    const long x1 = x0 + 1 < g->columns ? x0 + 1 : x0, y1 = y0 + 1 < g->rows ? y0 + 1 : y0;
    const float fx = gx - (float)x0, fy = gy - (float)y0;
    const long a = y0 * g->columns + x0, b = y0 * g->columns + x1, c = y1 * g->columns + x0, d = y1 * g->columns + x1;
    *u = ck_lerp(ck_lerp(g->u[a], g->u[b], fx), ck_lerp(g->u[c], g->u[d], fx), fy);
    *v = ck_lerp(ck_lerp(g->v[a], g->v[b], fx), ck_lerp(g->v[c], g->v[d], fx), fy);
    if (r) *r = ck_lerp(ck_lerp(g->r[a], g->r[b], fx), ck_lerp(g->r[c], g->r[d], fx), fy);
}

/// Whether (x, y) lies on a `width` x `height` frame: within half a pixel of its pixels' centres.
CK_INLINE int inside(float x, float y, long width, long height) {
    return x >= -0.5f && y >= -0.5f && x <= (float)width - 0.5f && y <= (float)height - 0.5f;
}

CK_INLINE void compose_body(const struct grid *ab, long step, long width, long height, const struct grid *bc,
                            float *out_u, float *out_v, float *out_r) {
    for (long i = 0; i < ab->rows; i++) {
        for (long j = 0; j < ab->columns; j++) {
            const long cell = i * ab->columns + j;
            const float x = (float)(j * step), y = (float)(i * step), u = ab->u[cell], v = ab->v[cell];
            float nu, nv, nr;
            grid_sample(bc, x + u, y + v, &nu, &nv, &nr);
            out_u[cell] = u + nu;
            out_v[cell] = v + nv;
            out_r[cell] = inside(x + u, y + v, width, height) ? ab->r[cell] * nr : 0;
        }
    }
}
static void compose(const struct grid *ab, long step, long width, long height, const struct grid *bc, float *out_u,
                    float *out_v, float *out_r);
CK_DISPATCH(compose,
            (const struct grid *ab, long step, long width, long height, const struct grid *bc, float *out_u,
             float *out_v, float *out_r),
            (ab, step, width, height, bc, out_u, out_v, out_r))

/// The checks common to a pair of fields: both valid, of one frame size, and `capacity` enough for the first's cells.
static int pair_grids(const ck_flow_field *a, const ck_flow_field *b, long capacity, long ca[2], long cb[2]) {
    int status = field_grid(a, &ca[0], &ca[1]);
    if (status != CK_FLOW_OK) return status;
    status = field_grid(b, &cb[0], &cb[1]);
    if (status != CK_FLOW_OK) return status;
    if (a->width != b->width || a->height != b->height) return CK_FLOW_EMISMATCH;
    if (capacity < ca[0] * ca[1]) return CK_FLOW_ECAPACITY;
    return CK_FLOW_OK;
}

int ck_flow_compose(const ck_flow_field *ab, const ck_flow_field *bc, float *u, float *v, float *r, long capacity) {
    long ca[2], cb[2];
    if (!u || !v || !r) return CK_FLOW_EINVAL;
    const int status = pair_grids(ab, bc, capacity, ca, cb);
    if (status != CK_FLOW_OK) return status;
    const struct grid gab = grid_of(ab, ca[0], ca[1]), gbc = grid_of(bc, cb[0], cb[1]);
    compose(&gab, ab->step, ab->width, ab->height, &gbc, u, v, r);
    return CK_FLOW_OK;
}

CK_INLINE void check_body(const struct grid *f, long step, long width, long height, const struct grid *b,
                          float relative, float absolute, float *out_r) {
    for (long i = 0; i < f->rows; i++) {
        for (long j = 0; j < f->columns; j++) {
            const long cell = i * f->columns + j;
            const float x = (float)(j * step), y = (float)(i * step), u = f->u[cell], v = f->v[cell];
            float bu, bv;
            grid_sample(b, x + u, y + v, &bu, &bv, NULL);
            const float su = u + bu, sv = v + bv;
            const float mismatch = su * su + sv * sv, magnitude = u * u + v * v + bu * bu + bv * bv;
            const int consistent = inside(x + u, y + v, width, height) && mismatch <= relative * magnitude + absolute;
            out_r[cell] = consistent ? f->r[cell] : 0;
        }
    }
}
static void check(const struct grid *f, long step, long width, long height, const struct grid *b, float relative,
                  float absolute, float *out_r);
CK_DISPATCH(check,
            (const struct grid *f, long step, long width, long height, const struct grid *b, float relative,
             float absolute, float *out_r),
            (f, step, width, height, b, relative, absolute, out_r))

int ck_flow_check(const ck_flow_field *forward, const ck_flow_field *backward, float relative, float absolute,
                  float *r, long capacity) {
    long cf[2], cb[2];
    if (!r || !(relative >= 0) || !(absolute >= 0)) return CK_FLOW_EINVAL;
    const int status = pair_grids(forward, backward, capacity, cf, cb);
    if (status != CK_FLOW_OK) return status;
    const struct grid gf = grid_of(forward, cf[0], cf[1]), gb = grid_of(backward, cb[0], cb[1]);
    check(&gf, forward->step, forward->width, forward->height, &gb, relative, absolute, r);
    return CK_FLOW_OK;
}

/// Where each column of the frame falls on the grid (the two cells it lies between and its weight), and one row's
/// worth of working values.
struct warp_taps {
    int32_t *x0, *x1;
    float *fx;
    /// The field's three planes blended down to the row being warped (a cell each).
    float *u, *v, *r;
    /// Per pixel of the row: its reliability; then where it samples the mask (the top-left tap's index and the two
    /// weights), or -1 where it leaves the frame.
    float *rel, *ax, *ay;
    int32_t *at;
};

/// The backward warp of the mask by the field, a row at a time in four passes, so that the arithmetic runs eight
/// pixels at a time and only the gathers (of the field's cells and the mask's pixels) one at a time.
CK_INLINE void warp_body(const struct grid *g, long width, long height, const uint8_t *mask, uint8_t *out,
                         uint8_t *reliability, const struct warp_taps *t) {
    // Locals, not the structs' fields: a store through a pointer could otherwise be a store to them.
    const int32_t *restrict x0s = t->x0, *restrict x1s = t->x1;
    const float *restrict fxs = t->fx;
    float *restrict ru = t->u, *restrict rv = t->v, *restrict rr = t->r, *restrict rel = t->rel;
    float *restrict axs = t->ax, *restrict ays = t->ay;
    int32_t *restrict at = t->at;
    const uint8_t *restrict m = mask;
    const long columns = g->columns;
    const float right = (float)width - 0.5f, bottom = (float)height - 0.5f;
    // The right and lower taps' offsets (none in a frame one pixel wide or high).
    const int32_t dx = width > 1 ? 1 : 0, dy = height > 1 ? (int32_t)width : 0;
    for (long y = 0; y < height; y++) {
        // The field down to this row (the vertical half of its bilinear sampling).
        const float gy = clampf((float)y * g->inverse_step, 0, (float)(g->rows - 1));
        const long y0 = (long)gy, y1 = y0 + 1 < g->rows ? y0 + 1 : y0;
        const float fy = gy - (float)y0;
        const float *restrict u0 = g->u + y0 * columns, *restrict u1 = g->u + y1 * columns;
        const float *restrict v0 = g->v + y0 * columns, *restrict v1 = g->v + y1 * columns;
        const float *restrict r0 = g->r + y0 * columns, *restrict r1 = g->r + y1 * columns;
        for (long c = 0; c < columns; c++) {
            ru[c] = ck_lerp(u0[c], u1[c], fy);
            rv[c] = ck_lerp(v0[c], v1[c], fy);
            rr[c] = ck_lerp(r0[c], r1[c], fy);
        }
        // Along the row: each pixel's vector (the horizontal half), then where it lands.
        for (long x = 0; x < width; x++) {
            const int32_t a = x0s[x], b = x1s[x];
            const float fx = fxs[x];
            axs[x] = ck_lerp(ru[a], ru[b], fx);
            ays[x] = ck_lerp(rv[a], rv[b], fx);
            rel[x] = ck_lerp(rr[a], rr[b], fx);
        }
        // A point on the last column or row takes its left or upper neighbour as the first tap, with all the weight
        // on the second, so that both taps are on the frame (the same value).
        const float lastx = (float)(width - 1), lasty = (float)(height - 1);
        const float topx = (float)(width > 1 ? width - 2 : 0), topy = (float)(height > 1 ? height - 2 : 0);
        for (long x = 0; x < width; x++) {
            const float qx = (float)x + axs[x], qy = (float)y + ays[x];
            const int on = qx >= -0.5f && qy >= -0.5f && qx <= right && qy <= bottom;
            const float cx = qx < 0 ? 0 : qx > lastx ? lastx : qx, cy = qy < 0 ? 0 : qy > lasty ? lasty : qy;
            const float fx0 = floorf(cx) < topx ? floorf(cx) : topx, fy0 = floorf(cy) < topy ? floorf(cy) : topy;
            axs[x] = cx - fx0;
            ays[x] = cy - fy0;
            at[x] = on ? (int32_t)fy0 * (int32_t)width + (int32_t)fx0 : -1;
        }
        uint8_t *restrict o = out + y * width, *restrict q = reliability + y * width;
        for (long x = 0; x < width; x++) {
            const int32_t i = at[x];
            if (i < 0) {
                o[x] = 0;
                q[x] = 0;
                continue;
            }
            const float top = ck_lerp((float)m[i], (float)m[i + dx], axs[x]);
            const float low = ck_lerp((float)m[i + dy], (float)m[i + dy + dx], axs[x]);
            o[x] = (uint8_t)(clampf(ck_lerp(top, low, ays[x]), 0, 255) + 0.5f);
            q[x] = (uint8_t)(clampf(rel[x], 0, 1) * 255 + 0.5f);
        }
    }
}
static void warp(const struct grid *g, long width, long height, const uint8_t *mask, uint8_t *out,
                 uint8_t *reliability, const struct warp_taps *t);
CK_DISPATCH(warp,
            (const struct grid *g, long width, long height, const uint8_t *mask, uint8_t *out, uint8_t *reliability,
             const struct warp_taps *t),
            (g, width, height, mask, out, reliability, t))

int ck_flow_warp(const ck_flow_field *field, const uint8_t *mask, long count, uint8_t *out, uint8_t *reliability,
                 long capacity) {
    long columns, rows, pixels;
    if (!mask || !out || !reliability) return CK_FLOW_EINVAL;
    const int status = field_grid(field, &columns, &rows);
    if (status != CK_FLOW_OK) return status;
    if (mul_checked(field->width, field->height, &pixels)) return CK_FLOW_ESIZE;
    if (count <= 0) return CK_FLOW_EINVAL;
    if (count < pixels || capacity < pixels) return CK_FLOW_ECAPACITY;
    // Sides are at most CK_FLOW_MAX_SIDE: the taps and a row's working values are small.
    const long width = field->width;
    char *block = malloc((size_t)(7 * width + 3 * columns) * 4);
    if (!block) return CK_FLOW_ENOMEM;
    struct warp_taps taps = {.x0 = (int32_t *)block, .x1 = (int32_t *)block + width};
    taps.fx = (float *)(taps.x1 + width);
    taps.u = taps.fx + width;
    taps.v = taps.u + columns;
    taps.r = taps.v + columns;
    taps.rel = taps.r + columns;
    taps.ax = taps.rel + width;
    taps.ay = taps.ax + width;
    taps.at = (int32_t *)(taps.ay + width);
    const struct grid g = grid_of(field, columns, rows);
    for (long x = 0; x < width; x++) {
        const float gx = clampf((float)x * g.inverse_step, 0, (float)(columns - 1));
        taps.x0[x] = (int32_t)gx;
        taps.x1[x] = taps.x0[x] + 1 < columns ? taps.x0[x] + 1 : taps.x0[x];
        taps.fx[x] = gx - (float)taps.x0[x];
    }
    warp(&g, width, field->height, mask, out, reliability, &taps);
    free(block);
    return CK_FLOW_OK;
}
