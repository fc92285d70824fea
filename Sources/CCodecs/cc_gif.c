/* GIF through giflib's record-level API: only the records up to the first image are read (an animation's other
 * frames are never decompressed), its rows decoded one at a time onto the logical screen. */
#include "CCodecs.h"
#include "cc_messages.h"
#include "cc_bounds.h"
#include "cc_gif_palette.h"
#include <gif_lib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rows decoded between two cancellation checks. */
#define CC_GIF_BAND 64

struct cc_gif {
    const uint8_t *data;
    size_t size;
    size_t offset;
    int hit_eof;
    GifFileType *file;
    int opened;              /* positioned on the first image's data */
    int transparent;         /* the first image's transparent index, -1 when none */
    int left, top, frame_width, frame_height, interlaced;
    ColorMapObject *colors;  /* local or global colour map of the first image (owned by `file`); NULL: grey ramp */
    cc_messages msg;
};

static int cc_gif_read(GifFileType *file, GifByteType *out, int length) {
    cc_gif *g = (cc_gif *)file->UserData;
    if (length <= 0) return 0;
    size_t n = (size_t)length;
    if (n > g->size - g->offset) {
        n = g->size - g->offset;
        g->hit_eof = 1;
    }
    memcpy(out, g->data + g->offset, n);
    g->offset += n;
    return (int)n;
}

static int cc_gif_fail(cc_gif *g, int code, const char *where) {
    char text[160];
    const char *reason = GifErrorString(code);
    snprintf(text, sizeof text, "%s: %s", where, reason ? reason : "giflib error");
    cc_messages_set_error(&g->msg, text);
    if (g->hit_eof || code == D_GIF_ERR_READ_FAILED || code == D_GIF_ERR_EOF_TOO_SOON) return CC_TRUNCATED;
    if (code == D_GIF_ERR_NOT_ENOUGH_MEM) return CC_NOMEM;
    return CC_INVALID;
}

cc_gif *cc_gif_create(const uint8_t *data, size_t size) {
    cc_gif *g = (cc_gif *)calloc(1, sizeof *g);
    if (g == NULL) return NULL;
    g->data = data;
    g->size = size;
    g->transparent = -1;
    return g;
}

void cc_gif_destroy(cc_gif *g) {
    if (g == NULL) return;
    if (g->file != NULL) {
        int ignored = 0;
        DGifCloseFile(g->file, &ignored);
    }
    free(g);
}

/* Skips the compressed data of the image whose descriptor was just read. */
static int cc_gif_skip_image(cc_gif *g) {
    int code_size = 0;
    GifByteType *block = NULL;
    if (DGifGetCode(g->file, &code_size, &block) == GIF_ERROR) return cc_gif_fail(g, g->file->Error, "frame data");
    while (block != NULL) {
        if (DGifGetCodeNext(g->file, &block) == GIF_ERROR) return cc_gif_fail(g, g->file->Error, "frame data");
    }
    return CC_OK;
}

