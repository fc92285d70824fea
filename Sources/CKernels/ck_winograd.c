#include "ck_gemm_tile.h"

/// `Bᵀ x` for six values (a column of a tile, then a row of the result).
CK_INLINE void input_transform(float x0, float x1, float x2, float x3, float x4, float x5, float y[6]) {
    y[0] = 4 * x0 - 5 * x2 + x4;
    y[1] = x4 + x3 - 4 * (x1 + x2);
    y[2] = x4 - x3 + 4 * (x1 - x2);
    y[3] = x4 - x2 + 2 * (x3 - x1);
    y[4] = x4 - x2 - 2 * (x3 - x1);
    y[5] = 4 * x1 - 5 * x3 + x5;
}

/// `Bᵀ d` on whole source rows (contiguous): six transformed rows, each starting one entry into its row of `rows`.
CK_INLINE void input_rows(const float *restrict s0, const float *restrict s1, const float *restrict s2,
                          const float *restrict s3, const float *restrict s4, const float *restrict s5, long width,
                          float *restrict t0, float *restrict t1, float *restrict t2, float *restrict t3,
                          float *restrict t4, float *restrict t5) {
    for (long j = 0; j < width; j++) {
        float y[6];
        input_transform(s0[j], s1[j], s2[j], s3[j], s4[j], s5[j], y);
        t0[j] = y[0]; t1[j] = y[1]; t2[j] = y[2]; t3[j] = y[3]; t4[j] = y[4]; t5[j] = y[5];
    }
}

/// `· B` along one transformed row: tile `b` reads `r[4b ... 4b + 5]` (one vector lane per tile).
CK_INLINE void input_columns(const float *restrict r, long tiles, float *restrict o0, float *restrict o1,
                             float *restrict o2, float *restrict o3, float *restrict o4, float *restrict o5) {
    for (long b = 0; b < tiles; b++) {
        float y[6];
        input_transform(r[4 * b], r[4 * b + 1], r[4 * b + 2], r[4 * b + 3], r[4 * b + 4], r[4 * b + 5], y);
        o0[b] = y[0]; o1[b] = y[1]; o2[b] = y[2]; o3[b] = y[3]; o4[b] = y[4]; o5[b] = y[5];
    }
}

CK_INLINE void ck_winograd_input_body(const float *const sources[6], long width, long tiles, float *rows, long padded,
                                      float *v, long stride) {
    float *t = rows + 1;
    input_rows(sources[0], sources[1], sources[2], sources[3], sources[4], sources[5], width, t, t + padded,
               t + 2 * padded, t + 3 * padded, t + 4 * padded, t + 5 * padded);
    for (long i = 0; i < 6; i++) {
        float *o = v + 6 * i * stride;
        input_columns(rows + i * padded, tiles, o, o + stride, o + 2 * stride, o + 3 * stride, o + 4 * stride,
                      o + 5 * stride);
    }
}
CK_DISPATCH(ck_winograd_input,
            (const float *const sources[6], long width, long tiles, float *rows, long padded, float *v, long stride),
            (sources, width, tiles, rows, padded, v, stride))

/// Eight tiles' values, one per lane (`v8`, ck_gemm_tile.h), and their bits.
typedef int v8i __attribute__((vector_size(32)));

/// `Aᵀ m` for six values: the four outputs.
CK_INLINE void output_column(v8 m0, v8 m1, v8 m2, v8 m3, v8 m4, v8 m5, v8 y[4]) {
    const v8 plus = m1 + m2, minus = m1 - m2, plus34 = m3 + m4, minus34 = m3 - m4;
    y[0] = m0 + plus + plus34;
    y[1] = minus + 2 * minus34;
    y[2] = plus + 4 * plus34;
    y[3] = minus + 8 * minus34 + m5;
}

