/* Every frame of a GIF through giflib's record-level API, composited on the logical screen one frame at a time:
 * the screen (and, for "restore to previous", one copy of it) is all that is kept between frames. */
#include "CCodecs.h"
#include "cc_messages.h"
#include "cc_bounds.h"
#include "cc_gif_palette.h"
#include <gif_lib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rows decoded between two cancellation checks. */
#define CC_GIF_ANIM_BAND 64

struct cc_gif_anim {
    const uint8_t *data;
    size_t size;
    size_t offset;
    int hit_eof;
    GifFileType *file;
    int width, height;        /* logical screen */
    uint8_t *canvas;          /* the screen as shown after the last frame, RGBA */
    uint8_t *saved;           /* the screen before the last frame, when its disposal restores it */
    GifPixelType *line;
    int line_capacity;
    /* The last frame's rectangle (clipped to the screen) and disposal, applied before the next frame. */
    int last_x, last_y, last_w, last_h, last_disposal;
    int index;
    double time;
    int ended;
    cc_messages msg;
};

static int cc_gif_anim_read(GifFileType *file, GifByteType *out, int length) {
    cc_gif_anim *a = (cc_gif_anim *)file->UserData;
    if (length <= 0) return 0;
    size_t n = (size_t)length;
    if (n > a->size - a->offset) {
        n = a->size - a->offset;
        a->hit_eof = 1;
    }
    memcpy(out, a->data + a->offset, n);
    a->offset += n;
    return (int)n;
}

static int cc_gif_anim_fail(cc_gif_anim *a, int code, const char *where) {
    char text[160];
    const char *reason = GifErrorString(code);
    snprintf(text, sizeof text, "%s: %s", where, reason ? reason : "giflib error");
    cc_messages_set_error(&a->msg, text);
    if (a->hit_eof || code == D_GIF_ERR_READ_FAILED || code == D_GIF_ERR_EOF_TOO_SOON) return CC_TRUNCATED;
    if (code == D_GIF_ERR_NOT_ENOUGH_MEM) return CC_NOMEM;
    return CC_INVALID;
}

cc_gif_anim *cc_gif_anim_create(const uint8_t *data, size_t size) {
    cc_gif_anim *a = (cc_gif_anim *)calloc(1, sizeof *a);
    if (a == NULL) return NULL;
    a->data = data;
    a->size = size;
    return a;
}

static void cc_gif_anim_close(cc_gif_anim *a) {
    if (a->file != NULL) {
        int ignored = 0;
        DGifCloseFile(a->file, &ignored);
        a->file = NULL;
    }
}

void cc_gif_anim_destroy(cc_gif_anim *a) {
    if (a == NULL) return;
    cc_gif_anim_close(a);
    free(a->canvas);
    free(a->saved);
    free(a->line);
    free(a);
}

static int cc_gif_anim_start(cc_gif_anim *a) {
    int error = 0;
    a->offset = 0;
    a->hit_eof = 0;
    a->file = DGifOpen(a, cc_gif_anim_read, &error);
    if (a->file == NULL) return cc_gif_anim_fail(a, error, "header");
    return CC_OK;
}

static int cc_gif_delay_cs(int delay) { return delay < CC_GIF_MIN_DELAY_CS ? CC_GIF_DEFAULT_DELAY_CS : delay; }

/* Reads one extension; fills the graphic control block and loop count when it is one of those. */
static int cc_gif_anim_extension(cc_gif_anim *a, GraphicsControlBlock *gcb, int *has_gcb, int *loop_count) {
    int code = 0;
    GifByteType *ext = NULL;
    if (DGifGetExtension(a->file, &code, &ext) == GIF_ERROR) return cc_gif_anim_fail(a, a->file->Error, "extension");
    int netscape = 0;
    if (code == GRAPHICS_EXT_FUNC_CODE && ext != NULL && ext[0] >= 4) {
        if (DGifExtensionToGCB(ext[0], ext + 1, gcb) == GIF_OK) *has_gcb = 1;
    } else if (code == APPLICATION_EXT_FUNC_CODE && ext != NULL && ext[0] == 11
               && (memcmp(ext + 1, "NETSCAPE2.0", 11) == 0 || memcmp(ext + 1, "ANIMEXTS1.0", 11) == 0)) {
        netscape = 1;
    }
    for (;;) {
        if (DGifGetExtensionNext(a->file, &ext) == GIF_ERROR) return cc_gif_anim_fail(a, a->file->Error, "extension");
        if (ext == NULL) break;
        /* The sub-block after the application identifier: 1, then the loop count (little-endian). */
        if (netscape && ext[0] >= 3 && ext[1] == 1) {
            *loop_count = ext[2] | (ext[3] << 8);
            netscape = 0;
        }
    }
    return CC_OK;
}

static int cc_gif_anim_skip_image(cc_gif_anim *a) {
    int code_size = 0;
    GifByteType *block = NULL;
    if (DGifGetCode(a->file, &code_size, &block) == GIF_ERROR) return cc_gif_anim_fail(a, a->file->Error, "frame data");
    while (block != NULL) {
        if (DGifGetCodeNext(a->file, &block) == GIF_ERROR) return cc_gif_anim_fail(a, a->file->Error, "frame data");
    }
    return CC_OK;
}