int cc_gif_open(cc_gif *g, int count_frames, cc_frame_info *out) {
    memset(out, 0, sizeof *out);
    int error = 0;
    g->file = DGifOpen(g, cc_gif_read, &error);
    if (g->file == NULL) return cc_gif_fail(g, error, "header");
    GifFileType *f = g->file;
    if (f->SWidth <= 0 || f->SHeight <= 0) {
        cc_messages_set_error(&g->msg, "empty logical screen");
        return CC_INVALID;
    }
    out->width = (uint32_t)f->SWidth;
    out->height = (uint32_t)f->SHeight;
    out->bit_depth = 8;
    int frames = 0, pending_transparent = -1;
    for (;;) {
        GifRecordType type;
        if (DGifGetRecordType(f, &type) == GIF_ERROR) {
            /* A file that ends (or breaks) after its first image still has that image. */
            if (frames > 0) break;
            return cc_gif_fail(g, f->Error, "record");
        }
        if (type == TERMINATE_RECORD_TYPE) break;
        if (type == EXTENSION_RECORD_TYPE) {
            int code = 0;
            GifByteType *ext = NULL;
            if (DGifGetExtension(f, &code, &ext) == GIF_ERROR) {
                if (frames > 0) break;
                return cc_gif_fail(g, f->Error, "extension");
            }
            if (code == GRAPHICS_EXT_FUNC_CODE && ext != NULL && ext[0] >= 4) {
                GraphicsControlBlock gcb;
                if (DGifExtensionToGCB(ext[0], ext + 1, &gcb) == GIF_OK) pending_transparent = gcb.TransparentColor;
            }
            while (ext != NULL) {
                if (DGifGetExtensionNext(f, &ext) == GIF_ERROR) {
                    if (frames > 0) goto done;
                    return cc_gif_fail(g, f->Error, "extension");
                }
            }
            continue;
        }
        if (type != IMAGE_DESC_RECORD_TYPE) continue;
        if (DGifGetImageDesc(f) == GIF_ERROR) {
            if (frames > 0) break;
            return cc_gif_fail(g, f->Error, "image descriptor");
        }
        frames++;
        if (frames == 1) {
            GifImageDesc *d = &f->Image;
            g->left = d->Left;
            g->top = d->Top;
            g->frame_width = d->Width;
            g->frame_height = d->Height;
            g->interlaced = d->Interlace ? 1 : 0;
            g->colors = d->ColorMap != NULL ? d->ColorMap : f->SColorMap;
            g->transparent = pending_transparent;
            if (g->frame_width <= 0 || g->frame_height <= 0) {
                cc_messages_set_error(&g->msg, "the first image is empty");
                return CC_INVALID;
            }
            out->interlaced = g->interlaced;
            /* Transparent where the frame leaves the screen uncovered, or through its transparent index. */
            out->has_alpha = g->transparent >= 0 || g->left > 0 || g->top > 0
                || g->left + g->frame_width < f->SWidth || g->top + g->frame_height < f->SHeight;
            if (!count_frames) {
                g->opened = 1;
                out->frame_count = 1;
                return CC_OK;
            }
        }
        /* Damaged data after a descriptor ends the count there: the header facts stand, and whether the pixels
         * decode is the decoder's question (it reads only as much of the first frame as it needs). */
        if (cc_gif_skip_image(g) != CC_OK) {
            g->msg.error[0] = '\0';
            break;
        }
    }
done:
    if (frames == 0) {
        cc_messages_set_error(&g->msg, "no image in the file");
        return CC_INVALID;
    }
    out->frame_count = frames;
    return CC_OK;
}

int cc_gif_decode(cc_gif *g, uint8_t *rgba, size_t row_bytes, size_t capacity, cc_cancel_check check) {
    if (!g->opened) {
        cc_messages_set_error(&g->msg, "cc_gif_open(count_frames: 0) was not called");
        return CC_INVALID;
    }
    GifFileType *f = g->file;
    int width = f->SWidth, height = f->SHeight;
    if (width <= 0 || height <= 0 || !cc_rgba_fits((uint32_t)width, (uint32_t)height, row_bytes, capacity)) {
        cc_messages_set_error(&g->msg, "the image buffer does not hold the screen");
        return CC_INVALID;
    }
    for (int y = 0; y < height; y++) memset(rgba + (size_t)y * row_bytes, 0, (size_t)width * 4);
    GifPixelType *line = (GifPixelType *)malloc((size_t)g->frame_width);
    if (line == NULL) {
        cc_messages_set_error(&g->msg, "out of memory");
        return CC_NOMEM;
    }
    /* Interlaced images arrive in four passes: every 8th row from 0, every 8th from 4, every 4th from 2, every 2nd from 1. */
    static const int start[4] = { 0, 4, 2, 1 }, step[4] = { 8, 8, 4, 2 };
    int passes = g->interlaced ? 4 : 1;
    int status = CC_OK, done = 0;
    uint32_t table[256];
    cc_gif_color_table(g->colors, g->transparent, table);
    int left = g->left < 0 ? 0 : g->left;
    int skip = left - g->left;   /* frame columns left of the screen */
    int visible = g->frame_width - skip;
    if (left + visible > width) visible = width - left;
    for (int pass = 0; pass < passes && status == CC_OK; pass++) {
        int y0 = g->interlaced ? start[pass] : 0, dy = g->interlaced ? step[pass] : 1;
        for (int fy = y0; fy < g->frame_height; fy += dy) {
            if (done % CC_GIF_BAND == 0 && cc_cancelled(check)) { status = CC_CANCELLED; break; }
            if (DGifGetLine(f, line, g->frame_width) == GIF_ERROR) {
                status = cc_gif_fail(g, f->Error, "image data");
                break;
            }
            done++;
            int y = g->top + fy;
            if (y < 0 || y >= height || visible <= 0) continue;
            uint8_t *row = rgba + (size_t)y * row_bytes + (size_t)left * 4;
            const GifPixelType *src = line + skip;
            if (g->transparent < 0) {
                for (int x = 0; x < visible; x++) memcpy(row + (size_t)x * 4, &table[src[x]], 4);
            } else {
                /* Transparent pixels keep what is under them (the cleared screen). */
                for (int x = 0; x < visible; x++)
                    if (src[x] != g->transparent) memcpy(row + (size_t)x * 4, &table[src[x]], 4);
            }
        }
    }
    free(line);
    return status;
}

const char *cc_gif_message(const cc_gif *g) { return g->msg.error; }
