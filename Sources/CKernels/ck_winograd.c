#include "ck_gemm_tile.h"

/// `Bᵀ x` for eight values (a column of a tile, then a row of the result): F(6x6, 3x3) at the points 0, ±1, ±1/2,
/// ±2 and infinity. Every coefficient is exact in binary. One body for a value and for eight or sixteen tiles'
/// values (`T` `float`, `v8` or `v16`), so all compute the same floats.
#define CK_INPUT_TRANSFORM(name, T)                                                                                 \
    CK_INLINE void name(T x0, T x1, T x2, T x3, T x4, T x5, T x6, T x7, T y[8]) {                                   \
        y[0] = x0 - x6 + 5.25f * (x4 - x2);                                                                         \
        y[7] = x7 - x1 + 5.25f * (x3 - x5);                                                                         \
        const T t1 = x2 + x6 - 4.25f * x4, t2 = x1 + x5 - 4.25f * x3;                                               \
        y[1] = t1 + t2;                                                                                             \
        y[2] = t1 - t2;                                                                                             \
        const T t3 = 0.25f * x2 - 1.25f * x4 + x6, t4 = 0.5f * x1 - 2.5f * x3 + 2 * x5;                             \
        y[3] = t3 + t4;                                                                                             \
        y[4] = t3 - t4;                                                                                             \
        const T t5 = 4 * x2 - 5 * x4 + x6, t6 = 2 * x1 - 2.5f * x3 + 0.5f * x5;                                     \
        y[5] = t5 + t6;                                                                                             \
        y[6] = t5 - t6;                                                                                             \
    }
CK_INPUT_TRANSFORM(input_transform, float)
CK_INPUT_TRANSFORM(input_transform8, v8)
CK_INPUT_TRANSFORM(input_transform16, v16)

/// `Bᵀ d` on whole source rows (contiguous): eight transformed rows, each starting one entry into its row of
/// `rows` (`padded` floats apart). Sixteen columns at a time, then the rest one by one (the sources end at `width`).
CK_INLINE void input_rows(const float *const s[8], long width, float *restrict t, long padded) {
    const float *restrict s0 = s[0], *restrict s1 = s[1], *restrict s2 = s[2], *restrict s3 = s[3];
    const float *restrict s4 = s[4], *restrict s5 = s[5], *restrict s6 = s[6], *restrict s7 = s[7];
    long j = 0;
    for (; j + 16 <= width; j += 16) {
        // The next tile row's six new source rows (the rows below the last one when the plane is stored whole):
        // rows of 64-320 floats are too short for the hardware's stream prefetch to start on (2% of a pass at
        // 320). An address past the plane is harmless: a prefetch never faults, so it is formed as an integer.
        const __UINTPTR_TYPE__ last = (__UINTPTR_TYPE__)(s7 + j), rowBytes = sizeof(float) * (unsigned long)width;
        for (unsigned long k = 1; k <= 6; k++) __builtin_prefetch((const void *)(last + k * rowBytes));
        v16 y[8];
        input_transform16(load16(s0 + j), load16(s1 + j), load16(s2 + j), load16(s3 + j), load16(s4 + j),
                          load16(s5 + j), load16(s6 + j), load16(s7 + j), y);
        for (int i = 0; i < 8; i++) store16(t + i * padded + j, y[i]);
    }
    for (; j < width; j++) {
        float y[8];
        input_transform(s0[j], s1[j], s2[j], s3[j], s4[j], s5[j], s6[j], s7[j], y);
        for (int i = 0; i < 8; i++) t[i * padded + j] = y[i];
    }
}

/// `f(k, 0, w), ..., f(k, w - 1, w)`: the constant lane indices of a shuffle, for `w` 8 or 16.
#define CK_SEQ8(f, k, w) f(k, 0, w), f(k, 1, w), f(k, 2, w), f(k, 3, w), f(k, 4, w), f(k, 5, w), f(k, 6, w), f(k, 7, w)
#define CK_SEQ16(f, k, w) CK_SEQ8(f, k, w), f(k, 8, w), f(k, 9, w), f(k, 10, w), f(k, 11, w), f(k, 12, w), \
    f(k, 13, w), f(k, 14, w), f(k, 15, w)

