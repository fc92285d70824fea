#ifndef CWEBM_INSPECTION_H
#define CWEBM_INSPECTION_H
/* Test support, not part of the worker: reads a WebM the encoder wrote back through FFmpeg, without the hardening
 * of the worker's own decoder (cc_video.c), which is why it lives here and not in CCodecs. */
#include <stddef.h>
#include <stdint.h>

/* What a WebM holds, read back with libavformat and decoded with libvpx-vp9 (which reads the BlockAdditional
 * alpha), for tests of the encoder. Frame `index`'s alpha plane and luma plane (width*height bytes each, either may
 * be NULL) and its pts in ms; counts of video/audio streams and frames; the stream's alpha_mode tag (0 when
 * absent); the container's duration in ms. */
typedef struct cwi_webm_facts {
    int video_streams;
    int audio_streams;
    int frames;
    int alpha_mode;
    int has_alpha_plane;   /* the decoded frame of `index` came out as yuva420p */
    uint32_t width;
    uint32_t height;
    int64_t duration_ms;
    int64_t pts_ms;        /* of frame `index` */
    char codec[32];
} cwi_webm_facts;
int cwi_webm_inspect(const uint8_t *data, size_t size, int index, uint8_t *alpha, uint8_t *luma, size_t capacity,
                     cwi_webm_facts *facts, char *error, size_t error_size);
#endif
