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

/// Dense optical flow by Dense Inverse Search (Kroeger, Timofte, Dai & Van Gool, ECCV 2016) between two 8-bit luma
/// planes, in ck_flow.c. Every function below validates its sizes (overflow-checked), writes only into buffers whose
/// capacity it was given, and returns one of these codes; nothing runs on another thread, and the same inputs give
/// the same floats at every instruction-set level.
#define CK_FLOW_OK 0
/// A null pointer, a size or count that is zero or negative, or a parameter outside its range.
#define CK_FLOW_EINVAL (-1)
/// A frame too small for one patch at the finest level, or too large (a side over ``CK_FLOW_MAX_SIDE``).
#define CK_FLOW_ESIZE (-2)
/// An output buffer smaller than the result (or an input shorter than its sizes say).
#define CK_FLOW_ECAPACITY (-3)
/// Scratch memory could not be allocated.
#define CK_FLOW_ENOMEM (-4)
/// Two fields that describe frames of different sizes.
#define CK_FLOW_EMISMATCH (-5)

/// The longest side a frame may have: coordinates up to it and a pixel's fraction stay exact in a float.
#define CK_FLOW_MAX_SIDE 16384
/// Levels the pyramid may have (the input and up to eleven halvings).
#define CK_FLOW_MAX_LEVELS 12

/// How ``ck_flow`` searches. ``ck_flow_default_params`` fills in the values the rest of this comment names.
typedef struct ck_flow_params {
    /// Side of a square patch: 8 or 16 (8).
    long patch;
    /// Pixels between neighbouring patches of the grid, 1 ... `patch` (4: each pixel is covered by about four patches).
    long stride;
    /// Gauss-Newton steps per patch at most, 1 ... 64 (12); a patch stops earlier when its residual stops falling.
    long iterations;
    /// The pyramid level the field is computed at and returned for: 0 the input size, 1 half, 2 a quarter (1).
    long finest;
    /// The coarsest level searched is the smallest whose shorter side is still at least this, `patch` ... 4096 (16).
    long coarsest_side;
    /// Fixed-point iterations of the variational refinement of the finest level's field, 0 ... 16 (3; 0 = none),
    /// of five red-black relaxation sweeps each.
    long refinement;
} ck_flow_params;

/// The default parameters (about DIS's fast operating point, its variational refinement at the finest level only).
void ck_flow_default_params(ck_flow_params *params);

/// The size of the field ``ck_flow`` returns for a `width` x `height` frame: `columns = ceil(width / 2^finest)`,
/// `rows` likewise (the sizes of the pyramid's level `finest`, each level half the one above, rounded up).
/// Returns CK_FLOW_OK, or CK_FLOW_EINVAL / CK_FLOW_ESIZE as ``ck_flow`` would for these sizes and parameters.
int ck_flow_field_size(long width, long height, const ck_flow_params *params, long *columns, long *rows);

/// The flow from `from` to `to`, two `width` x `height` luma planes (`count` bytes each, at least
/// `width * height`, row-major without padding): `from(p) ≈ to(p + F(p))`.
///
/// Coarse to fine over a pyramid (halvings by the 5-tap binomial filter, level `k`'s pixel `j` over the input's
/// pixel `j · 2^k`; the coarsest level the smallest with a shorter side of `coarsest_side`): at each level,
/// `patch` x `patch` patches on a grid `stride` apart start from the coarser level's field at their centre (zero at
/// the coarsest) or from a neighbouring patch's vector where that fits clearly better (OpenCV's spatial
/// propagation, a pass each way), and are refined by inverse-compositional Lucas-Kanade on mean-normalised
/// intensities; a patch keeps the vector of least residual it visited, or its start when that moved further than
/// `patch` pixels. Each pixel's flow is then the mean of the vectors of the patches over it, weighted by
/// `1 / max(1, |to(x + u) - from(x)|)` (the paper's densification). At the finest level the field is then refined
/// variationally (`refinement`; Brox et al.'s energy with OpenCV's weights: brightness and gradient constancy and a
/// robust smoothness term), which fills in what flat patches could not tell and lets the motion vary within a patch.
///
/// Writes the field at level `finest` (``ck_flow_field_size``'s `columns` x `rows`, row-major) into `u` and `v`
/// (`capacity` floats each), in input pixels: cell `(i, j)` is the motion of input pixel `(j · 2^finest,
/// i · 2^finest)`. Allocates its scratch (``ck_flow_scratch_size``: about 12 floats per input pixel at `finest` 1, 4
/// without the refinement; four times that at `finest` 0) and frees it before returning.
int ck_flow(const uint8_t *from, const uint8_t *to, long count, long width, long height, const ck_flow_params *params,
            float *u, float *v, long capacity);