/// Lane `b` of the result is `x[q + 6b]` (b = 0 ..< 8), for `x` the 64 floats of `lo0, lo1, hi0, hi1`: the
/// entries below 32 picked from the first pair, the rest from the second, then the two blended.
#define CK_SIXTH_LO(q, b, w) ((q) + 6 * (b) < 32 ? (q) + 6 * (b) : -1)
#define CK_SIXTH_HI(q, b, w) ((q) + 6 * (b) >= 32 ? (q) + 6 * (b) - 32 : -1)
#define CK_SIXTH_FROM(q, b, w) ((q) + 6 * (b) < 32 ? (b) : 8 + (b))
#define CK_EVERY_SIXTH(q, lo0, lo1, hi0, hi1)                                                                       \
    __builtin_shufflevector(__builtin_shufflevector(lo0, lo1, CK_SEQ8(CK_SIXTH_LO, q, 8)),                          \
                            __builtin_shufflevector(hi0, hi1, CK_SEQ8(CK_SIXTH_HI, q, 8)), CK_SEQ8(CK_SIXTH_FROM, q, 8))

/// The indices that concatenate two vectors of `w` lanes.
#define CK_INDEX(k, e, w) ((k) * (w) + (e))
#define CK_PAIR(w) CK_SEQ##w(CK_INDEX, 0, w), CK_SEQ##w(CK_INDEX, 1, w)
/// Lanes 0-7 of `a` then lanes 0-7 of `b`.
#define CK_CONCAT8(a, b) __builtin_shufflevector(a, b, CK_PAIR(8))

/// `· B` along one transformed row: tile `b` reads `r[6b ... 6b + 7]` and writes its eight values `stride` floats
/// apart; one tile per lane, sixteen at a time at the AVX-512 level (where a vector has sixteen lanes), then eight
/// (`tiles` is a multiple of eight; the row is read up to `r[6 * tiles + 15]`).
CK_INLINE void input_columns(const int level, const float *restrict r, long tiles, float *restrict o, long stride) {
    long b = 0;
    if (level == CK_AVX512) {
        for (; b + 16 <= tiles; b += 16) {
            const float *x = r + 6 * b;
            const v16 l0 = load16(x), l1 = load16(x + 16), m0 = load16(x + 32), m1 = load16(x + 48);
            const v16 h0 = load16(x + 64), h1 = load16(x + 80), h2 = load16(x + 96);
#define CK_SIXTEEN(q) CK_CONCAT8(CK_EVERY_SIXTH(q, l0, l1, m0, m1), CK_EVERY_SIXTH(q, m1, h0, h1, h2))
            v16 y[8];
            input_transform16(CK_SIXTEEN(0), CK_SIXTEEN(1), CK_SIXTEEN(2), CK_SIXTEEN(3), CK_SIXTEEN(4),
                              CK_SIXTEEN(5), CK_SIXTEEN(6), CK_SIXTEEN(7), y);
#undef CK_SIXTEEN
            for (int i = 0; i < 8; i++) store16(o + i * stride + b, y[i]);
        }
    }
    for (; b < tiles; b += 8) {
        const float *x = r + 6 * b;
        const v16 l0 = load16(x), l1 = load16(x + 16), h0 = load16(x + 32), h1 = load16(x + 48);
        v8 y[8];
        input_transform8(CK_EVERY_SIXTH(0, l0, l1, h0, h1), CK_EVERY_SIXTH(1, l0, l1, h0, h1),
                         CK_EVERY_SIXTH(2, l0, l1, h0, h1), CK_EVERY_SIXTH(3, l0, l1, h0, h1),
                         CK_EVERY_SIXTH(4, l0, l1, h0, h1), CK_EVERY_SIXTH(5, l0, l1, h0, h1),
                         CK_EVERY_SIXTH(6, l0, l1, h0, h1), CK_EVERY_SIXTH(7, l0, l1, h0, h1), y);
        for (int i = 0; i < 8; i++) store8(o + i * stride + b, y[i]);
    }
}

CK_INLINE void ck_winograd_input_body(const int level, const float *const sources[8], long width, long tiles,
                                      float *rows, long padded, float *v, long stride) {
    input_rows(sources, width, rows + 1, padded);
    for (long i = 0; i < 8; i++) input_columns(level, rows + i * padded, tiles, v + 8 * i * stride, stride);
}
CK_DISPATCH_LEVEL(ck_winograd_input,
            (const float *const sources[8], long width, long tiles, float *rows, long padded, float *v, long stride),
            (sources, width, tiles, rows, padded, v, stride))

/// Eight and sixteen tiles' values, one per lane (`v8`, `v16`: ck_gemm_tile.h), and their bits.
typedef int v8i __attribute__((vector_size(32)));
typedef int v16i __attribute__((vector_size(64)));

