/* GIF writing with giflib into memory: GIF89a, NETSCAPE2.0 looping forever, each frame full-screen with its own
 * colour map, a graphics control extension for its delay and transparent index. giflib reports errors as codes;
 * they become the handle's message here. */
#include "CCodecs.h"
#include "CCodecsAnimation.h"
#include "cc_messages.h"
#include <gif_lib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cc_gif_out {
    GifFileType *gif;
    uint32_t width, height;
    uint8_t *data;
    size_t length, capacity;
    int failed_alloc;
    int started;
    cc_messages msg;
};

static int cc_gif_write(GifFileType *gif, const GifByteType *bytes, int count) {
    cc_gif_out *g = (cc_gif_out *)gif->UserData;
    if (count <= 0) return count;
    if (g->length + (size_t)count > g->capacity) {
        size_t capacity = g->capacity ? g->capacity * 2 : 65536;
        while (capacity < g->length + (size_t)count) capacity *= 2;
        uint8_t *grown = (uint8_t *)realloc(g->data, capacity);
        if (grown == NULL) {
            g->failed_alloc = 1;
            return 0;
        }
        g->data = grown;
        g->capacity = capacity;
    }
    memcpy(g->data + g->length, bytes, (size_t)count);
    g->length += (size_t)count;
    return count;
}

static int cc_gif_out_fail(cc_gif_out *g, const char *where) {
    char line[200];
    const char *text = g->failed_alloc ? "out of memory" : GifErrorString(g->gif ? g->gif->Error : 0);
    snprintf(line, sizeof line, "%s: %s", where, text ? text : "giflib failed");
    cc_messages_set_error(&g->msg, line);
    return g->failed_alloc ? CC_NOMEM : CC_INVALID;
}

cc_gif_out *cc_gif_out_create(uint32_t width, uint32_t height) {
    cc_gif_out *g = (cc_gif_out *)calloc(1, sizeof *g);
    if (g == NULL) return NULL;
    g->width = width;
    g->height = height;
    int error = 0;
    g->gif = EGifOpen(g, cc_gif_write, &error);
    if (g->gif == NULL) {
        free(g);
        return NULL;
    }
    return g;
}

void cc_gif_out_destroy(cc_gif_out *g) {
    if (g == NULL) return;
    if (g->gif != NULL) EGifCloseFile(g->gif, NULL);
    free(g->data);
    free(g);
}

/* The screen descriptor and the looping extension, before the first frame. */
static int cc_gif_out_start(cc_gif_out *g) {
    EGifSetGifVersion(g->gif, true);
    if (EGifPutScreenDesc(g->gif, (int)g->width, (int)g->height, 8, 0, NULL) == GIF_ERROR)
        return cc_gif_out_fail(g, "screen descriptor");
    static const GifByteType netscape[11] = {'N', 'E', 'T', 'S', 'C', 'A', 'P', 'E', '2', '.', '0'};
    static const GifByteType loop[3] = {1, 0, 0}; /* sub-block 1, loop count 0: forever */
    if (EGifPutExtensionLeader(g->gif, APPLICATION_EXT_FUNC_CODE) == GIF_ERROR ||
        EGifPutExtensionBlock(g->gif, 11, netscape) == GIF_ERROR ||
        EGifPutExtensionBlock(g->gif, 3, loop) == GIF_ERROR || EGifPutExtensionTrailer(g->gif) == GIF_ERROR)
        return cc_gif_out_fail(g, "loop extension");
    g->started = 1;
    return CC_OK;
}

int cc_gif_out_add(cc_gif_out *g, const uint8_t *indices, const uint8_t *palette, int colors, int transparent,
                   int delay_cs) {
    if (g->gif == NULL) {
        cc_messages_set_error(&g->msg, "GIF already finished");
        return CC_INVALID;
    }
    if (colors < 1 || colors > 256 || transparent >= colors || delay_cs < 0 || delay_cs > 65535) {
        cc_messages_set_error(&g->msg, "bad frame parameters");
        return CC_INVALID;
    }
    if (!g->started) {
        int s = cc_gif_out_start(g);
        if (s != CC_OK) return s;
    }
    int size = 2;
    while (size < colors) size *= 2;
    ColorMapObject *map = GifMakeMapObject(size, NULL);
    if (map == NULL) {
        cc_messages_set_error(&g->msg, "out of memory");
        return CC_NOMEM;
    }
    for (int i = 0; i < colors; i++) {
        map->Colors[i].Red = palette[3 * i];
        map->Colors[i].Green = palette[3 * i + 1];
        map->Colors[i].Blue = palette[3 * i + 2];
    }
    GraphicsControlBlock gcb = {0};
    gcb.DisposalMode = DISPOSE_BACKGROUND;
    gcb.UserInputFlag = false;
    gcb.DelayTime = delay_cs;
    gcb.TransparentColor = transparent < 0 ? NO_TRANSPARENT_COLOR : transparent;
    GifByteType extension[4];
    size_t length = EGifGCBToExtension(&gcb, extension);
    int status = CC_OK;
    if (EGifPutExtension(g->gif, GRAPHICS_EXT_FUNC_CODE, (int)length, extension) == GIF_ERROR) {
        status = cc_gif_out_fail(g, "graphics control extension");
    } else if (EGifPutImageDesc(g->gif, 0, 0, (int)g->width, (int)g->height, false, map) == GIF_ERROR) {
        status = cc_gif_out_fail(g, "image descriptor");
    } else {
        for (uint32_t y = 0; y < g->height && status == CC_OK; y++) {
            if (EGifPutLine(g->gif, (GifPixelType *)(indices + (size_t)y * g->width), (int)g->width) == GIF_ERROR)
                status = cc_gif_out_fail(g, "image data");
        }
    }
    GifFreeMapObject(map);
    return status;
}

int cc_gif_out_finish(cc_gif_out *g, uint8_t **out, size_t *out_length) {
    *out = NULL;
    *out_length = 0;
    if (g->gif == NULL || !g->started) {
        cc_messages_set_error(&g->msg, "GIF has no frames");
        return CC_INVALID;
    }
    int error = 0;
    int closed = EGifCloseFile(g->gif, &error); /* writes the trailer, frees the handle either way */
    g->gif = NULL;
    if (closed == GIF_ERROR || g->failed_alloc) {
        char line[200];
        snprintf(line, sizeof line, "trailer: %s", g->failed_alloc ? "out of memory" : GifErrorString(error));
        cc_messages_set_error(&g->msg, line);
        return g->failed_alloc ? CC_NOMEM : CC_INVALID;
    }
    *out = g->data;
    *out_length = g->length;
    g->data = NULL;
    g->length = g->capacity = 0;
    return CC_OK;
}

const char *cc_gif_out_message(const cc_gif_out *g) { return g->msg.error; }
