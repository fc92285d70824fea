#include "ck_common.h"
#include <string.h>

// The vector helpers below are always inlined, so no vector crosses a call and the ABI note clang gives for
// passing eight floats by value without AVX does not apply.
#pragma clang diagnostic ignored "-Wpsabi"

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

/// Eight tiles' values, one per lane (GCC/Clang vector extensions: one ymm register with AVX2 or AVX-512, two
/// xmm registers on the baseline).
typedef float v8 __attribute__((vector_size(32)));
typedef int v8i __attribute__((vector_size(32)));

CK_INLINE v8 load8(const float *p) {
    v8 x;
    memcpy(&x, p, sizeof x);
    return x;
}

CK_INLINE void store8(float *p, v8 x) { memcpy(p, &x, sizeof x); }

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

/// Output row `j` of a tile row into `line`: column `i` of block `b` is row `i` of the four at `c`.
CK_INLINE void output_line(const float *restrict c0, const float *restrict c1, const float *restrict c2,
                           const float *restrict c3, long width, float *restrict line) {
    const long whole = width / 4;
    for (long b = 0; b < whole; b++) {
        line[4 * b] = c0[b];
        line[4 * b + 1] = c1[b];
        line[4 * b + 2] = c2[b];
        line[4 * b + 3] = c3[b];
    }
    const float *const columns[4] = {c0, c1, c2, c3};
#pragma clang loop vectorize(disable)
    for (long x = 4 * whole; x < width; x++) line[x] = columns[x - 4 * whole][whole];
}

CK_INLINE void ck_winograd_output_body(const float *m, long stride, long tiles, long tileRow, float bias, int relu,
                                       float *scratch, float *plane, long height, long width) {
    output_tiles(m, stride, tiles, bias, relu, scratch);
    const long y0 = 4 * tileRow;
    for (long j = 0; j < 4 && y0 + j < height; j++) {
        const float *c = scratch + 4 * j * tiles;
        output_line(c, c + tiles, c + 2 * tiles, c + 3 * tiles, width, plane + (y0 + j) * width);
    }
}
CK_DISPATCH(ck_winograd_output,
            (const float *m, long stride, long tiles, long tileRow, float bias, int relu, float *scratch, float *plane,
             long height, long width),
            (m, stride, tiles, tileRow, bias, relu, scratch, plane, height, width))