int cc_gif_anim_open(cc_gif_anim *a, int32_t max_frames, cc_motion_info *out) {
    memset(out, 0, sizeof *out);
    int status = cc_gif_anim_start(a);
    if (status != CC_OK) return status;
    GifFileType *f = a->file;
    if (f->SWidth <= 0 || f->SHeight <= 0) {
        cc_messages_set_error(&a->msg, "empty logical screen");
        return CC_INVALID;
    }
    a->width = f->SWidth;
    a->height = f->SHeight;
    out->width = (uint32_t)f->SWidth;
    out->height = (uint32_t)f->SHeight;
    out->loop_count = -1;
    out->rotation = 0;
    snprintf(out->codec, sizeof out->codec, "gif");
    snprintf(out->container, sizeof out->container, "gif");
    int frames = 0, has_gcb = 0, first_delay = -1, uniform = 1;
    int64_t centiseconds = 0;
    GraphicsControlBlock gcb = { 0 };
    int loop_count = -1;
    /* A damaged or truncated file ends the walk: the frames whose descriptors arrived are counted. */
    for (;;) {
        if (frames > max_frames) break;
        GifRecordType type;
        if (DGifGetRecordType(f, &type) == GIF_ERROR) break;
        if (type == TERMINATE_RECORD_TYPE) break;
        if (type == EXTENSION_RECORD_TYPE) {
            if (cc_gif_anim_extension(a, &gcb, &has_gcb, &loop_count) != CC_OK) break;
            continue;
        }
        if (type != IMAGE_DESC_RECORD_TYPE) continue;
        if (DGifGetImageDesc(f) == GIF_ERROR) break;
        frames++;
        int delay = cc_gif_delay_cs(has_gcb ? gcb.DelayTime : 0);
        centiseconds += delay;
        if (first_delay < 0) first_delay = delay;
        else if (delay != first_delay) uniform = 0;
        if (has_gcb && gcb.TransparentColor >= 0) out->has_alpha = 1;
        GifImageDesc *d = &f->Image;
        if (d->Left > 0 || d->Top > 0 || d->Left + d->Width < a->width || d->Top + d->Height < a->height)
            out->has_alpha = 1;
        has_gcb = 0;
        if (cc_gif_anim_skip_image(a) != CC_OK) break;
    }
    a->msg.error[0] = '\0';
    cc_gif_anim_close(a);
    if (frames == 0) {
        cc_messages_set_error(&a->msg, "no image in the file");
        return a->hit_eof ? CC_TRUNCATED : CC_INVALID;
    }
    out->frame_count = frames;
    out->duration = (double)centiseconds / 100.0;
    /* A rate only when every frame shows for the same time. */
    out->frame_rate = uniform && frames > 1 ? 100.0 / first_delay : -1;
    out->loop_count = loop_count;
    /* Decoding starts again from the header. */
    return cc_gif_anim_start(a);
}

/* Clears (background) or restores (previous) the last frame's rectangle, as its disposal says. */
static void cc_gif_anim_dispose(cc_gif_anim *a) {
    if (a->last_w <= 0 || a->last_h <= 0) return;
    size_t row_bytes = (size_t)a->width * 4;
    if (a->last_disposal == DISPOSE_BACKGROUND) {
        /* Browsers clear to transparent, not to the background colour the screen descriptor names. */
        for (int y = a->last_y; y < a->last_y + a->last_h; y++)
            memset(a->canvas + (size_t)y * row_bytes + (size_t)a->last_x * 4, 0, (size_t)a->last_w * 4);
    } else if (a->last_disposal == DISPOSE_PREVIOUS && a->saved != NULL) {
        for (int y = a->last_y; y < a->last_y + a->last_h; y++) {
            size_t at = (size_t)y * row_bytes + (size_t)a->last_x * 4;
            memcpy(a->canvas + at, a->saved + at, (size_t)a->last_w * 4);
        }
    }
}