/// The bytes of scratch ``ck_flow_with_scratch`` needs for `width` x `height` frames with `params`, in `*bytes`.
/// Returns CK_FLOW_OK, or CK_FLOW_EINVAL / CK_FLOW_ESIZE as ``ck_flow`` would.
int ck_flow_scratch_size(long width, long height, const ck_flow_params *params, long *bytes);

/// ``ck_flow`` in a scratch the caller keeps (`scratch_bytes` bytes at a 64-byte-aligned `scratch`, at least
/// ``ck_flow_scratch_size``'s; its contents before and after mean nothing), so a clip's flows fault no fresh pages in.
/// Returns what ``ck_flow`` returns, CK_FLOW_ECAPACITY for a scratch too small, CK_FLOW_EINVAL for one misaligned.
int ck_flow_with_scratch(const uint8_t *from, const uint8_t *to, long count, long width, long height,
                         const ck_flow_params *params, float *u, float *v, long capacity, void *scratch,
                         long scratch_bytes);

/// A flow field as ``ck_flow`` returns it, with a reliability per cell: the motion of a `width` x `height` frame
/// on a grid `step` (1 ... 64) pixels apart (`columns = ceil(width / step)`, `rows = ceil(height / step)`; cell
/// `(i, j)` is pixel `(j · step, i · step)`), in frame pixels. `u`, `v` and `r` hold `count` floats each, at least
/// `columns * rows`. Between cells a field is sampled bilinearly, beyond the last cell the last one's value holds.
typedef struct ck_flow_field {
    long width, height, step, count;
    const float *u, *v, *r;
} ck_flow_field;

/// The composition of `ab` (the flow from frame a to frame b) with `bc` (from b to c), on `ab`'s grid:
/// `F_ac(p) = F_ab(p) + F_bc(p + F_ab(p))`, with reliability `r_ab(p) · r_bc(p + F_ab(p))`, and 0 where
/// `p + F_ab(p)` lies outside frame b (further than half a pixel beyond its edge pixels). Writes `ab`'s
/// `columns * rows` cells into `u`, `v`, `r` (`capacity` floats each). The fields' frames must be the same size.
int ck_flow_compose(const ck_flow_field *ab, const ck_flow_field *bc, float *u, float *v, float *r, long capacity);

/// Forward-backward consistency (Sundaram, Brox & Keutzer, ECCV 2010): writes into `r` (`capacity` floats, `forward`'s
/// cells) `forward`'s reliability, or 0 where `q = p + F(p)` leaves the frame or
/// `|F(p) + B(q)|² > relative · (|F(p)|² + |B(q)|²) + absolute`, with `B = backward` sampled at `q`.
int ck_flow_check(const ck_flow_field *forward, const ck_flow_field *backward, float relative, float absolute,
                  float *r, long capacity);

/// The backward warp of a `field.width` x `field.height` 8-bit `mask` (`count` bytes, at least a frame's pixels) by
/// the field: `out(p) = mask(p + F(p))`, bilinear and rounded, and `reliability(p) = round(255 · r(p))`; both 0
/// where `p + F(p)` lies outside the frame. Writes a frame's pixels into `out` and `reliability` (`capacity` bytes
/// each). Allocates a few rows' worth of scratch and frees it before returning (CK_FLOW_ENOMEM when it cannot).
int ck_flow_warp(const ck_flow_field *field, const uint8_t *mask, long count, uint8_t *out, uint8_t *reliability,
                 long capacity);

#endif
