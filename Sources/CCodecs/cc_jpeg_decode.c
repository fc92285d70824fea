/* JPEG decoding through libjpeg(-turbo), in setjmp-protected steps, straight into RGBA. */
#include "CCodecs.h"
#include "cc_messages.h"
#include "cc_bounds.h"
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <jpeglib.h>
#include <jerror.h>

/* A progressive JPEG can carry any number of scans, each re-walking the coefficients: a small file could
 * keep the decoder busy for minutes. Real encoders use ~10; libjpeg-turbo's own tools suggest 500. */
#define CC_JPEG_MAX_SCANS 500
#define CC_JPEG_MAX_BAND 64

struct cc_jpeg {
    struct jpeg_decompress_struct cinfo;
    struct jpeg_error_mgr jerr;
    struct jpeg_progress_mgr progress;
    jmp_buf jmp;
    int created;
    int header_read;
    int started;
    int cmyk;                 /* output is CMYK and must be converted to RGB per row */
    int inverted;             /* Adobe-style inverted CMYK */
    int truncated;
    int last_code;            /* msg_code of the error */
    uint8_t *icc;
    size_t icc_length;
    int icc_read;
    cc_cancel_check cancel_check;
    cc_messages msg;
};

static void cc_jpeg_error_exit(j_common_ptr cinfo) {
    cc_jpeg *j = (cc_jpeg *)cinfo->client_data;
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    cc_messages_set_error(&j->msg, text);
    j->last_code = cinfo->err->msg_code;
    longjmp(j->jmp, 1);
}

static void cc_jpeg_emit_message(j_common_ptr cinfo, int level) {
    if (level >= 0) return;   /* trace messages */
    cc_jpeg *j = (cc_jpeg *)cinfo->client_data;
    cinfo->err->num_warnings++;
    if (cinfo->err->msg_code == JWRN_JPEG_EOF) j->truncated = 1;
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    cc_messages_add_warning(&j->msg, text);
}

static void cc_jpeg_output_message(j_common_ptr cinfo) { (void)cinfo; /* never print */ }

/* Called by libjpeg per row of blocks; the longjmp here only unwinds libjpeg's C frames back to the
 * setjmp in the cc_jpeg_* function that called into it (the cancel check has already returned). */
static void cc_jpeg_progress(j_common_ptr cinfo) {
    j_decompress_ptr d = (j_decompress_ptr)cinfo;
    cc_jpeg *j = (cc_jpeg *)cinfo->client_data;
    if (d->input_scan_number > CC_JPEG_MAX_SCANS) {
        cc_messages_set_error(&j->msg, "too many progressive scans");
        j->last_code = -1;
        longjmp(j->jmp, 1);
    }
    if (cc_cancelled(j->cancel_check)) {
        cc_messages_set_error(&j->msg, "cancelled");
        j->last_code = -2;
        longjmp(j->jmp, 1);
    }
}

void cc_jpeg_set_cancel_check(cc_jpeg *j, cc_cancel_check check) { j->cancel_check = check; }

static int cc_jpeg_fail(cc_jpeg *j) {
    switch (j->last_code) {
    case -1: return CC_LIMIT;
    case -2: return CC_CANCELLED;
    case JERR_BAD_PRECISION: return CC_UNSUPPORTED;
    case JERR_CONVERSION_NOTIMPL: return CC_UNSUPPORTED;
    case JERR_NOT_COMPILED: return CC_UNSUPPORTED;
    case JERR_OUT_OF_MEMORY: return CC_NOMEM;
    case JERR_NO_BACKING_STORE: return CC_LIMIT;
    case JERR_INPUT_EMPTY: return CC_TRUNCATED;
    default: return j->truncated ? CC_TRUNCATED : CC_INVALID;
    }
}

