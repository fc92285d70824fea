/* PNG encoding: rows filtered as libpng does by default (each row with the filter whose output has the least sum
 * of absolute values), compressed into one zlib stream, written as IHDR, IDAT and IEND; no ancillary chunks.
 *
 * Images whose filtered rows fit in CC_PNG_WHOLE_MAX are compressed at once by libdeflate (about three times zlib's
 * speed at the same level, and slightly smaller); libdeflate has no streaming interface, so larger ones are
 * streamed through zlib row by row, which holds a row and a chunk rather than two copies of the image.
 *
 * The whole path also comes in pieces a caller can run on several threads (cc_png_filter_rows, cc_png_deflate_segment,
 * cc_png_assemble): bands of rows filtered apart, the filtered bytes compressed in segments of one deflate stream.
 * libdeflate cannot flush, so a segment that is not the last is made joinable afterwards: its blocks are walked with
 * zlib's inflate to find its final block, whose BFINAL bit is cleared, and an empty stored block after it ends the
 * segment on a byte (what zlib's Z_SYNC_FLUSH writes). */
#include "CCodecs.h"
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* CC_PNG_WHOLE_MAX (CCodecs.h): filtered bytes compressed at once with libdeflate (a 1400x1400 RGBA sticker); the
 * transient memory is about twice this. */

/* IDAT chunk size when streaming. */
#define CC_PNG_STREAM_CHUNK ((size_t)1 << 16)

typedef struct cc_png_out {
    uint8_t *data;
    size_t length;
    size_t capacity;
} cc_png_out;

/* Room for `more` bytes after `length`; 0 when out of memory. */
static int cc_png_reserve(cc_png_out *out, size_t more) {
    if (more > SIZE_MAX - out->length) return 0;
    if (out->length + more <= out->capacity) return 1;
    size_t capacity = out->capacity ? out->capacity : 65536;
    while (capacity < out->length + more) {
        if (capacity > SIZE_MAX / 2) return 0;
        capacity *= 2;
    }
    uint8_t *grown = realloc(out->data, capacity);
    if (grown == NULL) return 0;
    out->data = grown;
    out->capacity = capacity;
    return 1;
}

static void cc_put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* Completes the chunk whose `length` data bytes are already in place 8 bytes past `out->length`: its length, type
 * and CRC. Room must have been reserved. */
static void cc_png_close_chunk(cc_png_out *out, const char type[4], size_t length) {
    uint8_t *p = out->data + out->length;
    cc_put32(p, (uint32_t)length);
    memcpy(p + 4, type, 4);
    cc_put32(p + 8 + length, libdeflate_crc32(0, p + 4, length + 4));
    out->length += length + 12;
}

/* Appends a chunk with `length` bytes of `data`; 0 when out of memory. */
static int cc_png_chunk(cc_png_out *out, const char type[4], const uint8_t *data, size_t length) {
    if (!cc_png_reserve(out, length + 12)) return 0;
    if (length > 0) memcpy(out->data + out->length + 8, data, length);
    cc_png_close_chunk(out, type, length);
    return 1;
}

/* The signature and IHDR chunk, into `out` with at least 33 bytes reserved. */
static void cc_png_write_start(cc_png_out *out, uint32_t width, uint32_t height, int out_channels) {
    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    memcpy(out->data, signature, 8);
    out->length = 8;
    uint8_t header[13];
    cc_put32(header, width);
    cc_put32(header + 4, height);
    header[8] = 8;                                                /* bit depth */
    header[9] = out_channels == 1 ? 0 : out_channels == 3 ? 2 : 6; /* grey, RGB, RGBA */
    header[10] = header[11] = header[12] = 0;                     /* deflate, adaptive filtering, no interlace */
    cc_png_chunk(out, "IHDR", header, 13);
}

