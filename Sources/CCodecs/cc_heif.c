/* HEIF/HEIC/AVIF through libheif: the primary image (or its largest thumbnail) with the container's
 * transforms, converted by libheif to interleaved RGBA and copied into the caller's buffer. */
#include "CCodecs.h"
#include "cc_messages.h"
#include <libheif/heif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

struct cc_heif {
    const uint8_t *data;
    size_t size;
    struct heif_context *context;
    struct heif_image_handle *primary;
    struct heif_image_handle *thumbnail;   /* the largest one, NULL when none */
    uint8_t *icc;
    size_t icc_length;
    cc_messages msg;
};

/* heif_init loads the decoder plugins once per process; its reference count is never released. */
static pthread_once_t cc_heif_once = PTHREAD_ONCE_INIT;
static void cc_heif_init(void) { heif_init(NULL); }

static int cc_heif_fail(cc_heif *h, struct heif_error e, const char *where) {
    char text[200];
    snprintf(text, sizeof text, "%s: %s", where, e.message ? e.message : "libheif error");
    cc_messages_set_error(&h->msg, text);
    switch (e.code) {
    case heif_error_Memory_allocation_error: return CC_NOMEM;
    case heif_error_Unsupported_filetype:
    case heif_error_Unsupported_feature:
    case heif_error_Decoder_plugin_error:
        /* A missing codec is a plugin error without data damage. */
        return e.subcode == heif_suberror_Unsupported_codec || e.code != heif_error_Decoder_plugin_error
            ? CC_UNSUPPORTED : CC_INVALID;
    case heif_error_Invalid_input:
        if (e.subcode == heif_suberror_End_of_data) return CC_TRUNCATED;
        if (e.subcode == heif_suberror_Security_limit_exceeded) return CC_LIMIT;
        return CC_INVALID;
    default: return CC_INVALID;
    }
}

cc_heif *cc_heif_create(const uint8_t *data, size_t size) {
    pthread_once(&cc_heif_once, cc_heif_init);
    cc_heif *h = (cc_heif *)calloc(1, sizeof *h);
    if (h == NULL) return NULL;
    h->data = data;
    h->size = size;
    return h;
}

void cc_heif_destroy(cc_heif *h) {
    if (h == NULL) return;
    if (h->thumbnail != NULL) heif_image_handle_release(h->thumbnail);
    if (h->primary != NULL) heif_image_handle_release(h->primary);
    if (h->context != NULL) heif_context_free(h->context);
    free(h->icc);
    free(h);
}

/* ---- The primary item's type, read from the container itself (libheif 1.15 has no API for it). ---- */

static uint32_t cc_be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }
static uint32_t cc_be16(const uint8_t *p) { return (uint32_t)p[0] << 8 | p[1]; }

/* The box starting at `p` (at most `left` bytes): its type and payload. 0 when it does not fit. */
static int cc_box(const uint8_t *p, size_t left, uint32_t *type, const uint8_t **payload, size_t *length, size_t *whole) {
    if (left < 8) return 0;
    uint64_t size = cc_be32(p);
    size_t header = 8;
    if (size == 1) {
        if (left < 16) return 0;
        size = (uint64_t)cc_be32(p + 8) << 32 | cc_be32(p + 12);
        header = 16;
    } else if (size == 0) {
        size = left;
    }
    if (size < header || size > left) return 0;
    *type = cc_be32(p + 4);
    *payload = p + header;
    *length = (size_t)size - header;
    *whole = (size_t)size;
    return 1;
}

#define CC_FOURCC(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (uint32_t)(d))

