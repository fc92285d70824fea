#ifndef CKERNELS_H
#define CKERNELS_H

#include <stdint.h>

/// The innermost pixel loops of the inference engine and the sticker's maps, in C for one reason: a C function can be compiled once per
/// instruction set and chosen at run time (AVX-512, AVX2, baseline x86-64: `CK_DISPATCH` in ck_common.h), which
/// Swift cannot do per function. Swift code is compiled for the baseline the worker ships for (SSE2), so the same
/// loops written in Swift run at a quarter of this machine's vector width.
///
/// Every variant performs the same IEEE operations in the same order (no FMA contraction: -ffp-contract=off), so
/// a map is bit for bit the same on every CPU (InferenceTests run a pass at every level this CPU has).

/// The instruction-set levels every kernel is compiled for.
#define CK_BASELINE 0
#define CK_AVX2 1
#define CK_AVX512 2

/// The highest level this CPU runs (x86-64-v4 for AVX-512, x86-64-v3 for AVX2 and FMA).
int ck_supported_level(void);

/// Makes every kernel run at `level` (clamped to what this CPU supports) from the next call on, and returns the
/// level chosen. Until it is called, kernels run at ``ck_supported_level``. For tests and benchmarks.
int ck_use_level(int level);

/// The level kernels run at now (read on every kernel call, so a switch takes effect at the next one).
int ck_current_level(void);

/// Winograd F(6x6, 3x3) input transform `Bᵀ d B` of one tile row of one channel.
/// - `sources`: the tile row's eight input rows, `width` floats each (a row of zeros for rows outside the image).
/// - `rows`: scratch of `8 * padded` floats, zero before the first call (only entries 1 ... width of each row are
///   written, so the column left of the image and those right of it read zero); `padded >= 6 * tiles + 16` (the
///   transform reads eight tiles' 64 entries at a time, or sixteen tiles' 112 when sixteen are left).
/// - `v`: position `p` (0 ..< 64) of tile `b` (0 ..< tiles) is written to `v[p * stride + b]`; `tiles` is a
///   multiple of eight (the transform makes eight at a time, sixteen at the AVX-512 level while sixteen are left).
/// - The source rows eight to thirteen below the first are prefetched (the next tile row's): harmless past a plane.
void ck_winograd_input(const float *const sources[8], long width, long tiles, float *rows, long padded, float *v,
                       long stride);

/// Winograd F(6x6, 3x3) products and output transform of a band of `tileRows` tile rows (`tilesX` tiles each, a
/// multiple of eight): at each of the 64 positions `M = U · V` (``ck_gemm``'s arithmetic), then `Aᵀ M A` plus the
/// channel's bias (then ReLU when `relu`), written into rows `6 * firstTileRow ...` of the `k` output planes `out`
/// (`height x width` each) where they fall inside them.
/// - `u`: the 64 matrices `U` (`k x c`), each packed by ``ck_gemm_pack`` (``ck_gemm_packed_count`` floats apart).
/// - `v`: position `p`, channel `ci`, tile `b` of tile row `r` at `v[(p * c + ci) * bandTiles + r * tilesX + b]`.
/// - `scratch`: `64 * 16 * k` floats (M of 16 tiles).
/// - `add`: nonzero adds the result to what `out` holds (a residual connection computed in place: each element is
///   read before it is written, and `result + residual` is the sum the network's own addition computes).
void ck_winograd_multiply(const float *u, long k, long c, const float *v, long bandTiles, long tilesX, long tileRows,
                          long firstTileRow, const float *bias, int relu, int add, float *scratch, float *out,
                          long height, long width);

/// Rows of A per tile: 6 rows by 16 columns is 12 accumulators, which with two B vectors and a broadcast fills the
/// 16 ymm registers AVX2 has (the register tile of the Haswell-class SGEMM kernels). At the AVX-512 level the
/// product takes two blocks at a time: 12 rows of one zmm each.
#define CK_GEMM_ROWS 6

/// `C = A · B` (or `C += A · B` when `accumulate`), row-major: A is `m x depth`, packed by ``ck_gemm_pack``
/// (`block` floats between its blocks of `CK_GEMM_ROWS` rows: `CK_GEMM_ROWS * depth` for a whole packed matrix;
/// columns `p0 ..< p0 + depth` of a packed matrix of depth `d` are `a + CK_GEMM_ROWS * p0` with `block`
/// `CK_GEMM_ROWS * d`); B is `depth x n` (row stride `ldb`), C is `m x n` (`ldc`). Every element of `A · B` is
/// summed from zero in the order of the depth, each product rounded before it is added, so it does not depend on the
/// level, the blocking or where the element falls; with `accumulate` the sum is then added to C. For the engine's
/// small matrices (a few dozen rows, depths of a few dozen to a few hundred): B is read in place and C written once
/// (no packing of B, no separate pass to scale C).
void ck_gemm(long m, long n, long depth, const float *a, long block, const float *b, long ldb, float *c, long ldc,
             int accumulate);