/// Entry `e` of chunk `k` of `w` tiles' six interleaved outputs (tile `b`'s six in a row) is output `pos % 6` of
/// tile `pos / 6`, `pos = w·k + e`; outputs 0-3 are picked from `y0 ... y3` (two pairs), 4-5 from `y4, y5`.
#define CK_POS(k, e, w) ((w) * (k) + (e))
#define CK_FROM03(k, e, w) (CK_POS(k, e, w) % 6 < 4 ? CK_POS(k, e, w) % 6 * (w) + CK_POS(k, e, w) / 6 : -1)
#define CK_FROM45(k, e, w) (CK_POS(k, e, w) % 6 >= 4 ? (CK_POS(k, e, w) % 6 - 4) * (w) + CK_POS(k, e, w) / 6 : -1)
#define CK_WHICH(k, e, w) (CK_POS(k, e, w) % 6 < 4 ? (e) : (w) + (e))
#define CK_CHUNK(k, w, p01, p23, p45)                                                                               \
    __builtin_shufflevector(__builtin_shufflevector(p01, p23, CK_SEQ##w(CK_FROM03, k, w)),                          \
                            __builtin_shufflevector(p45, p45, CK_SEQ##w(CK_FROM45, k, w)), CK_SEQ##w(CK_WHICH, k, w))

/// `Aᵀ M A` of `w` tiles at a time (one per lane of `V`), plus the bias (then ReLU), into the rows `y0 ...` of the
/// plane from column `x0`: each output row of the `w` tiles interleaved (tile `b`'s six values in a row) by
/// shuffles, then stored straight into the plane when all `w` tiles fall inside it, otherwise copied as far as it
/// reaches (the plane's right edge).
#define CK_OUTPUT_TILES(name, V, VI, w, load, store)                                                                \
    CK_INLINE void name##_column(const V m[8], V y[6]) {                                                            \
        const V plus12 = m[1] + m[2], minus12 = m[1] - m[2];                                                        \
        const V plus34 = m[3] + m[4], minus34 = m[3] - m[4];                                                        \
        const V plus56 = m[5] + m[6], minus56 = m[5] - m[6];                                                        \
        y[0] = m[0] + plus12 + plus34 + plus56;                                                                     \
        y[1] = minus12 + 2 * minus34 + 0.5f * minus56;                                                              \
        y[2] = plus12 + 4 * plus34 + 0.25f * plus56;                                                                \
        y[3] = minus12 + 8 * minus34 + 0.125f * minus56;                                                            \
        y[4] = plus12 + 16 * plus34 + 0.0625f * plus56;                                                             \
        y[5] = minus12 + 32 * minus34 + 0.03125f * minus56 + m[7];                                                  \
    }                                                                                                               \
    /* Row j of the w tiles' outputs, biased (then ReLU), interleaved into 6w floats at `out`. */                 \
    CK_INLINE void name##_row(const V s[8][6], int j, float bias, int relu, int add,                                \
                              float *restrict out) {                                                           \
        V row[8], y[6];                                                                                             \
        for (int col = 0; col < 8; col++) row[col] = s[col][j];                                                     \
        name##_column(row, y);                                                                                      \
        for (int i = 0; i < 6; i++) {                                                                               \
            y[i] = y[i] + bias;                                                                                     \
            /* ReLU as the Swift engine did it: only lanes below zero become zero (NaN and -0 stay). */             \
            if (relu) y[i] = (V)((VI)y[i] & ~(VI)(y[i] < 0));                                                       \
        }                                                                                                           \
        const __typeof__(__builtin_shufflevector(y[0], y[1], CK_PAIR(w))) p01 =                                     \
            __builtin_shufflevector(y[0], y[1], CK_PAIR(w)),                                                        \
            p23 = __builtin_shufflevector(y[2], y[3], CK_PAIR(w)),                                                  \
            p45 = __builtin_shufflevector(y[4], y[5], CK_PAIR(w));                                                  \
        V chunks[6] = {CK_CHUNK(0, w, p01, p23, p45), CK_CHUNK(1, w, p01, p23, p45), CK_CHUNK(2, w, p01, p23, p45),   \
                       CK_CHUNK(3, w, p01, p23, p45), CK_CHUNK(4, w, p01, p23, p45), CK_CHUNK(5, w, p01, p23, p45)};  \
        /* A residual connection: the result plus what `out` holds (the residual, read before it is written). */   \
        if (add)                                                                                                    \
            for (int i = 0; i < 6; i++) chunks[i] = chunks[i] + load(out + i * (w));                                \
        for (int i = 0; i < 6; i++) store(out + i * (w), chunks[i]);                                                \
    }                                                                                                               \
    CK_INLINE void name(const float *restrict m, long stride, float bias, int relu, int add, float *restrict plane, \
                        long y0, long x0, long height, long width) {                                                \
        V s[8][6];                                                                                                  \
        for (int col = 0; col < 8; col++) {                                                                         \
            V column[8];                                                                                            \
            for (int i = 0; i < 8; i++) column[i] = load(m + (8 * i + col) * stride);                               \
            name##_column(column, s[col]);                                                                          \
        }                                                                                                           \
        if (x0 + 6 * (w) <= width) {                                                                                \
            for (int j = 0; j < 6 && y0 + j < height; j++)                                                          \
                name##_row(s, j, bias, relu, add, plane + (y0 + j) * width + x0);                                   \
            return;                                                                                                 \
        }                                                                                                           \
        for (int j = 0; j < 6 && y0 + j < height; j++) {                                                            \
            float line[6 * (w)];                                                                                    \
            name##_row(s, j, bias, relu, 0, line);                                                                  \
            float *dst = plane + (y0 + j) * width + x0;                                                             \
            if (add)                                                                                                \
                for (long i = 0; i < width - x0; i++) dst[i] = line[i] + dst[i];                                    \
            else                                                                                                    \
                memcpy(dst, line, sizeof(float) * (width - x0));                                                    \
        }                                                                                                           \
    }
CK_OUTPUT_TILES(output_tiles8, v8, v8i, 8, load8, store8)
CK_OUTPUT_TILES(output_tiles16, v16, v16i, 16, load16, store16)

CK_INLINE void ck_winograd_multiply_body(const int level, const float *u, long k, long c, const float *v,
                                         long bandTiles, long tilesX, long tileRows, long firstTileRow,
                                         const float *bias, int relu, int add, float *scratch, float *out,
                                         long height, long width) {
    const long block = CK_GEMM_ROWS * c, packed = ck_gemm_packed_count(k, c);
    // M of a strip channel-major (channel, position, tile): the output transform reads a channel's 64 positions
    // from 4 KB in a row (position-major, a 64-channel strip put them 4 KB apart, all in one set of L1).
    const long stride = c * bandTiles, channelStride = 64 * 16;
    float *m = scratch;
    for (long r = 0; r < tileRows; r++) {
        const long y0 = 6 * (firstTileRow + r);
        // Strips of 16 tiles (8 at the end of a row): each position's V (c x 16) stays in L1 while every block of
        // output channels reads it, and the strip's M (k x 64 x 16) stays in L2 from the products to the output
        // transform.
        for (long b0 = 0; b0 < tilesX && 6 * b0 < width; b0 += 16) {
            const long count = tilesX - b0 >= 16 ? 16 : 8;
            const float *vs = v + r * tilesX + b0;
            for (long p = 0; p < 64; p++) {
                gemm_panel(level, k, count == 16, c, u + p * packed, block, vs + p * stride, bandTiles, m + p * 16,
                           channelStride, 0);
            }
            // Sixteen tiles in one vector at the AVX-512 level (elsewhere their 48 vectors of partial results
            // would take twice the registers there are), otherwise eight at a time.
            for (long ki = 0; ki < k; ki++) {
                float *plane = out + ki * height * width;
                if (level == CK_AVX512 && count == 16) {
                    output_tiles16(m + ki * channelStride, 16, bias[ki], relu, add, plane, y0, 6 * b0, height, width);
                    continue;
                }
                for (long b = 0; b < count && 6 * (b0 + b) < width; b += 8) {
                    output_tiles8(m + ki * channelStride + b, 16, bias[ki], relu, add, plane, y0, 6 * (b0 + b), height,
                                  width);
                }
            }
        }
    }
}
CK_DISPATCH_LEVEL(ck_winograd_multiply,
                  (const float *u, long k, long c, const float *v, long bandTiles, long tilesX, long tileRows,
                   long firstTileRow, const float *bias, int relu, int add, float *scratch, float *out, long height,
                   long width),
                  (u, k, c, v, bandTiles, tilesX, tileRows, firstTileRow, bias, relu, add, scratch, out, height, width))
