/* PNG encoding into a growing memory buffer; no ancillary chunks are written. */
#include "CCodecs.h"
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cc_png_writer {
    uint8_t *data;
    size_t length;
    size_t capacity;
    char *error;
    size_t error_size;
} cc_png_writer;

static void cc_png_write_error(png_structp png, png_const_charp text) {
    cc_png_writer *w = (cc_png_writer *)png_get_error_ptr(png);
    if (w->error_size > 0) snprintf(w->error, w->error_size, "%s", text);
    png_longjmp(png, 1);
}

static void cc_png_write_warning(png_structp png, png_const_charp text) { (void)png; (void)text; }

static void cc_png_write_data(png_structp png, png_bytep bytes, size_t length) {
    cc_png_writer *w = (cc_png_writer *)png_get_io_ptr(png);
    if (length > SIZE_MAX - w->length) png_error(png, "output too large");
    if (w->length + length > w->capacity) {
        size_t cap = w->capacity ? w->capacity : 65536;
        while (cap < w->length + length) {
            if (cap > SIZE_MAX / 2) png_error(png, "output too large");
            cap *= 2;
        }
        uint8_t *grown = (uint8_t *)realloc(w->data, cap);
        if (grown == NULL) png_error(png, "out of memory");
        w->data = grown;
        w->capacity = cap;
    }
    memcpy(w->data + w->length, bytes, length);
    w->length += length;
}

static void cc_png_flush(png_structp png) { (void)png; }

int cc_png_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int in_channels, int out_channels,
                  int compression_level, uint8_t **out, size_t *out_length, char *error, size_t error_size) {
    *out = NULL;
    *out_length = 0;
    if (error_size > 0) error[0] = '\0';
    int valid = (in_channels == 1 && out_channels == 1) || (in_channels == 4 && (out_channels == 3 || out_channels == 4));
    if (!valid || width == 0 || height == 0) {
        if (error_size > 0) snprintf(error, error_size, "invalid PNG encode parameters");
        return CC_INVALID;
    }
    /* On the heap so the setjmp return path reads memory libpng updated, not stale locals. */
    cc_png_writer *w = (cc_png_writer *)calloc(1, sizeof *w);
    if (w == NULL) return CC_NOMEM;
    w->error = error;
    w->error_size = error_size;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, w, cc_png_write_error, cc_png_write_warning);
    if (png == NULL) { free(w); return CC_NOMEM; }
    png_infop info = png_create_info_struct(png);
    if (info == NULL) { png_destroy_write_struct(&png, NULL); free(w); return CC_NOMEM; }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        free(w->data);
        free(w);
        return CC_INVALID;
    }
    png_set_write_fn(png, w, cc_png_write_data, cc_png_flush);
    if (compression_level < 0) compression_level = 0;
    if (compression_level > 9) compression_level = 9;
    png_set_compression_level(png, compression_level);
    int color = out_channels == 1 ? PNG_COLOR_TYPE_GRAY : out_channels == 3 ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_RGB_ALPHA;
    png_set_IHDR(png, info, width, height, 8, color, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    /* RGBA rows written as RGB: libpng strips the 4th byte. */
    if (in_channels == 4 && out_channels == 3) png_set_filler(png, 0, PNG_FILLER_AFTER);
    size_t row_bytes = (size_t)width * (size_t)in_channels;
    for (uint32_t y = 0; y < height; y++) png_write_row(png, (png_const_bytep)(pixels + (size_t)y * row_bytes));
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    *out = w->data;
    *out_length = w->length;
    free(w);
    return CC_OK;
}