/// The floats ``ck_gemm_pack`` writes for an `m x depth` matrix.
long ck_gemm_packed_count(long m, long depth);

/// A (`m x depth`, row stride `lda`) in the order ``ck_gemm`` reads it: blocks of `CK_GEMM_ROWS` rows, each column
/// of a block contiguous (a last, shorter block padded with zeros).
void ck_gemm_pack(long m, long depth, const float *a, long lda, float *packed);

/// One row resampled along x: `out[i] = a + (b - a) * weight[i]`, `a = row[first[i]]`, `b = row[second[i]]`.
void ck_bilinear_row(const float *row, const long *first, const long *second, const float *weight, long count,
                     float *out);

/// One row of `source` samples doubled along x (`2 * source` outputs), for taps that are exactly the doubling's
/// with half-pixel centres: outputs `2j + 1` and `2j + 2` blend samples `j` and `j + 1` by 0.25 and 0.75; the first
/// is sample 0 blended with sample 1 by 0, the last the last sample blended with itself by 0. The same arithmetic
/// as ``ck_bilinear_row`` with those taps, without gathering.
void ck_bilinear_row_doubled(const float *row, long source, float *out);

/// Two rows blended: `out[i] = a[i] + (b[i] - a[i]) * weight`.
void ck_bilinear_blend(const float *a, const float *b, float weight, long count, float *out);

/// `out[i] = a[i] + b[i]`; `out` may be `a` or `b` (not a partial overlap).
void ck_add(const float *a, const float *b, long count, float *out);

/// 2x2 max pooling, stride 2, ceil mode, of one `height x width` plane into `out` (`(height + 1) / 2` by
/// `(width + 1) / 2`): an odd last row or column pools what it has. The maximum is Swift's `max(x, y)`,
/// `y >= x ? y : x`.
void ck_max_pool_2x2(const float *plane, long height, long width, float *out);

/// Rows `first ..< last` of the horizontal pass of a separable convolution of `src` (`width` floats a row) with the
/// `2r + 1` taps `k`, edges clamped: each output summed from zero in the order of the taps.
void ck_blur_rows(const float *src, long width, long first, long last, const float *k, long r, float *out);

/// Rows `first ..< last` of the vertical pass (`src` `height` rows of `width`), the same way.
void ck_blur_columns(const float *src, long width, long height, long first, long last, const float *k, long r,
                     float *out);

/// The mean of `v` (`height x width`) over the (2r+1)² window round each pixel, clipped to the image, from a
/// summed-area table in double precision (`sat`: scratch of `(width + 1) * (height + 1)` doubles). `out` may be `v`.
void ck_box_mean(const float *v, long width, long height, long r, double *sat, float *out);
/// The minimum-barrier distance's raster scans (forward, backward, forward, backward) of eight channels at once:
/// `v`, `u`, `l` hold eight floats a pixel, a channel a lane; `u` and `l` start as `v` on the border and as the
/// largest float and its negative inside. A pixel's distance is `u - l` (the border's 0; +inf where no path
/// reached it): for finite channels, each lane's the one-channel scans' floats (`SaliencyMap.barrierDistance`).
void ck_barrier_scans(const float *v, long width, long height, float *u, float *l);

/// The guided filter's fit (He, Sun & Tang's colour guide): for each of `count` pixels, from the box means
/// `mean` = {I_r, I_g, I_b, p} and `corr` = {rr, rg, rb, gg, gb, bb, I_r·p, I_g·p, I_b·p}, the coefficients
/// `a` = {a_r, a_g, a_b} and `b` of q = a·I + b, with Σ + εU solved in double precision (a = 0, b = mean p where
/// it is singular). `a` and `b` may be the first four of `mean`'s planes (each pixel is read before it is written).
void ck_guided_fit(long count, const float *const *mean, const float *const *corr, float epsilon, float *const *a,
                   float *b);

/// One full-resolution row of the guided mask: the coefficient planes {a_r, a_g, a_b, b} (working size, rows
/// `row0` and `row1` offsets into them) enlarged bilinearly (column taps `x0`, `x1`, `wx`; row weight `wy`) and
/// applied to the row's RGBA colours: 255 where b + (a·rgb)·scale >= level, else 0.
void ck_guided_mask_row(const float *const *planes, long row0, long row1, float wy, const long *x0, const long *x1,
                        const float *wx, const uint8_t *rgba, long count, float scale, float level, uint8_t *out);

#endif
