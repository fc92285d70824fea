/* Animated WebP written with libwebpmux's WebPAnimEncoder (it picks each frame's sub-rectangle, blending and
 * disposal), read back with libwebpdemux's WebPAnimDecoder for the tests. */
#include "CCodecs.h"
#include "CCodecsAnimation.h"
#include "cc_messages.h"
#include <webp/demux.h>
#include <webp/encode.h>
#include <webp/mux.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cc_webp_animenc {
    WebPAnimEncoder *encoder;
    WebPConfig config;
    uint32_t width, height;
    cc_messages msg;
};

cc_webp_animenc *cc_webp_animenc_create(uint32_t width, uint32_t height, float quality, int method, int kmin, int kmax) {
    cc_webp_animenc *a = (cc_webp_animenc *)calloc(1, sizeof *a);
    if (a == NULL) return NULL;
    a->width = width;
    a->height = height;
    WebPAnimEncoderOptions options;
    if (!WebPAnimEncoderOptionsInit(&options) || !WebPConfigInit(&a->config)) {
        free(a);
        return NULL;
    }
    options.anim_params.loop_count = 0;
    options.kmin = kmin;
    options.kmax = kmax;
    options.allow_mixed = 0;
    a->config.lossless = 0;
    a->config.quality = quality;
    a->config.method = method;
    a->config.alpha_compression = 1;
    a->config.alpha_quality = 100;
    a->config.exact = 0;
    if (!WebPValidateConfig(&a->config)) {
        free(a);
        return NULL;
    }
    a->encoder = WebPAnimEncoderNew((int)width, (int)height, &options);
    if (a->encoder == NULL) {
        free(a);
        return NULL;
    }
    return a;
}

void cc_webp_animenc_destroy(cc_webp_animenc *a) {
    if (a == NULL) return;
    WebPAnimEncoderDelete(a->encoder);
    free(a);
}

static int cc_webp_animenc_fail(cc_webp_animenc *a, const char *where) {
    const char *text = WebPAnimEncoderGetError(a->encoder);
    char line[200];
    snprintf(line, sizeof line, "%s: %s", where, text && *text ? text : "libwebp failed");
    cc_messages_set_error(&a->msg, line);
    return CC_INVALID;
}

int cc_webp_animenc_add(cc_webp_animenc *a, const uint8_t *rgba, int timestamp_ms) {
    WebPPicture picture;
    if (!WebPPictureInit(&picture)) return CC_NOMEM;
    picture.use_argb = 1;
    picture.width = (int)a->width;
    picture.height = (int)a->height;
    if (!WebPPictureImportRGBA(&picture, rgba, (int)a->width * 4)) {
        WebPPictureFree(&picture);
        cc_messages_set_error(&a->msg, "out of memory importing a frame");
        return CC_NOMEM;
    }
    int ok = WebPAnimEncoderAdd(a->encoder, &picture, timestamp_ms, &a->config);
    WebPPictureFree(&picture);
    return ok ? CC_OK : cc_webp_animenc_fail(a, "adding a frame");
}

int cc_webp_animenc_finish(cc_webp_animenc *a, int end_ms, uint8_t **out, size_t *out_length) {
    *out = NULL;
    *out_length = 0;
    if (!WebPAnimEncoderAdd(a->encoder, NULL, end_ms, NULL)) return cc_webp_animenc_fail(a, "ending");
    WebPData data;
    WebPDataInit(&data);
    if (!WebPAnimEncoderAssemble(a->encoder, &data)) return cc_webp_animenc_fail(a, "assembling");
    *out = (uint8_t *)malloc(data.size);
    if (*out == NULL) {
        WebPDataClear(&data);
        cc_messages_set_error(&a->msg, "out of memory");
        return CC_NOMEM;
    }
    memcpy(*out, data.bytes, data.size);
    *out_length = data.size;
    WebPDataClear(&data);
    return CC_OK;
}

const char *cc_webp_animenc_message(const cc_webp_animenc *a) { return a->msg.error; }

int cc_webp_anim_frame_at(const uint8_t *data, size_t size, int index, uint8_t *rgba, size_t capacity,
                              uint32_t *width, uint32_t *height, int *frame_count, int *loop_count, int *end_ms) {
    WebPData whole = { data, size };
    WebPAnimDecoderOptions options;
    if (!WebPAnimDecoderOptionsInit(&options)) return CC_INVALID;
    options.color_mode = MODE_RGBA;
    options.use_threads = 0;
    WebPAnimDecoder *decoder = WebPAnimDecoderNew(&whole, &options);
    if (decoder == NULL) return CC_INVALID;
    WebPAnimInfo info;
    if (!WebPAnimDecoderGetInfo(decoder, &info)) {
        WebPAnimDecoderDelete(decoder);
        return CC_INVALID;
    }
    *width = info.canvas_width;
    *height = info.canvas_height;
    *frame_count = (int)info.frame_count;
    *loop_count = (int)info.loop_count;
    size_t need = (size_t)info.canvas_width * info.canvas_height * 4;
    int status = CC_INVALID;
    for (int i = 0; i <= index && WebPAnimDecoderHasMoreFrames(decoder); i++) {
        uint8_t *frame;
        int timestamp;
        if (!WebPAnimDecoderGetNext(decoder, &frame, &timestamp)) break;
        if (i == index) {
            if (rgba != NULL && capacity >= need) memcpy(rgba, frame, need);
            *end_ms = timestamp;
            status = CC_OK;
        }
    }
    WebPAnimDecoderDelete(decoder);
    return status;
}