static inline uint8_t cc_paeth(uint8_t a, uint8_t b, uint8_t c) {
    int p = (int)a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

static inline uint32_t cc_cost(uint8_t v) { return v < 128 ? v : 256u - v; }

/* Filter `type` of `row` (`n` bytes, `bpp` per pixel) against `up` into `out`; returns the sum of absolute values. */
static uint32_t cc_png_filter(int type, const uint8_t *restrict row, const uint8_t *restrict up, size_t n, int bpp,
                              uint8_t *restrict out) {
    uint32_t sum = 0;
    size_t i = 0;
    switch (type) {
    case 0:
        for (; i < n; i++) { out[i] = row[i]; sum += cc_cost(out[i]); }
        break;
    case 1:
        for (; i < (size_t)bpp && i < n; i++) { out[i] = row[i]; sum += cc_cost(out[i]); }
        for (; i < n; i++) { out[i] = (uint8_t)(row[i] - row[i - bpp]); sum += cc_cost(out[i]); }
        break;
    case 2:
        for (; i < n; i++) { out[i] = (uint8_t)(row[i] - up[i]); sum += cc_cost(out[i]); }
        break;
    case 3:
        for (; i < (size_t)bpp && i < n; i++) { out[i] = (uint8_t)(row[i] - (up[i] >> 1)); sum += cc_cost(out[i]); }
        for (; i < n; i++) {
            out[i] = (uint8_t)(row[i] - (uint8_t)(((unsigned)row[i - bpp] + up[i]) >> 1));
            sum += cc_cost(out[i]);
        }
        break;
    default:
        for (; i < (size_t)bpp && i < n; i++) { out[i] = (uint8_t)(row[i] - up[i]); sum += cc_cost(out[i]); }
        for (; i < n; i++) {
            out[i] = (uint8_t)(row[i] - cc_paeth(row[i - bpp], up[i], up[i - bpp]));
            sum += cc_cost(out[i]);
        }
        break;
    }
    return sum;
}

/* Rows in output layout, filtered one at a time. */
typedef struct cc_png_rows {
    const uint8_t *pixels;
    uint32_t width;
    int in_channels, out_channels;
    size_t row_bytes;
    uint8_t *previous, *current, *candidates; /* row_bytes each; candidates one per filter type */
} cc_png_rows;

/* Row `y` as a filter type byte and the filtered bytes, into `line` (row_bytes + 1); returns the filtered bytes'
 * sum of absolute values. Rows must come in order. */
static uint32_t cc_png_filter_row(cc_png_rows *r, uint32_t y, uint8_t *line) {
    const uint8_t *source = r->pixels + (size_t)y * r->width * (size_t)r->in_channels;
    const uint8_t *row = source;
    if (r->in_channels == 4 && r->out_channels == 3) {
        for (uint32_t x = 0; x < r->width; x++) memcpy(r->current + 3 * (size_t)x, source + 4 * (size_t)x, 3);
        row = r->current;
    }
    uint32_t best_cost = UINT32_MAX;
    int best = 0;
    for (int type = 0; type < 5; type++) {
        uint32_t cost = cc_png_filter(type, row, r->previous, r->row_bytes, r->out_channels,
                                      r->candidates + type * r->row_bytes);
        if (cost < best_cost) { best_cost = cost; best = type; }
    }
    line[0] = (uint8_t)best;
    memcpy(line + 1, r->candidates + best * r->row_bytes, r->row_bytes);
    memcpy(r->previous, row, r->row_bytes);
    return best_cost;
}

/* Every row filtered into one buffer and compressed at once by libdeflate, straight into the IDAT chunk(s). */
static int cc_png_write_whole(cc_png_rows *rows, uint32_t height, int level, cc_png_out *out, cc_cancel_check check) {
    const size_t line = rows->row_bytes + 1, size = line * height;
    int status = CC_NOMEM;
    uint8_t *filtered = malloc(size);
    struct libdeflate_compressor *compressor = libdeflate_alloc_compressor(level);
    if (filtered == NULL || compressor == NULL) goto done;
    for (uint32_t y = 0; y < height; y++) cc_png_filter_row(rows, y, filtered + (size_t)y * line);
    /* One poll before the one libdeflate call, which cannot be interrupted (at most CC_PNG_WHOLE_MAX bytes). */
    if (cc_cancelled(check)) { status = CC_CANCELLED; goto done; }
    const size_t bound = libdeflate_zlib_compress_bound(compressor, size);
    if (!cc_png_reserve(out, bound + 12)) goto done;
    const size_t zlength = libdeflate_zlib_compress(compressor, filtered, size, out->data + out->length + 8, bound);
    if (zlength == 0) { status = CC_INVALID; goto done; } /* cannot happen: the output has the bound's room */
    cc_png_close_chunk(out, "IDAT", zlength);
    status = CC_OK;
done:
    libdeflate_free_compressor(compressor);
    free(filtered);
    return status;
}

/* Row by row through zlib, an IDAT chunk each time CC_PNG_STREAM_CHUNK bytes of output are ready. */
/* Polled every CC_PNG_POLL_ROWS rows of the streamed path: a 19 MP photo's encode took 1-2 s between polls before. */
#define CC_PNG_POLL_ROWS 16

static int cc_png_write_streamed(cc_png_rows *rows, uint32_t height, int level, cc_png_out *out, cc_cancel_check check) {
    int status = CC_NOMEM;
    uint8_t *line = malloc(rows->row_bytes + 1), *chunk = malloc(CC_PNG_STREAM_CHUNK);
    z_stream z;
    memset(&z, 0, sizeof z);
    /* libpng's choice for filtered rows: Z_FILTERED. */
    int initialised = line != NULL && chunk != NULL &&
                      deflateInit2(&z, level, Z_DEFLATED, 15, 8, Z_FILTERED) == Z_OK;
    if (!initialised) goto done;
    z.next_out = chunk;
    z.avail_out = CC_PNG_STREAM_CHUNK;
    for (uint32_t y = 0; y <= height; y++) {
        int flush = y == height ? Z_FINISH : Z_NO_FLUSH;
        if (y % CC_PNG_POLL_ROWS == 0 && cc_cancelled(check)) { status = CC_CANCELLED; goto done; }
        if (y < height) {
            cc_png_filter_row(rows, y, line);
            z.next_in = line;
            z.avail_in = (uInt)(rows->row_bytes + 1);
        }
        for (;;) {
            int result = deflate(&z, flush);
            if (result == Z_STREAM_ERROR) { status = CC_INVALID; goto done; }
            int finished = result == Z_STREAM_END;
            if (z.avail_out == 0 || finished) {
                if (!cc_png_chunk(out, "IDAT", chunk, CC_PNG_STREAM_CHUNK - z.avail_out)) goto done;
                z.next_out = chunk;
                z.avail_out = CC_PNG_STREAM_CHUNK;
            }
            if (finished || (flush == Z_NO_FLUSH && z.avail_in == 0)) break;
        }
    }
    status = CC_OK;
done:
    if (initialised) deflateEnd(&z);
    free(chunk);
    free(line);
    return status;
}

/* ---- The whole path in pieces ---- */

int cc_png_filter_rows(const uint8_t *pixels, uint32_t width, int in_channels, int out_channels, uint32_t y0,
                       uint32_t y1, uint8_t *filtered, uint32_t *costs) {
    const size_t row_bytes = (size_t)width * (size_t)out_channels;
    uint8_t *scratch = calloc(7, row_bytes);
    if (scratch == NULL) return CC_NOMEM;
    cc_png_rows rows = {pixels, width, in_channels, out_channels, row_bytes, scratch, scratch + row_bytes,
                        scratch + 2 * row_bytes};
    if (y0 > 0) {
        /* The row above the band, as the band's first row is filtered against it. */
        const uint8_t *above = pixels + (size_t)(y0 - 1) * width * (size_t)in_channels;
        if (in_channels == 4 && out_channels == 3) {
            for (uint32_t x = 0; x < width; x++) memcpy(rows.previous + 3 * (size_t)x, above + 4 * (size_t)x, 3);
        } else {
            memcpy(rows.previous, above, row_bytes);
        }
    }
    for (uint32_t y = y0; y < y1; y++) {
        uint32_t cost = cc_png_filter_row(&rows, y, filtered + (size_t)(y - y0) * (row_bytes + 1));
        if (costs != NULL) costs[y - y0] = cost;
    }
    free(scratch);
    return CC_OK;
}

size_t cc_png_segment_bound(size_t length) {
    return libdeflate_deflate_compress_bound(NULL, length) + 5;
}

/* Bit offsets (LSB first) of the final block's header and of the end of its end-of-block code in the raw deflate
 * stream `z`; 0 when the stream is not a complete, valid one. */
static int cc_deflate_final_block(const uint8_t *z, size_t length, uint64_t *header, uint64_t *end) {
    enum { WINDOW = 1 << 16 };
    uint8_t *window = malloc(WINDOW);
    z_stream s;
    memset(&s, 0, sizeof s);
    if (window == NULL || inflateInit2(&s, -15) != Z_OK) { free(window); return 0; }
    s.next_in = (Bytef *)z;
    s.avail_in = (uInt)length;
    uint64_t boundary = 0; /* a raw stream's first block header is its first bit */
    int found = 0;
    for (;;) {
        if (s.avail_out == 0) { s.next_out = window; s.avail_out = WINDOW; } /* inflate keeps its own window */
        int result = inflate(&s, Z_BLOCK);
        if (result == Z_STREAM_END || (result != Z_OK && !(result == Z_BUF_ERROR && s.avail_out == 0))) break;
        /* Stopped at a block boundary (128): before the next header, or after the final block (64). */
        if (s.data_type & 128) {
            uint64_t bit = (uint64_t)s.total_in * 8 - (uint64_t)(s.data_type & 7);
            if (s.data_type & 64) { *header = boundary; *end = bit; found = 1; break; }
            boundary = bit;
        }
    }
    inflateEnd(&s);
    free(window);
    return found && (z[*header / 8] >> (*header % 8) & 1);
}

int cc_png_deflate_segment(const uint8_t *data, size_t length, int level, int last, uint8_t *out, size_t capacity,
                           size_t *out_length) {
    *out_length = 0;
    if (length > UINT32_MAX || capacity < cc_png_segment_bound(length)) return CC_INVALID;
    struct libdeflate_compressor *compressor = libdeflate_alloc_compressor(level < 0 ? 0 : level > 9 ? 9 : level);
    if (compressor == NULL) return CC_NOMEM;
    size_t zlength = libdeflate_deflate_compress(compressor, data, length, out, capacity);
    libdeflate_free_compressor(compressor);
    if (zlength == 0) return CC_INVALID; /* cannot happen: the output has the bound's room */
    if (last) { *out_length = zlength; return CC_OK; }
    uint64_t header, end;
    if (!cc_deflate_final_block(out, zlength, &header, &end)) return CC_INVALID;
    out[header / 8] &= (uint8_t)~(1u << (header % 8));
    /* After `end`: an empty stored block, three zero bits (not final, stored), zeros to the byte, LEN 0, NLEN. */
    size_t aligned = (size_t)((end + 3 + 7) / 8);
    if (aligned > zlength) memset(out + zlength, 0, aligned - zlength);
    if (end % 8) out[end / 8] &= (uint8_t)((1u << (end % 8)) - 1);
    for (size_t i = (size_t)(end / 8) + (end % 8 ? 1 : 0); i < aligned; i++) out[i] = 0;
    static const uint8_t empty_stored[4] = {0x00, 0x00, 0xff, 0xff};
    memcpy(out + aligned, empty_stored, 4);
    *out_length = aligned + 4;
    return CC_OK;
}

int cc_png_assemble(uint32_t width, uint32_t height, int out_channels, int level, const uint8_t *filtered,
                    size_t filtered_length, const uint8_t *const *segments, const size_t *lengths, int count,
                    uint8_t **out, size_t *out_length) {
    *out = NULL;
    *out_length = 0;
    size_t zlength = 6;
    for (int i = 0; i < count; i++) {
        if (lengths[i] > SIZE_MAX / 2 - zlength) return CC_INVALID;
        zlength += lengths[i];
    }
    if (zlength > 0x7fffffffu) return CC_INVALID;
    cc_png_out result = {NULL, 0, 0};
    if (!cc_png_reserve(&result, 8 + 25 + zlength + 12 + 12)) return CC_NOMEM;
    cc_png_write_start(&result, width, height, out_channels);
    /* The zlib header libdeflate writes for this level (its level hint), the segments, the Adler-32. */
    uint8_t *p = result.data + result.length + 8;
    unsigned hint = level < 2 ? 0 : level < 6 ? 1 : level < 8 ? 2 : 3;
    unsigned zheader = (8u << 8) | (7u << 12) | (hint << 6);
    zheader |= 31 - zheader % 31;
    p[0] = (uint8_t)(zheader >> 8);
    p[1] = (uint8_t)zheader;
    size_t at = 2;
    for (int i = 0; i < count; i++) {
        memcpy(p + at, segments[i], lengths[i]);
        at += lengths[i];
    }
    cc_put32(p + at, libdeflate_adler32(1, filtered, filtered_length));
    cc_png_close_chunk(&result, "IDAT", zlength);
    cc_png_chunk(&result, "IEND", NULL, 0);
    *out = result.data;
    *out_length = result.length;
    return CC_OK;
}

int cc_png_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int in_channels, int out_channels,
                  int compression_level, cc_cancel_check check, uint8_t **out, size_t *out_length, char *error,
                  size_t error_size) {
    *out = NULL;
    *out_length = 0;
    if (error_size > 0) error[0] = '\0';
    int valid = (in_channels == 1 && out_channels == 1) || (in_channels == 4 && (out_channels == 3 || out_channels == 4));
    if (!valid || width == 0 || height == 0 || width > 0x7fffffffu || height > 0x7fffffffu) {
        if (error_size > 0) snprintf(error, error_size, "invalid PNG encode parameters");
        return CC_INVALID;
    }
    const size_t row_bytes = (size_t)width * (size_t)out_channels;
    if (row_bytes + 1 > UINT32_MAX || row_bytes + 1 > SIZE_MAX / height) {
        if (error_size > 0) snprintf(error, error_size, "image too large for PNG");
        return CC_INVALID;
    }
    if (compression_level < 0) compression_level = 0;
    if (compression_level > 9) compression_level = 9;

    cc_png_out result = {NULL, 0, 0};
    uint8_t *scratch = calloc(7, row_bytes); /* previous and current rows, one candidate per filter type */
    int status = CC_NOMEM;
    if (scratch == NULL || !cc_png_reserve(&result, 8 + 25)) goto done;
    cc_png_write_start(&result, width, height, out_channels);
    cc_png_rows rows = {pixels, width, in_channels, out_channels, row_bytes, scratch, scratch + row_bytes,
                        scratch + 2 * row_bytes};
    status = (row_bytes + 1) * height <= CC_PNG_WHOLE_MAX
                 ? cc_png_write_whole(&rows, height, compression_level, &result, check)
                 : cc_png_write_streamed(&rows, height, compression_level, &result, check);
    if (status == CC_OK) status = cc_png_chunk(&result, "IEND", NULL, 0) ? CC_OK : CC_NOMEM;
done:
    free(scratch);
    if (status != CC_OK) {
        free(result.data);
        if (error_size > 0)
            snprintf(error, error_size, status == CC_NOMEM ? "out of memory"
                                        : status == CC_CANCELLED ? "PNG encoding was cancelled" : "deflate failed");
        return status;
    }
    *out = result.data;
    *out_length = result.length;
    return CC_OK;
}
