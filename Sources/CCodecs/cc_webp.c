/* WebP through libwebp: features and chunks from the demuxer, still images decoded incrementally (so a
 * cancellation check runs between input chunks), animations through WebPAnimDecoder (first frame only). */
#include "CCodecs.h"
#include "cc_messages.h"
#include "cc_bounds.h"
#include <webp/decode.h>
#include <webp/demux.h>
#include <webp/encode.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Input bytes handed to the incremental decoder between two cancellation checks. */
#define CC_WEBP_STEP (256u * 1024u)

struct cc_webp {
    const uint8_t *data;
    size_t size;
    WebPDemuxer *demux;
    int animated;
    uint32_t width, height;
    cc_messages msg;
};

static const char *cc_webp_status_text(VP8StatusCode s) {
    switch (s) {
    case VP8_STATUS_OUT_OF_MEMORY: return "out of memory";
    case VP8_STATUS_INVALID_PARAM: return "invalid parameter";
    case VP8_STATUS_BITSTREAM_ERROR: return "bitstream error";
    case VP8_STATUS_UNSUPPORTED_FEATURE: return "unsupported feature";
    case VP8_STATUS_SUSPENDED: return "data ended before the image did";
    case VP8_STATUS_USER_ABORT: return "aborted";
    case VP8_STATUS_NOT_ENOUGH_DATA: return "data ended before the image did";
    default: return "decoder error";
    }
}

static int cc_webp_status(cc_webp *w, VP8StatusCode s, const char *where) {
    char text[160];
    snprintf(text, sizeof text, "%s: %s", where, cc_webp_status_text(s));
    cc_messages_set_error(&w->msg, text);
    switch (s) {
    case VP8_STATUS_OUT_OF_MEMORY: return CC_NOMEM;
    case VP8_STATUS_UNSUPPORTED_FEATURE: return CC_UNSUPPORTED;
    case VP8_STATUS_SUSPENDED:
    case VP8_STATUS_NOT_ENOUGH_DATA: return CC_TRUNCATED;
    default: return CC_INVALID;
    }
}

cc_webp *cc_webp_create(const uint8_t *data, size_t size) {
    cc_webp *w = (cc_webp *)calloc(1, sizeof *w);
    if (w == NULL) return NULL;
    w->data = data;
    w->size = size;
    return w;
}

void cc_webp_destroy(cc_webp *w) {
    if (w == NULL) return;
    WebPDemuxDelete(w->demux);
    free(w);
}

int cc_webp_open(cc_webp *w, cc_frame_info *out) {
    memset(out, 0, sizeof *out);
    WebPBitstreamFeatures features;
    VP8StatusCode s = WebPGetFeatures(w->data, w->size, &features);
    if (s != VP8_STATUS_OK) return cc_webp_status(w, s, "header");
    WebPData whole = { w->data, w->size };
    WebPDemuxState state;
    w->demux = WebPDemuxPartial(&whole, &state);
    if (w->demux == NULL || state == WEBP_DEMUX_PARSE_ERROR) {
        cc_messages_set_error(&w->msg, "malformed RIFF/WebP container");
        return CC_INVALID;
    }
    w->width = WebPDemuxGetI(w->demux, WEBP_FF_CANVAS_WIDTH);
    w->height = WebPDemuxGetI(w->demux, WEBP_FF_CANVAS_HEIGHT);
    uint32_t flags = WebPDemuxGetI(w->demux, WEBP_FF_FORMAT_FLAGS);
    w->animated = features.has_animation || (flags & ANIMATION_FLAG) != 0;
    if (w->width == 0 || w->height == 0) {
        cc_messages_set_error(&w->msg, "empty canvas");
        return CC_INVALID;
    }
    out->width = w->width;
    out->height = w->height;
    out->has_alpha = features.has_alpha || (flags & ALPHA_FLAG) != 0;
    out->bit_depth = 8;
    out->frame_count = (int32_t)WebPDemuxGetI(w->demux, WEBP_FF_FRAME_COUNT);
    if (out->frame_count < 1) out->frame_count = 1;
    out->lossless = features.format == 2;
    return CC_OK;
}

static const uint8_t *cc_webp_chunk(cc_webp *w, const char *fourcc, size_t *length) {
    *length = 0;
    if (w->demux == NULL) return NULL;
    WebPChunkIterator it;
    if (!WebPDemuxGetChunk(w->demux, fourcc, 1, &it)) return NULL;
    const uint8_t *bytes = it.chunk.bytes;
    *length = it.chunk.size;
    WebPDemuxReleaseChunkIterator(&it);
    return *length > 0 ? bytes : NULL;
}

const uint8_t *cc_webp_icc(cc_webp *w, size_t *length) { return cc_webp_chunk(w, "ICCP", length); }

const uint8_t *cc_webp_exif(cc_webp *w, size_t *length) {
    const uint8_t *exif = cc_webp_chunk(w, "EXIF", length);
    /* Some writers keep JPEG's "Exif\0\0" prefix in front of the TIFF header. */
    if (exif != NULL && *length >= 6 && memcmp(exif, "Exif\0\0", 6) == 0) {
        *length -= 6;
        return *length > 0 ? exif + 6 : NULL;
    }
    return exif;
}