/// `Aᵀ M A` of every tile, eight tiles at a time (`tiles` is a multiple of eight), into sixteen rows of `tiles`
/// (output row j, column i at row 4j + i).
CK_INLINE void output_tiles(const float *restrict m, long stride, long tiles, float bias, int relu,
                            float *restrict out) {
    for (long b = 0; b < tiles; b += 8) {
        v8 s[6][4];
        for (int col = 0; col < 6; col++) {
            output_column(load8(m + col * stride + b), load8(m + (6 + col) * stride + b),
                          load8(m + (12 + col) * stride + b), load8(m + (18 + col) * stride + b),
                          load8(m + (24 + col) * stride + b), load8(m + (30 + col) * stride + b), s[col]);
        }
        for (int j = 0; j < 4; j++) {
            v8 y[4];
            output_column(s[0][j], s[1][j], s[2][j], s[3][j], s[4][j], s[5][j], y);
            for (int i = 0; i < 4; i++) {
                v8 value = y[i] + bias;
                // ReLU as the Swift engine did it: only lanes below zero become zero (NaN and -0 stay).
                if (relu) value = (v8)((v8i)value & ~(v8i)(value < 0));
                store8(out + (4 * j + i) * tiles + b, value);
            }
        }
    }
}

/// The outputs of `count` tiles (8 or 16) starting at column `x0` of rows `y0 ...` of `plane`, from their M (position
/// `p` of tile `b` at `m[p * stride + b]`), where they fall inside the plane. `scratch`: `16 * count` floats.
CK_INLINE void output_strip(const float *restrict m, long stride, long count, float bias, int relu,
                            float *restrict scratch, float *restrict plane, long y0, long x0, long height, long width) {
    output_tiles(m, stride, count, bias, relu, scratch);
    long whole = (width - x0) / 4;
    if (whole > count) whole = count;
    for (long j = 0; j < 4 && y0 + j < height; j++) {
        float *line = plane + (y0 + j) * width + x0;
        const float *c0 = scratch + 4 * j * count, *c1 = c0 + count, *c2 = c1 + count, *c3 = c2 + count;
        for (long b = 0; b < whole; b++) {
            line[4 * b] = c0[b];
            line[4 * b + 1] = c1[b];
            line[4 * b + 2] = c2[b];
            line[4 * b + 3] = c3[b];
        }
        if (whole < count) {
            const float *const columns[4] = {c0, c1, c2, c3};
#pragma clang loop vectorize(disable)
            for (long x = 4 * whole; x0 + x < width; x++) line[x] = columns[x - 4 * whole][whole];
        }
    }
}

CK_INLINE void ck_winograd_multiply_body(const int level, const float *u, long k, long c, const float *v, long bandTiles, long tilesX,
                                         long tileRows, long firstTileRow, const float *bias, int relu,
                                         float *scratch, float *out, long height, long width) {
    const long block = CK_GEMM_ROWS * c, packed = ck_gemm_packed_count(k, c);
    // M of a strip channel-major (channel, position, tile): the output transform reads a channel's 36 positions
    // from 2.3 KB in a row (position-major, a 64-channel strip put them 4 KB apart, all in one set of L1).
    const long stride = c * bandTiles, channelStride = 36 * 16;
    float *m = scratch, *rows = scratch + k * channelStride;
    for (long r = 0; r < tileRows; r++) {
        const long y0 = 4 * (firstTileRow + r);
        // Strips of 16 tiles (8 at the end of a row): each position's V (c x 16) stays in L1 while every block of
        // output channels reads it, and the strip's M (k x 36 x 16) stays in L2 from the products to the output
        // transform.
        for (long b0 = 0; b0 < tilesX && 4 * b0 < width; b0 += 16) {
            const long count = tilesX - b0 >= 16 ? 16 : 8;
            const float *vs = v + r * tilesX + b0;
            for (long p = 0; p < 36; p++) {
                gemm_panel(level, k, count == 16, c, u + p * packed, block, vs + p * stride, bandTiles, m + p * 16,
                           channelStride, 0);
            }
            for (long ki = 0; ki < k; ki++) {
                output_strip(m + ki * channelStride, 16, count, bias[ki], relu, rows, out + ki * height * width, y0,
                             4 * b0, height, width);
            }
        }
    }
}
CK_DISPATCH_LEVEL(ck_winograd_multiply,
            (const float *u, long k, long c, const float *v, long bandTiles, long tilesX, long tileRows,
             long firstTileRow, const float *bias, int relu, float *scratch, float *out, long height, long width),
            (u, k, c, v, bandTiles, tilesX, tileRows, firstTileRow, bias, relu, scratch, out, height, width))