/* Writes the four-character type of the primary item (pitm, looked up in iinf) to `type`; 0 if not found. */
static int cc_heif_primary_type(const uint8_t *data, size_t size, char type[5]) {
    const uint8_t *meta = NULL;
    size_t meta_length = 0;
    for (size_t at = 0, whole = 0; at < size; at += whole) {
        uint32_t t; const uint8_t *payload; size_t length;
        if (!cc_box(data + at, size - at, &t, &payload, &length, &whole)) return 0;
        if (t == CC_FOURCC('m', 'e', 't', 'a') && length >= 4) { meta = payload + 4; meta_length = length - 4; break; }
    }
    if (meta == NULL) return 0;
    uint32_t primary = 0;
    int has_primary = 0;
    const uint8_t *iinf = NULL;
    size_t iinf_length = 0;
    for (size_t at = 0, whole = 0; at < meta_length; at += whole) {
        uint32_t t; const uint8_t *payload; size_t length;
        if (!cc_box(meta + at, meta_length - at, &t, &payload, &length, &whole)) return 0;
        if (t == CC_FOURCC('p', 'i', 't', 'm') && length >= 6) {
            primary = payload[0] == 0 ? cc_be16(payload + 4) : (length >= 8 ? cc_be32(payload + 4) : 0);
            has_primary = 1;
        } else if (t == CC_FOURCC('i', 'i', 'n', 'f') && length >= 6) {
            size_t skip = payload[0] == 0 ? 6 : 8;
            if (length < skip) return 0;
            iinf = payload + skip;
            iinf_length = length - skip;
        }
    }
    if (!has_primary || iinf == NULL) return 0;
    for (size_t at = 0, whole = 0; at < iinf_length; at += whole) {
        uint32_t t; const uint8_t *payload; size_t length;
        if (!cc_box(iinf + at, iinf_length - at, &t, &payload, &length, &whole)) return 0;
        if (t != CC_FOURCC('i', 'n', 'f', 'e') || length < 4 || payload[0] < 2) continue;
        /* infe version 2: item_ID u16; version 3: u32; then item_protection_index u16 and item_type. */
        size_t id_size = payload[0] == 2 ? 2 : 4;
        if (length < 4 + id_size + 2 + 4) continue;
        uint32_t id = id_size == 2 ? cc_be16(payload + 4) : cc_be32(payload + 4);
        if (id != primary) continue;
        memcpy(type, payload + 4 + id_size + 2, 4);
        type[4] = 0;
        return 1;
    }
    return 0;
}

int cc_heif_open(cc_heif *h, int max_side, cc_frame_info *out) {
    memset(out, 0, sizeof *out);
    h->context = heif_context_alloc();
    if (h->context == NULL) {
        cc_messages_set_error(&h->msg, "out of memory");
        return CC_NOMEM;
    }
    /* libheif refuses images (and grids) whose ispe side exceeds this before it allocates them. */
    if (max_side > 0) heif_context_set_maximum_image_size_limit(h->context, max_side);
    /* The worker decodes photos side by side on its own threads; libheif's tile threads would oversubscribe. */
    heif_context_set_max_decoding_threads(h->context, 0);
    if (h->size > (size_t)INT32_MAX) {
        cc_messages_set_error(&h->msg, "file larger than 2 GiB");
        return CC_LIMIT;
    }
    /* An overlay's canvas size comes from its own data, not from the ispe this decoder checks against the
       worker's budget, and libheif 1.15 allocates it before drawing (a fuzzed file declared 4501 x 64171 on a
       64 x 64 ispe). Phone photos are not stored as overlays: refuse them rather than trust the canvas. */
    char primary_type[5];
    if (cc_heif_primary_type(h->data, h->size, primary_type) && strcmp(primary_type, "iovl") == 0) {
        cc_messages_set_error(&h->msg, "overlay images (iovl) are not supported");
        return CC_UNSUPPORTED;
    }
    struct heif_error e = heif_context_read_from_memory_without_copy(h->context, h->data, h->size, NULL);
    if (e.code != heif_error_Ok) return cc_heif_fail(h, e, "container");
    e = heif_context_get_primary_image_handle(h->context, &h->primary);
    if (e.code != heif_error_Ok) return cc_heif_fail(h, e, "primary image");
    int width = heif_image_handle_get_width(h->primary), height = heif_image_handle_get_height(h->primary);
    if (width <= 0 || height <= 0) {
        cc_messages_set_error(&h->msg, "the primary image has no size");
        return CC_INVALID;
    }
    out->width = (uint32_t)width;
    out->height = (uint32_t)height;
    out->has_alpha = heif_image_handle_has_alpha_channel(h->primary) ? 1 : 0;
    out->bit_depth = heif_image_handle_get_luma_bits_per_pixel(h->primary);
    out->frame_count = heif_context_get_number_of_top_level_images(h->context);
    if (out->frame_count < 1) out->frame_count = 1;

    int thumbs = heif_image_handle_get_number_of_thumbnails(h->primary);
    if (thumbs > 0) {
        heif_item_id ids[16];
        int n = heif_image_handle_get_list_of_thumbnail_IDs(h->primary, ids, thumbs < 16 ? thumbs : 16);
        long best = 0;
        for (int i = 0; i < n; i++) {
            struct heif_image_handle *t = NULL;
            if (heif_image_handle_get_thumbnail(h->primary, ids[i], &t).code != heif_error_Ok || t == NULL) continue;
            long tw = heif_image_handle_get_width(t), th = heif_image_handle_get_height(t);
            if (tw > 0 && th > 0 && tw <= width && th <= height && tw * th > best) {
                best = tw * th;
                if (h->thumbnail != NULL) heif_image_handle_release(h->thumbnail);
                h->thumbnail = t;
                out->thumbnail_width = (uint32_t)tw;
                out->thumbnail_height = (uint32_t)th;
            } else {
                heif_image_handle_release(t);
            }
        }
    }
    return CC_OK;
}