static int cc_webp_decode_animation(cc_webp *w, uint8_t *rgba, size_t row_bytes) {
    WebPAnimDecoderOptions options;
    if (!WebPAnimDecoderOptionsInit(&options)) {
        cc_messages_set_error(&w->msg, "libwebp version mismatch");
        return CC_UNSUPPORTED;
    }
    options.color_mode = MODE_RGBA;
    options.use_threads = 0;
    WebPData whole = { w->data, w->size };
    WebPAnimDecoder *dec = WebPAnimDecoderNew(&whole, &options);
    if (dec == NULL) {
        cc_messages_set_error(&w->msg, "animation: malformed or truncated frames");
        return CC_INVALID;
    }
    uint8_t *frame = NULL;
    int timestamp = 0;
    int status = CC_OK;
    if (!WebPAnimDecoderGetNext(dec, &frame, &timestamp) || frame == NULL) {
        cc_messages_set_error(&w->msg, "animation: the first frame does not decode");
        status = CC_INVALID;
    } else {
        for (uint32_t y = 0; y < w->height; y++)
            memcpy(rgba + (size_t)y * row_bytes, frame + (size_t)y * w->width * 4, (size_t)w->width * 4);
    }
    WebPAnimDecoderDelete(dec);
    return status;
}

int cc_webp_decode(cc_webp *w, uint8_t *rgba, size_t row_bytes, size_t capacity, cc_cancel_check check) {
    if (w->demux == NULL) {
        cc_messages_set_error(&w->msg, "cc_webp_open was not called");
        return CC_INVALID;
    }
    if (!cc_rgba_fits(w->width, w->height, row_bytes, capacity)) {
        cc_messages_set_error(&w->msg, "the image buffer does not hold the picture");
        return CC_INVALID;
    }
    if (w->animated) return cc_webp_decode_animation(w, rgba, row_bytes);
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) {
        cc_messages_set_error(&w->msg, "libwebp version mismatch");
        return CC_UNSUPPORTED;
    }
    config.output.colorspace = MODE_RGBA;
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = rgba;
    config.output.u.RGBA.stride = (int)row_bytes;
    config.output.u.RGBA.size = row_bytes * w->height;
    config.output.width = (int)w->width;
    config.output.height = (int)w->height;
    WebPIDecoder *idec = WebPIDecode(NULL, 0, &config);
    if (idec == NULL) {
        cc_messages_set_error(&w->msg, "out of memory");
        return CC_NOMEM;
    }
    /* The whole file is in memory; it is revealed a step at a time so `check` runs between steps. */
    size_t visible = 0;
    VP8StatusCode s = VP8_STATUS_SUSPENDED;
    int status = CC_OK;
    while (s == VP8_STATUS_SUSPENDED && visible < w->size) {
        if (cc_cancelled(check)) { status = CC_CANCELLED; break; }
        visible = w->size - visible > CC_WEBP_STEP ? visible + CC_WEBP_STEP : w->size;
        s = WebPIUpdate(idec, w->data, visible);
    }
    if (status == CC_OK && s != VP8_STATUS_OK) status = cc_webp_status(w, s, "image data");
    WebPIDelete(idec);
    WebPFreeDecBuffer(&config.output);
    return status;
}

const char *cc_webp_message(const cc_webp *w) { return w->msg.error; }

int cc_webp_encode(const uint8_t *rgba, uint32_t width, uint32_t height, int lossless, float quality, int method,
                   uint8_t **out, size_t *out_length, char *error, size_t error_size) {
    *out = NULL;
    *out_length = 0;
    if (error_size > 0) error[0] = '\0';
    if (width == 0 || height == 0 || width > WEBP_MAX_DIMENSION || height > WEBP_MAX_DIMENSION) {
        if (error_size > 0) snprintf(error, error_size, "WebP dimensions %ux%u exceed %d", width, height, WEBP_MAX_DIMENSION);
        return CC_INVALID;
    }
    WebPConfig config;
    if (!WebPConfigInit(&config)) {
        if (error_size > 0) snprintf(error, error_size, "libwebp version mismatch");
        return CC_UNSUPPORTED;
    }
    if (method < 0 || method > 6) {
        if (error_size > 0) snprintf(error, error_size, "WebP method must be 0...6, got %d", method);
        return CC_INVALID;
    }
    if (lossless) {
        WebPConfigLosslessPreset(&config, method);
    } else {
        config.quality = quality;
        config.method = method;
    }
    /* Keep the colours under fully transparent pixels out of the file: smaller, and nothing hidden leaks. */
    config.exact = 0;
    WebPPicture picture;
    if (!WebPPictureInit(&picture)) {
        if (error_size > 0) snprintf(error, error_size, "libwebp version mismatch");
        return CC_UNSUPPORTED;
    }
    picture.use_argb = lossless ? 1 : 0;
    picture.width = (int)width;
    picture.height = (int)height;
    WebPMemoryWriter writer;
    WebPMemoryWriterInit(&writer);
    picture.writer = WebPMemoryWrite;
    picture.custom_ptr = &writer;
    int status = CC_OK;
    if (!WebPPictureImportRGBA(&picture, rgba, (int)width * 4)) {
        if (error_size > 0) snprintf(error, error_size, "out of memory");
        status = CC_NOMEM;
    } else if (!WebPEncode(&config, &picture)) {
        if (error_size > 0) snprintf(error, error_size, "libwebp encoder error %d", (int)picture.error_code);
        status = picture.error_code == VP8_ENC_ERROR_OUT_OF_MEMORY ? CC_NOMEM : CC_INVALID;
    }
    WebPPictureFree(&picture);
    if (status != CC_OK) {
        WebPMemoryWriterClear(&writer);
        return status;
    }
    /* libwebp's buffer belongs to WebPFree; the caller releases ours with cc_free. */
    *out = (uint8_t *)malloc(writer.size > 0 ? writer.size : 1);
    if (*out == NULL) {
        WebPMemoryWriterClear(&writer);
        if (error_size > 0) snprintf(error, error_size, "out of memory");
        return CC_NOMEM;
    }
    memcpy(*out, writer.mem, writer.size);
    *out_length = writer.size;
    WebPMemoryWriterClear(&writer);
    return CC_OK;
}
