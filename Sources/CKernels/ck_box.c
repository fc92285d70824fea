#include "ck_common.h"

/// One output row's means over columns `first ..< last`, whose windows are never clipped along x
/// (x - r >= 0 and x + r + 1 <= width): contiguous reads, one area.
CK_INLINE void box_row_interior(const double *restrict top, const double *restrict bottom, long first, long last,
                                long r, double area, float *restrict out) {
    for (long x = first; x < last; x++) {
        const double s = bottom[x + r + 1] - top[x + r + 1] - bottom[x - r] + top[x - r];
        out[x] = (float)(s / area);
    }
}

/// Columns `first ..< last` of one output row, each window clipped to the image.
CK_INLINE void box_row_clipped(const double *restrict top, const double *restrict bottom, long first, long last,
                               long width, long r, long rows, float *restrict out) {
#pragma clang loop vectorize(disable)
    for (long x = first; x < last; x++) {
        const long x0 = x - r > 0 ? x - r : 0, x1 = x + r + 1 < width ? x + r + 1 : width;
        const double s = bottom[x1] - top[x1] - bottom[x0] + top[x0];
        out[x] = (float)(s / (double)(rows * (x1 - x0)));
    }
}

CK_INLINE void ck_box_mean_body(const float *v, long width, long height, long r, double *restrict sat, float *out) {
    // `v` may be `out`: it is read only to fill the table, before any output is written.
    const long stride = width + 1;
    for (long x = 0; x <= width; x++) sat[x] = 0;
    // Each row's running sums first, into its row of the table: eight rows at a time, so eight independent
    // chains of additions run side by side (one row's chain is bound by the latency of an addition).
    long y = 0;
    for (; y + 8 <= height; y += 8) {
        double sum[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        for (long x = 0; x < width; x++) {
            for (int k = 0; k < 8; k++) {
                sum[k] += (double)v[(y + k) * width + x];
                sat[(y + k + 1) * stride + x + 1] = sum[k];
            }
        }
    }
    for (; y < height; y++) {
        double sum = 0;
        for (long x = 0; x < width; x++) {
            sum += (double)v[y * width + x];
            sat[(y + 1) * stride + x + 1] = sum;
        }
    }
    // Then each row adds the table's row above (contiguous): the same two terms as summing row by row.
    for (y = 0; y < height; y++) {
        double *row = sat + (y + 1) * stride;
        const double *above = row - stride;
        row[0] = 0;
        for (long x = 1; x <= width; x++) row[x] = above[x] + row[x];
    }
    // Columns whose window fits inside the image along x: first ..< last; the clipped ones either side.
    const long first = r < width ? r : width, last = width - r > first ? width - r : first;
    for (long y = 0; y < height; y++) {
        const long y0 = y - r > 0 ? y - r : 0, y1 = y + r + 1 < height ? y + r + 1 : height;
        const double *top = sat + y0 * stride, *bottom = sat + y1 * stride;
        float *line = out + y * width;
        box_row_clipped(top, bottom, 0, first, width, r, y1 - y0, line);
        box_row_interior(top, bottom, first, last, r, (double)((y1 - y0) * (2 * r + 1)), line);
        box_row_clipped(top, bottom, last, width, width, r, y1 - y0, line);
    }
}
CK_DISPATCH(ck_box_mean, (const float *v, long width, long height, long r, double *sat, float *out),
            (v, width, height, r, sat, out))