cc_jpeg *cc_jpeg_create(const uint8_t *data, size_t size, size_t max_memory) {
    cc_jpeg *j = (cc_jpeg *)calloc(1, sizeof *j);
    if (j == NULL) return NULL;
    j->cinfo.err = jpeg_std_error(&j->jerr);
    j->jerr.error_exit = cc_jpeg_error_exit;
    j->jerr.emit_message = cc_jpeg_emit_message;
    j->jerr.output_message = cc_jpeg_output_message;
    j->cinfo.client_data = j;
    if (setjmp(j->jmp)) {
        if (j->created) jpeg_destroy_decompress(&j->cinfo);
        free(j);
        return NULL;
    }
    jpeg_create_decompress(&j->cinfo);
    j->created = 1;
    if (max_memory > 0) j->cinfo.mem->max_memory_to_use = max_memory > (size_t)LONG_MAX ? LONG_MAX : (long)max_memory;
    j->progress.progress_monitor = cc_jpeg_progress;
    j->cinfo.progress = &j->progress;
    /* libjpeg's mem source takes an unsigned long length; an empty buffer is reported by it as an error. */
    jpeg_mem_src(&j->cinfo, data, (unsigned long)size);
    jpeg_save_markers(&j->cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_save_markers(&j->cinfo, JPEG_APP0 + 2, 0xFFFF);
    return j;
}

void cc_jpeg_destroy(cc_jpeg *j) {
    if (j == NULL) return;
    if (j->created) jpeg_destroy_decompress(&j->cinfo);
    free(j->icc);
    free(j);
}

int cc_jpeg_read_header(cc_jpeg *j, cc_header *out) {
    memset(out, 0, sizeof *out);
    if (setjmp(j->jmp)) return cc_jpeg_fail(j);
    if (!j->header_read) {
        if (jpeg_read_header(&j->cinfo, TRUE) != JPEG_HEADER_OK) {
            cc_messages_set_error(&j->msg, "no image in JPEG data");
            return CC_INVALID;
        }
        j->header_read = 1;
    }
    struct jpeg_decompress_struct *c = &j->cinfo;
    out->width = c->image_width;
    out->height = c->image_height;
    out->channels = c->num_components;
    out->bit_depth = c->data_precision;
    out->progressive = c->progressive_mode != 0;
    out->arithmetic = c->arith_code != 0;
    out->color_type = (int32_t)c->jpeg_color_space;
    out->adobe_inverted = c->saw_Adobe_marker != 0;
    return CC_OK;
}

const uint8_t *cc_jpeg_exif(cc_jpeg *j, size_t *length) {
    *length = 0;
    if (!j->header_read) return NULL;
    for (jpeg_saved_marker_ptr m = j->cinfo.marker_list; m != NULL; m = m->next) {
        if (m->marker == JPEG_APP0 + 1 && m->data_length >= 6 && memcmp(m->data, "Exif\0\0", 6) == 0) {
            *length = m->data_length - 6;
            return m->data + 6;
        }
    }
    return NULL;
}

const uint8_t *cc_jpeg_icc(cc_jpeg *j, size_t *length) {
    *length = 0;
    if (!j->header_read) return NULL;
    if (!j->icc_read) {
        j->icc_read = 1;
        if (setjmp(j->jmp)) return NULL;
        JOCTET *data = NULL;
        unsigned int len = 0;
        /* Malformed chunk sequences make this warn and return FALSE; the image itself is unaffected. */
        if (jpeg_read_icc_profile(&j->cinfo, &data, &len) && data != NULL) {
            j->icc = data;
            j->icc_length = len;
        } else {
            free(data);
        }
    }
    *length = j->icc_length;
    return j->icc;
}

int cc_jpeg_start(cc_jpeg *j, int scale_denom, uint32_t *out_width, uint32_t *out_height) {
    *out_width = 0;
    *out_height = 0;
    if (!j->header_read) return CC_INVALID;
    if (setjmp(j->jmp)) return cc_jpeg_fail(j);
    struct jpeg_decompress_struct *c = &j->cinfo;
    switch (c->jpeg_color_space) {
    case JCS_GRAYSCALE: case JCS_YCbCr: case JCS_RGB:
        c->out_color_space = JCS_EXT_RGBA;
        break;
    case JCS_CMYK: case JCS_YCCK:
        /* libjpeg turns YCCK into CMYK; CMYK to RGB is done here per row. */
        c->out_color_space = JCS_CMYK;
        j->cmyk = 1;
        j->inverted = c->saw_Adobe_marker != 0;
        break;
    default:
        cc_messages_set_error(&j->msg, "unsupported JPEG colour space");
        return CC_UNSUPPORTED;
    }
    if (scale_denom != 1 && scale_denom != 2 && scale_denom != 4 && scale_denom != 8) scale_denom = 1;
    c->scale_num = 1;
    c->scale_denom = (unsigned int)scale_denom;
    c->dct_method = JDCT_ISLOW;
    c->do_fancy_upsampling = TRUE;
    if (!jpeg_start_decompress(c)) {
        cc_messages_set_error(&j->msg, "suspended decompression");
        return CC_INVALID;
    }
    if (c->output_components != 4) {
        cc_messages_set_error(&j->msg, "unexpected JPEG output format");
        return CC_INVALID;
    }
    j->started = 1;
    *out_width = c->output_width;
    *out_height = c->output_height;
    return CC_OK;
}

/* In place: 4 bytes in, 4 bytes out. Multiplicative like Pillow and libjpeg-turbo's cmyk-to-rgb; Adobe
 * files store the ink amounts inverted (255 = no ink). */
static void cc_cmyk_row_to_rgba(uint8_t *row, uint32_t width, int inverted) {
    for (uint32_t x = 0; x < width; x++) {
        uint8_t *px = row + (size_t)x * 4;
        unsigned c = px[0], m = px[1], y = px[2], k = px[3];
        if (!inverted) { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k; }
        px[0] = (uint8_t)((c * k + 127) / 255);
        px[1] = (uint8_t)((m * k + 127) / 255);
        px[2] = (uint8_t)((y * k + 127) / 255);
        px[3] = 255;
    }
}

int cc_jpeg_read_rows(cc_jpeg *j, uint8_t *image, size_t row_bytes, size_t capacity, uint32_t max_rows,
                      uint32_t *remaining) {
    struct jpeg_decompress_struct *c = &j->cinfo;
    *remaining = j->started ? c->output_height - c->output_scanline : 0;
    if (!j->started) return CC_INVALID;
    if (!cc_rgba_fits(c->output_width, c->output_height, row_bytes, capacity)) {
        cc_messages_set_error(&j->msg, "the image buffer does not hold the picture");
        return CC_INVALID;
    }
    if (setjmp(j->jmp)) return cc_jpeg_fail(j);
    uint32_t end = c->output_scanline + max_rows;
    if (end > c->output_height || end < c->output_scanline) end = c->output_height;
    while (c->output_scanline < end) {
        JSAMPROW rows[CC_JPEG_MAX_BAND];
        uint32_t first = c->output_scanline;
        uint32_t n = end - first;
        if (n > CC_JPEG_MAX_BAND) n = CC_JPEG_MAX_BAND;
        for (uint32_t i = 0; i < n; i++) rows[i] = image + (size_t)(first + i) * row_bytes;
        JDIMENSION got = jpeg_read_scanlines(c, rows, n);
        if (got == 0) {
            cc_messages_set_error(&j->msg, "decoder made no progress");
            return CC_INVALID;
        }
        if (j->cmyk) {
            for (JDIMENSION i = 0; i < got; i++) cc_cmyk_row_to_rgba(rows[i], c->output_width, j->inverted);
        }
        *remaining = c->output_height - c->output_scanline;
    }
    return CC_OK;
}

int cc_jpeg_finish(cc_jpeg *j) {
    if (!j->started) return CC_INVALID;
    if (setjmp(j->jmp)) return cc_jpeg_fail(j);
    jpeg_finish_decompress(&j->cinfo);
    j->started = 0;
    return CC_OK;
}

int cc_jpeg_truncated(const cc_jpeg *j) { return j->truncated; }
const char *cc_jpeg_message(const cc_jpeg *j) { return j->msg.error; }
const char *cc_jpeg_warnings(const cc_jpeg *j) { return j->msg.warnings; }
int cc_jpeg_warning_count(const cc_jpeg *j) { return j->msg.warning_count; }
