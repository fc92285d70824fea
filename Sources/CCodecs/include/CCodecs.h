#ifndef CCODECS_H
#define CCODECS_H
/*
 * C shim over libpng and libjpeg(-turbo).
 *
 * Every libpng/libjpeg call that can longjmp is made from a function in this target that has set its own
 * setjmp point first, so a longjmp never crosses a Swift frame. Functions return a CC_* status and leave
 * the library's message in the handle (cc_*_message); warnings are collected (cc_*_warnings), never printed.
 * Decoding is split into header / start / read-rows / finish so the caller can check for cancellation
 * between bands of rows. Handles are single-threaded per-call scratch state.
 */
#include <stddef.h>
#include <stdint.h>

enum {
    CC_OK = 0,
    CC_INVALID = 1,      /* the library rejected the data (its message is in the handle) */
    CC_TRUNCATED = 2,    /* input ended before the image did */
    CC_UNSUPPORTED = 3,  /* valid but not supported (e.g. 12-bit JPEG, odd colour spaces) */
    CC_NOMEM = 4,        /* allocation failed */
    CC_LIMIT = 5,        /* a safety limit was hit (memory, scan count, chunk size) */
    CC_CANCELLED = 6,    /* the cancellation check asked to stop */
};

/* Polled during long library-internal work; returns nonzero to abandon the decode. Must not longjmp. */
typedef int (*cc_cancel_check)(void);

/* Values read from the file header. */
typedef struct cc_header {
    uint32_t width;          /* as stored */
    uint32_t height;
    int32_t channels;        /* PNG: 1 grey, 2 grey+alpha, 3 rgb/palette, 4 rgba; JPEG: components */
    int32_t bit_depth;       /* PNG 1..16 (palette: index depth); JPEG sample precision */
    int32_t has_alpha;       /* alpha channel or tRNS */
    int32_t interlaced;      /* PNG Adam7 */
    int32_t progressive;     /* JPEG progressive */
    int32_t arithmetic;      /* JPEG arithmetic coding */
    int32_t color_type;      /* PNG colour type; JPEG J_COLOR_SPACE of the file */
    int32_t adobe_inverted;  /* JPEG CMYK/YCCK stored inverted (Adobe APP14 present) */
} cc_header;

/* ---- PNG decoding ---- */
typedef struct cc_png cc_png;
/* `data` must stay valid until cc_png_destroy. Returns NULL on allocation failure. */
cc_png *cc_png_create(const uint8_t *data, size_t size);
void cc_png_destroy(cc_png *p);
/* Reads everything up to the first IDAT; fills `out`. */
int cc_png_read_header(cc_png *p, cc_header *out);
/* Sets up RGBA8 output (no gamma correction; 16-bit samples rounded to 8-bit). */
int cc_png_start(cc_png *p);
/* Reads at most `max_steps` rows (for Adam7 images a step is one row of one pass) into `image`, the base of
 * the whole width*height RGBA buffer with `row_bytes` per row. `*remaining` is set to the steps still left. */
int cc_png_read_rows(cc_png *p, uint8_t *image, size_t row_bytes, uint32_t max_steps, uint32_t *remaining);
/* Reads the chunks after the image data. */
int cc_png_finish(cc_png *p);
/* The iCCP profile (decompressed) or NULL; valid until cc_png_destroy. */
const uint8_t *cc_png_icc(cc_png *p, size_t *length);
const char *cc_png_message(const cc_png *p);
/* Collected warnings, one per line ('\n' separated), "" when none; only the first few are kept. */
const char *cc_png_warnings(const cc_png *p);
/* How many warnings were raised in total (kept or not). */
int cc_png_warning_count(const cc_png *p);

/* ---- JPEG decoding ---- */
typedef struct cc_jpeg cc_jpeg;
/* `max_memory` bounds libjpeg's big buffers (e.g. progressive coefficients); 0 = no bound. */
cc_jpeg *cc_jpeg_create(const uint8_t *data, size_t size, size_t max_memory);
void cc_jpeg_destroy(cc_jpeg *j);
int cc_jpeg_read_header(cc_jpeg *j, cc_header *out);
/* A progressive JPEG is read whole inside cc_jpeg_start; `check` is polled per row of blocks there. */
void cc_jpeg_set_cancel_check(cc_jpeg *j, cc_cancel_check check);
/* Payload of the first APP1 "Exif\0\0" segment (TIFF header onwards), NULL when absent. */
const uint8_t *cc_jpeg_exif(cc_jpeg *j, size_t *length);
/* The ICC profile assembled from APP2 chunks, NULL when absent or malformed. */
const uint8_t *cc_jpeg_icc(cc_jpeg *j, size_t *length);
/* Starts decompression to RGBA8 at 1/scale_denom (1, 2, 4, 8) size; CMYK/YCCK are converted to RGB. */
int cc_jpeg_start(cc_jpeg *j, int scale_denom, uint32_t *out_width, uint32_t *out_height);
/* Reads at most `max_rows` rows into `image` (base of the whole output buffer). */
int cc_jpeg_read_rows(cc_jpeg *j, uint8_t *image, size_t row_bytes, uint32_t max_rows, uint32_t *remaining);
int cc_jpeg_finish(cc_jpeg *j);
/* 1 once libjpeg has hit the end of the data and padded the rest of the image. */
int cc_jpeg_truncated(const cc_jpeg *j);
const char *cc_jpeg_message(const cc_jpeg *j);
const char *cc_jpeg_warnings(const cc_jpeg *j);
int cc_jpeg_warning_count(const cc_jpeg *j);

/* ---- Encoding ---- *
 * The output buffer is allocated with malloc; release it with cc_free. `error` receives the library message. */
/* `pixels` has `in_channels` (1 or 4) bytes per pixel; `out_channels` is 1 (grey), 3 (RGB, alpha dropped) or 4. */
int cc_png_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int in_channels, int out_channels,
                  int compression_level, uint8_t **out, size_t *out_length, char *error, size_t error_size);
/* RGBA input, alpha ignored; baseline or progressive, 4:2:0, no metadata. */
int cc_jpeg_encode(const uint8_t *rgba, uint32_t width, uint32_t height, int quality, int progressive,
                   uint8_t **out, size_t *out_length, char *error, size_t error_size);
void cc_free(void *p);

#endif
