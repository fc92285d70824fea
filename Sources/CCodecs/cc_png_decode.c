/* PNG decoding through libpng's sequential read API, in setjmp-protected steps. */
#include "CCodecs.h"
#include "cc_messages.h"
#include "cc_bounds.h"
#include <png.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* Ancillary-chunk limits: bound what a hostile file can make libpng allocate before the image data
 * (e.g. a zTXt/iCCP decompression bomb or thousands of sPLT chunks). */
#define CC_PNG_CHUNK_CACHE_MAX 256
#define CC_PNG_CHUNK_MALLOC_MAX (8u * 1024u * 1024u)

struct cc_png {
    png_structp png;
    png_infop info;
    const uint8_t *data;
    size_t size;
    size_t offset;
    int hit_eof;              /* the read callback ran out of data */
    int header_read;
    int started;
    uint32_t width, height;
    int passes;
    uint64_t steps_total;     /* passes * height */
    uint64_t steps_done;
    cc_messages msg;
};

static void cc_png_error_fn(png_structp png, png_const_charp text) {
    cc_png *p = (cc_png *)png_get_error_ptr(png);
    cc_messages_set_error(&p->msg, text);
    png_longjmp(png, 1);
}

static void cc_png_warning_fn(png_structp png, png_const_charp text) {
    cc_png *p = (cc_png *)png_get_error_ptr(png);
    cc_messages_add_warning(&p->msg, text);
}

static void cc_png_read_fn(png_structp png, png_bytep out, size_t length) {
    cc_png *p = (cc_png *)png_get_io_ptr(png);
    if (length > p->size - p->offset) {
        p->hit_eof = 1;
        png_error(png, "unexpected end of data");
    }
    memcpy(out, p->data + p->offset, length);
    p->offset += length;
}

static int cc_png_fail(cc_png *p) {
    /* png_check_IHDR warns about each bad field, then fails with a generic message: name the fields. */
    if (strcmp(p->msg.error, "Invalid IHDR data") == 0 && p->msg.warnings[0] != '\0') {
        char detail[sizeof p->msg.error];
        size_t n = (size_t)snprintf(detail, sizeof detail, "Invalid IHDR data");
        const char *w = p->msg.warnings;
        while (*w != '\0' && n + 3 < sizeof detail) {
            detail[n++] = w == p->msg.warnings ? ':' : ';';
            detail[n++] = ' ';
            while (*w != '\0' && *w != '\n' && n + 1 < sizeof detail) detail[n++] = *w++;
            if (*w == '\n') w++;
        }
        detail[n] = '\0';
        memcpy(p->msg.error, detail, sizeof detail);
    }
    if (p->hit_eof) return CC_TRUNCATED;
    /* libpng reports exhausted IDAT data this way when the file ends with IEND but not enough pixels. */
    if (strstr(p->msg.error, "Not enough image data") != NULL) return CC_TRUNCATED;
    if (strstr(p->msg.error, "Insufficient memory") != NULL || strstr(p->msg.error, "out of memory") != NULL)
        return CC_NOMEM;
    if (strstr(p->msg.error, "exceeds") != NULL || strstr(p->msg.error, "too large") != NULL
        || strstr(p->msg.error, "limit") != NULL)
        return CC_LIMIT;
    return CC_INVALID;
}

cc_png *cc_png_create(const uint8_t *data, size_t size) {
    cc_png *p = (cc_png *)calloc(1, sizeof *p);
    if (p == NULL) return NULL;
    p->data = data;
    p->size = size;
    p->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, p, cc_png_error_fn, cc_png_warning_fn);
    if (p->png == NULL) { free(p); return NULL; }
    p->info = png_create_info_struct(p->png);
    if (p->info == NULL) { png_destroy_read_struct(&p->png, NULL, NULL); free(p); return NULL; }
    /* The setters below only warn on misuse, but a longjmp with no setjmp would abort(): be safe. */
    if (setjmp(png_jmpbuf(p->png))) {
        png_destroy_read_struct(&p->png, &p->info, NULL);
        free(p);
        return NULL;
    }
    png_set_read_fn(p->png, p, cc_png_read_fn);
    /* Dimensions are checked by the caller against its pixel budget right after the header (before libpng
     * allocates row buffers), so libpng's own 1e6-per-side default would only turn a legal but oversized
     * file into a vaguer "Invalid IHDR data" instead of a clear too-large error. */
    png_set_user_limits(p->png, 0x7fffffffu, 0x7fffffffu);
    png_set_chunk_cache_max(p->png, CC_PNG_CHUNK_CACHE_MAX);
    png_set_chunk_malloc_max(p->png, CC_PNG_CHUNK_MALLOC_MAX);
    /* Unknown chunks are never needed: do not keep them. Text and suggested-palette chunks are never used
     * either; treating them as unknown means a zTXt/iTXt decompression bomb is skipped, not inflated. */
    png_set_keep_unknown_chunks(p->png, PNG_HANDLE_CHUNK_NEVER, NULL, 0);
    static const png_byte ignored[] = "tEXt\0zTXt\0iTXt\0sPLT\0";
    png_set_keep_unknown_chunks(p->png, PNG_HANDLE_CHUNK_NEVER, ignored, 4);
    /* Profiles are reported, never applied, so libpng's sRGB-profile audit would only add noise. */
    png_set_option(p->png, PNG_SKIP_sRGB_CHECK_PROFILE, PNG_OPTION_ON);
    return p;
}