int cc_gif_anim_next(cc_gif_anim *a, uint8_t *rgba, size_t row_bytes, size_t capacity, cc_motion_frame *frame, int *got,
                     cc_cancel_check check) {
    *got = 0;
    memset(frame, 0, sizeof *frame);
    if (a->file == NULL || a->ended) return CC_OK;
    if (!cc_rgba_fits(a->width, a->height, row_bytes, capacity)) {
        cc_messages_set_error(&a->msg, "the frame buffer does not hold the screen");
        return CC_INVALID;
    }
    GifFileType *f = a->file;
    size_t screen_bytes = (size_t)a->width * (size_t)a->height * 4;
    if (a->canvas == NULL) {
        a->canvas = (uint8_t *)calloc(1, screen_bytes);
        if (a->canvas == NULL) {
            cc_messages_set_error(&a->msg, "out of memory");
            return CC_NOMEM;
        }
    }
    GraphicsControlBlock gcb = { 0 };
    gcb.TransparentColor = NO_TRANSPARENT_COLOR;
    int has_gcb = 0, loop_count = -1;
    for (;;) {
        GifRecordType type;
        if (DGifGetRecordType(f, &type) == GIF_ERROR || type == TERMINATE_RECORD_TYPE) {
            /* The end, or data that breaks between frames: the frames so far are the animation. */
            a->ended = 1;
            return CC_OK;
        }
        if (type == EXTENSION_RECORD_TYPE) {
            if (cc_gif_anim_extension(a, &gcb, &has_gcb, &loop_count) != CC_OK) {
                a->msg.error[0] = '\0';
                a->ended = 1;
                return CC_OK;
            }
            continue;
        }
        if (type == IMAGE_DESC_RECORD_TYPE) break;
    }
    if (DGifGetImageDesc(f) == GIF_ERROR) {
        a->ended = 1;
        return CC_OK;
    }
    if (!has_gcb) gcb.TransparentColor = NO_TRANSPARENT_COLOR;
    cc_gif_anim_dispose(a);
    GifImageDesc *d = &f->Image;
    int disposal = has_gcb ? gcb.DisposalMode : DISPOSE_DO_NOT;
    /* The frame's rectangle clipped to the screen (a frame may lie about its place or size). */
    int x0 = d->Left < 0 ? 0 : d->Left, y0 = d->Top < 0 ? 0 : d->Top;
    int x1 = d->Left + d->Width, y1 = d->Top + d->Height;
    if (x1 > a->width) x1 = a->width;
    if (y1 > a->height) y1 = a->height;
    int visible_w = x1 > x0 ? x1 - x0 : 0, visible_h = y1 > y0 ? y1 - y0 : 0;
    if (disposal == DISPOSE_PREVIOUS) {
        if (a->saved == NULL) a->saved = (uint8_t *)malloc(screen_bytes);
        if (a->saved == NULL) {
            cc_messages_set_error(&a->msg, "out of memory");
            return CC_NOMEM;
        }
        memcpy(a->saved, a->canvas, screen_bytes);
    }
    a->last_x = x0;
    a->last_y = y0;
    a->last_w = visible_w;
    a->last_h = visible_h;
    a->last_disposal = disposal;
    int status = CC_OK;
    int truncated = 0, rows_done = 0;
    if (d->Width > 0 && d->Height > 0) {
        if (d->Width > a->line_capacity) {
            free(a->line);
            a->line = (GifPixelType *)malloc((size_t)d->Width);
            a->line_capacity = a->line ? d->Width : 0;
            if (a->line == NULL) {
                cc_messages_set_error(&a->msg, "out of memory");
                return CC_NOMEM;
            }
        }
        uint32_t table[256];
        ColorMapObject *colors = d->ColorMap != NULL ? d->ColorMap : f->SColorMap;
        int transparent = gcb.TransparentColor;
        cc_gif_color_table(colors, transparent, table);
        static const int start[4] = { 0, 4, 2, 1 }, step[4] = { 8, 8, 4, 2 };
        int passes = d->Interlace ? 4 : 1;
        int skip = x0 - d->Left;
        size_t screen_row = (size_t)a->width * 4;
        for (int pass = 0; pass < passes && !truncated; pass++) {
            int first = d->Interlace ? start[pass] : 0, dy = d->Interlace ? step[pass] : 1;
            for (int fy = first; fy < d->Height; fy += dy) {
                if (rows_done % CC_GIF_ANIM_BAND == 0 && cc_cancelled(check)) return CC_CANCELLED;
                if (DGifGetLine(f, a->line, d->Width) == GIF_ERROR) {
                    /* Browsers show the rows that arrived, and the animation ends with this frame. */
                    truncated = 1;
                    break;
                }
                rows_done++;
                int y = d->Top + fy;
                if (y < y0 || y >= y1 || visible_w <= 0) continue;
                uint8_t *row = a->canvas + (size_t)y * screen_row + (size_t)x0 * 4;
                const GifPixelType *src = a->line + skip;
                if (transparent < 0) {
                    for (int x = 0; x < visible_w; x++) memcpy(row + (size_t)x * 4, &table[src[x]], 4);
                } else {
                    for (int x = 0; x < visible_w; x++)
                        if (src[x] != transparent) memcpy(row + (size_t)x * 4, &table[src[x]], 4);
                }
            }
        }
    } else if (cc_gif_anim_skip_image(a) != CC_OK) {
        truncated = 1;
    }
    if (truncated) {
        a->msg.error[0] = '\0';
        a->ended = 1;
        if (rows_done == 0) return status;  /* nothing of this frame arrived: the animation ended before it */
    }
    for (int y = 0; y < a->height; y++)
        memcpy(rgba + (size_t)y * row_bytes, a->canvas + (size_t)y * a->width * 4, (size_t)a->width * 4);
    double duration = cc_gif_delay_cs(has_gcb ? gcb.DelayTime : 0) / 100.0;
    frame->time = a->time;
    frame->duration = duration;
    frame->truncated = truncated;
    a->time += duration;
    a->index++;
    *got = 1;
    return status;
}

const char *cc_gif_anim_message(const cc_gif_anim *a) { return a->msg.error; }
