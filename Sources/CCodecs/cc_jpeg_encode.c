/* JPEG encoding from RGBA (alpha ignored) into memory; no APPn markers beyond libjpeg's JFIF header. */
#include "CCodecs.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <jpeglib.h>

typedef struct cc_jpeg_writer {
    struct jpeg_compress_struct cinfo;
    struct jpeg_error_mgr jerr;
    jmp_buf jmp;
    unsigned char *buffer;
    unsigned long length;
    char *error;
    size_t error_size;
} cc_jpeg_writer;

static void cc_jpeg_write_error(j_common_ptr cinfo) {
    cc_jpeg_writer *w = (cc_jpeg_writer *)cinfo->client_data;
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    if (w->error_size > 0) snprintf(w->error, w->error_size, "%s", text);
    longjmp(w->jmp, 1);
}

static void cc_jpeg_write_silent(j_common_ptr cinfo, int level) { (void)cinfo; (void)level; }
static void cc_jpeg_write_output(j_common_ptr cinfo) { (void)cinfo; }

int cc_jpeg_encode(const uint8_t *rgba, uint32_t width, uint32_t height, int quality, int progressive,
                   uint8_t **out, size_t *out_length, char *error, size_t error_size) {
    *out = NULL;
    *out_length = 0;
    if (error_size > 0) error[0] = '\0';
    /* Heap state: nothing the setjmp return path reads lives in a register-cached local. */
    cc_jpeg_writer *w = (cc_jpeg_writer *)calloc(1, sizeof *w);
    if (w == NULL) return CC_NOMEM;
    w->error = error;
    w->error_size = error_size;
    w->cinfo.err = jpeg_std_error(&w->jerr);
    w->jerr.error_exit = cc_jpeg_write_error;
    w->jerr.emit_message = cc_jpeg_write_silent;
    w->jerr.output_message = cc_jpeg_write_output;
    w->cinfo.client_data = w;
    if (setjmp(w->jmp)) {
        jpeg_destroy_compress(&w->cinfo);
        free(w->buffer);
        free(w);
        return CC_INVALID;
    }
    jpeg_create_compress(&w->cinfo);
    jpeg_mem_dest(&w->cinfo, &w->buffer, &w->length);
    w->cinfo.image_width = width;
    w->cinfo.image_height = height;
    w->cinfo.input_components = 4;
    w->cinfo.in_color_space = JCS_EXT_RGBA;
    jpeg_set_defaults(&w->cinfo);   /* YCbCr 4:2:0 */
    if (quality < 1) quality = 1;
    if (quality > 100) quality = 100;
    jpeg_set_quality(&w->cinfo, quality, TRUE);
    w->cinfo.optimize_coding = TRUE;
    if (progressive) jpeg_simple_progression(&w->cinfo);
    jpeg_start_compress(&w->cinfo, TRUE);
    size_t row_bytes = (size_t)width * 4;
    while (w->cinfo.next_scanline < w->cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(rgba + (size_t)w->cinfo.next_scanline * row_bytes);
        jpeg_write_scanlines(&w->cinfo, &row, 1);
    }
    jpeg_finish_compress(&w->cinfo);
    jpeg_destroy_compress(&w->cinfo);
    *out = w->buffer;
    *out_length = w->length;
    free(w);
    return CC_OK;
}