void cc_png_destroy(cc_png *p) {
    if (p == NULL) return;
    png_destroy_read_struct(&p->png, &p->info, NULL);
    free(p);
}

int cc_png_read_header(cc_png *p, cc_header *out) {
    memset(out, 0, sizeof *out);
    if (setjmp(png_jmpbuf(p->png))) return cc_png_fail(p);
    if (!p->header_read) {
        png_read_info(p->png, p->info);
        p->header_read = 1;
    }
    png_uint_32 w = 0, h = 0;
    int depth = 0, color = 0, interlace = 0;
    png_get_IHDR(p->png, p->info, &w, &h, &depth, &color, &interlace, NULL, NULL);
    p->width = w;
    p->height = h;
    out->width = w;
    out->height = h;
    out->bit_depth = depth;
    out->color_type = color;
    out->interlaced = interlace == PNG_INTERLACE_ADAM7;
    int has_trns = png_get_valid(p->png, p->info, PNG_INFO_tRNS) != 0;
    switch (color) {
    case PNG_COLOR_TYPE_GRAY: out->channels = 1; break;
    case PNG_COLOR_TYPE_GRAY_ALPHA: out->channels = 2; break;
    case PNG_COLOR_TYPE_PALETTE: out->channels = 3; break;
    case PNG_COLOR_TYPE_RGB: out->channels = 3; break;
    default: out->channels = 4; break;
    }
    out->has_alpha = (color & PNG_COLOR_MASK_ALPHA) != 0 || has_trns;
    return CC_OK;
}

int cc_png_start(cc_png *p) {
    if (!p->header_read) return CC_INVALID;
    if (setjmp(png_jmpbuf(p->png))) return cc_png_fail(p);
    png_structp png = p->png;
    png_infop info = p->info;
    int color = png_get_color_type(png, info);
    int depth = png_get_bit_depth(png, info);
    /* No png_set_gamma / png_set_alpha_mode: gAMA, cHRM, sRGB are read but not applied (like browsers
     * that ignore gamma and like Pillow), so pixels are the stored samples. */
    if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (color == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
    /* Exact rounding v*255/65535 (libpng's accurate scaling, not byte truncation). tRNS matching happens
     * before this on the 16-bit values. */
    if (depth == 16) png_set_scale_16(png);
    if (color == PNG_COLOR_TYPE_GRAY || color == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
    png_set_add_alpha(png, 0xFF, PNG_FILLER_AFTER);
    p->passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != (size_t)p->width * 4u || png_get_bit_depth(png, info) != 8) {
        cc_messages_set_error(&p->msg, "unexpected output format after transformations");
        return CC_INVALID;
    }
    p->steps_total = (uint64_t)p->passes * p->height;
    p->steps_done = 0;
    p->started = 1;
    return CC_OK;
}

/* Steps left, saturated: 7 Adam7 passes of a very tall image can exceed 32 bits, and a wrapped count could
 * read as "done". */
static uint32_t cc_png_remaining(const cc_png *p) {
    uint64_t left = p->steps_total - p->steps_done;
    return left > UINT32_MAX ? UINT32_MAX : (uint32_t)left;
}

int cc_png_read_rows(cc_png *p, uint8_t *image, size_t row_bytes, size_t capacity, uint32_t max_steps,
                     uint32_t *remaining) {
    *remaining = cc_png_remaining(p);
    if (!p->started) return CC_INVALID;
    if (!cc_rgba_fits(p->width, p->height, row_bytes, capacity)) {
        cc_messages_set_error(&p->msg, "the image buffer does not hold the picture");
        return CC_INVALID;
    }
    if (setjmp(png_jmpbuf(p->png))) return cc_png_fail(p);
    uint64_t end = p->steps_done + max_steps;
    if (end > p->steps_total) end = p->steps_total;
    while (p->steps_done < end) {
        /* With interlace handling libpng wants every row of every pass; each call merges that pass's
         * pixels into the (full) row, as png_read_image does. */
        uint32_t y = (uint32_t)(p->steps_done % p->height);
        png_read_row(p->png, image + (size_t)y * row_bytes, NULL);
        p->steps_done++;
        *remaining = cc_png_remaining(p);
    }
    return CC_OK;
}

int cc_png_finish(cc_png *p) {
    if (setjmp(png_jmpbuf(p->png))) return cc_png_fail(p);
    png_read_end(p->png, NULL);
    return CC_OK;
}

const uint8_t *cc_png_icc(cc_png *p, size_t *length) {
    *length = 0;
    if (!p->header_read) return NULL;
    png_charp name = NULL;
    int compression = 0;
    png_bytep profile = NULL;
    png_uint_32 len = 0;
    if (png_get_iCCP(p->png, p->info, &name, &compression, &profile, &len) != PNG_INFO_iCCP) return NULL;
    *length = len;
    return profile;
}

const char *cc_png_message(const cc_png *p) { return p->msg.error; }
const char *cc_png_warnings(const cc_png *p) { return p->msg.warnings; }
int cc_png_warning_count(const cc_png *p) { return p->msg.warning_count; }