const uint8_t *cc_heif_icc(cc_heif *h, size_t *length) {
    *length = 0;
    if (h->primary == NULL) return NULL;
    if (h->icc == NULL) {
        size_t n = heif_image_handle_get_raw_color_profile_size(h->primary);
        if (n == 0 || n > (64u << 20)) return NULL;
        h->icc = (uint8_t *)malloc(n);
        if (h->icc == NULL) return NULL;
        if (heif_image_handle_get_raw_color_profile(h->primary, h->icc).code != heif_error_Ok) {
            free(h->icc);
            h->icc = NULL;
            return NULL;
        }
        h->icc_length = n;
    }
    *length = h->icc_length;
    return h->icc;
}

int cc_heif_nclx(cc_heif *h, int *primaries, int *transfer, int *matrix, int *full_range, float chromaticities[8]) {
    if (h->primary == NULL) return 0;
    struct heif_color_profile_nclx *nclx = NULL;
    if (heif_image_handle_get_nclx_color_profile(h->primary, &nclx).code != heif_error_Ok || nclx == NULL) return 0;
    *primaries = (int)nclx->color_primaries;
    *transfer = (int)nclx->transfer_characteristics;
    *matrix = (int)nclx->matrix_coefficients;
    *full_range = nclx->full_range_flag;
    chromaticities[0] = nclx->color_primary_red_x;
    chromaticities[1] = nclx->color_primary_red_y;
    chromaticities[2] = nclx->color_primary_green_x;
    chromaticities[3] = nclx->color_primary_green_y;
    chromaticities[4] = nclx->color_primary_blue_x;
    chromaticities[5] = nclx->color_primary_blue_y;
    chromaticities[6] = nclx->color_primary_white_x;
    chromaticities[7] = nclx->color_primary_white_y;
    heif_nclx_color_profile_free(nclx);
    return 1;
}

int cc_heif_decode(cc_heif *h, int thumbnail, uint8_t *rgba, size_t capacity, uint32_t *width, uint32_t *height,
                   cc_cancel_check check) {
    struct heif_image_handle *handle = thumbnail ? h->thumbnail : h->primary;
    if (handle == NULL) {
        cc_messages_set_error(&h->msg, thumbnail ? "no thumbnail" : "cc_heif_open was not called");
        return CC_INVALID;
    }
    if (cc_cancelled(check)) return CC_CANCELLED;
    struct heif_decoding_options *options = heif_decoding_options_alloc();
    if (options == NULL) {
        cc_messages_set_error(&h->msg, "out of memory");
        return CC_NOMEM;
    }
    options->convert_hdr_to_8bit = 1;
    struct heif_image *image = NULL;
    struct heif_error e = heif_decode_image(handle, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGBA, options);
    heif_decoding_options_free(options);
    if (e.code != heif_error_Ok) return cc_heif_fail(h, e, "image data");
    int status = CC_OK;
    int w = heif_image_get_width(image, heif_channel_interleaved);
    int ht = heif_image_get_height(image, heif_channel_interleaved);
    int stride = 0;
    const uint8_t *plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride);
    int bits = heif_image_get_bits_per_pixel_range(image, heif_channel_interleaved);
    if (cc_cancelled(check)) {
        status = CC_CANCELLED;
    } else if (plane == NULL || w <= 0 || ht <= 0 || bits != 8) {
        cc_messages_set_error(&h->msg, "libheif returned no 8-bit RGBA plane");
        status = CC_INVALID;
    } else if ((size_t)w * (size_t)ht * 4 > capacity) {
        /* The decoded size is the transformed ispe size the caller budgeted for; anything larger is refused. */
        char text[120];
        snprintf(text, sizeof text, "decoded image %dx%d is larger than its header said", w, ht);
        cc_messages_set_error(&h->msg, text);
        status = CC_INVALID;
    } else {
        for (int y = 0; y < ht; y++) memcpy(rgba + (size_t)y * w * 4, plane + (size_t)y * stride, (size_t)w * 4);
        *width = (uint32_t)w;
        *height = (uint32_t)ht;
    }
    heif_image_release(image);
    return status;
}

const char *cc_heif_message(const cc_heif *h) { return h->msg.error; }
