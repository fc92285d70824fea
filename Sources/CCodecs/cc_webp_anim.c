/* Every frame of a WebP animation through libwebpdemux: the demuxer's facts at open (nothing the size of the canvas
 * is allocated), WebPAnimDecoder (which holds the canvas and blends and disposes) created at the first frame. */
#include "CCodecs.h"
#include "cc_messages.h"
#include "cc_bounds.h"
#include <webp/decode.h>
#include <webp/demux.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cc_webp_anim {
    WebPData data;
    WebPDemuxer *demux;
    WebPAnimDecoder *decoder;
    uint32_t width, height;
    int previous_ms;
    cc_messages msg;
};

cc_webp_anim *cc_webp_anim_create(const uint8_t *data, size_t size) {
    cc_webp_anim *a = (cc_webp_anim *)calloc(1, sizeof *a);
    if (a == NULL) return NULL;
    a->data.bytes = data;
    a->data.size = size;
    return a;
}

void cc_webp_anim_destroy(cc_webp_anim *a) {
    if (a == NULL) return;
    WebPAnimDecoderDelete(a->decoder);
    WebPDemuxDelete(a->demux);
    free(a);
}

int cc_webp_anim_open(cc_webp_anim *a, cc_motion_info *out) {
    memset(out, 0, sizeof *out);
    WebPDemuxState state = WEBP_DEMUX_PARSE_ERROR;
    a->demux = WebPDemuxPartial(&a->data, &state);
    if (a->demux == NULL || state != WEBP_DEMUX_DONE) {
        int truncated = a->demux != NULL || state == WEBP_DEMUX_PARSING_HEADER;
        cc_messages_set_error(&a->msg, truncated ? "the data ends before the animation does" : "not a valid WebP container");
        return truncated ? CC_TRUNCATED : CC_INVALID;
    }
    a->width = WebPDemuxGetI(a->demux, WEBP_FF_CANVAS_WIDTH);
    a->height = WebPDemuxGetI(a->demux, WEBP_FF_CANVAS_HEIGHT);
    uint32_t flags = WebPDemuxGetI(a->demux, WEBP_FF_FORMAT_FLAGS);
    out->width = a->width;
    out->height = a->height;
    out->frame_count = (int32_t)WebPDemuxGetI(a->demux, WEBP_FF_FRAME_COUNT);
    out->has_alpha = (flags & ALPHA_FLAG) != 0;
    out->loop_count = (flags & ANIMATION_FLAG) ? (int32_t)WebPDemuxGetI(a->demux, WEBP_FF_LOOP_COUNT) : -1;
    out->frame_rate = -1;
    snprintf(out->codec, sizeof out->codec, "webp");
    snprintf(out->container, sizeof out->container, "webp");
    double duration = 0;
    WebPIterator it;
    if (WebPDemuxGetFrame(a->demux, 1, &it)) {
        do {
            /* A still image's single frame has no duration of its own: it is shown for 0 s. */
            duration += it.duration / 1000.0;
        } while (WebPDemuxNextFrame(&it));
        WebPDemuxReleaseIterator(&it);
    }
    out->duration = duration;
    if (a->width == 0 || a->height == 0 || out->frame_count <= 0) {
        cc_messages_set_error(&a->msg, "no frame in the file");
        return CC_INVALID;
    }
    return CC_OK;
}

int cc_webp_anim_next(cc_webp_anim *a, uint8_t *rgba, size_t row_bytes, size_t capacity, cc_motion_frame *frame,
                      int *got) {
    *got = 0;
    memset(frame, 0, sizeof *frame);
    if (a->demux == NULL) {
        cc_messages_set_error(&a->msg, "cc_webp_anim_open was not called");
        return CC_INVALID;
    }
    if (!cc_rgba_fits(a->width, a->height, row_bytes, capacity)) {
        cc_messages_set_error(&a->msg, "the frame buffer does not hold the canvas");
        return CC_INVALID;
    }
    if (a->decoder == NULL) {
        WebPAnimDecoderOptions options;
        if (!WebPAnimDecoderOptionsInit(&options)) {
            cc_messages_set_error(&a->msg, "libwebp version mismatch");
            return CC_UNSUPPORTED;
        }
        options.color_mode = MODE_RGBA;  /* straight alpha */
        options.use_threads = 0;
        a->decoder = WebPAnimDecoderNew(&a->data, &options);
        if (a->decoder == NULL) {
            cc_messages_set_error(&a->msg, "the animation decoder refused the file");
            return CC_INVALID;
        }
    }
    if (!WebPAnimDecoderHasMoreFrames(a->decoder)) return CC_OK;
    uint8_t *canvas = NULL;
    int timestamp = 0;
    if (!WebPAnimDecoderGetNext(a->decoder, &canvas, &timestamp) || canvas == NULL) {
        cc_messages_set_error(&a->msg, "a frame failed to decode");
        return CC_INVALID;
    }
    for (uint32_t y = 0; y < a->height; y++)
        memcpy(rgba + (size_t)y * row_bytes, canvas + (size_t)y * a->width * 4, (size_t)a->width * 4);
    frame->time = a->previous_ms / 1000.0;
    frame->duration = (timestamp - a->previous_ms) / 1000.0;
    a->previous_ms = timestamp;
    *got = 1;
    return CC_OK;
}

const char *cc_webp_anim_message(const cc_webp_anim *a) { return a->msg.error; }
