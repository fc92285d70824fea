#ifndef CCODECS_ANIMATION_H
#define CCODECS_ANIMATION_H
/*
 * Animation encoders of the C shim, fed one frame at a time: animated WebP (libwebpmux's WebPAnimEncoder), GIF
 * (giflib, writing into memory) and WebM VP9 with alpha (libavcodec's libvpx-vp9, libavformat's webm muxer writing
 * through a memory AVIOContext). Each returns a CC_* status (CCodecs.h) and leaves the library's message in the
 * handle; nothing is printed (FFmpeg's log is routed away from stdout, see cc_webm.c). Handles are single-threaded;
 * destroy releases everything, whether or not the animation was finished. The finished file is malloc'ed and
 * released with cc_free.
 */
#include <stddef.h>
#include <stdint.h>

/* ---- Animated WebP ---- */
typedef struct cc_webp_animenc cc_webp_animenc;
/* Lossy frames at `quality` 0..100 with their alpha compressed losslessly, libwebp `method` 0..6; key frames at
 * most every `kmax` and at least `kmin` frames apart (kmin >= kmax / 2 + 1, as libwebp requires). Loops forever. */
cc_webp_animenc *cc_webp_animenc_create(uint32_t width, uint32_t height, float quality, int method, int kmin, int kmax);
void cc_webp_animenc_destroy(cc_webp_animenc *a);
/* Adds an RGBA canvas shown from `timestamp_ms` on. */
int cc_webp_animenc_add(cc_webp_animenc *a, const uint8_t *rgba, int timestamp_ms);
/* Ends the animation at `end_ms` (the last frame's end) and assembles the file. */
int cc_webp_animenc_finish(cc_webp_animenc *a, int end_ms, uint8_t **out, size_t *out_length);
const char *cc_webp_animenc_message(const cc_webp_animenc *a);

/* Frame `index` of an animated WebP composited into `rgba` (canvas size, straight alpha), with its end timestamp
 * in ms; also the frame count and loop count. For tests of the encoder: decodes every frame up to `index`. */
int cc_webp_anim_frame_at(const uint8_t *data, size_t size, int index, uint8_t *rgba, size_t capacity,
                              uint32_t *width, uint32_t *height, int *frame_count, int *loop_count, int *end_ms);

/* ---- GIF ---- */
typedef struct cc_gif_out cc_gif_out;
/* A GIF89a of the given logical screen that loops forever (NETSCAPE2.0). */
cc_gif_out *cc_gif_out_create(uint32_t width, uint32_t height);
void cc_gif_out_destroy(cc_gif_out *g);
/* One full-screen frame of palette indices with its own colour map (`colors` RGB triples, 1..256; padded to a
 * power of two), shown for `delay_cs` centiseconds, `transparent` the transparent index or -1. Dispose: restore to
 * background, so a transparent pixel shows what is behind the sticker rather than the frame before. */
int cc_gif_out_add(cc_gif_out *g, const uint8_t *indices, const uint8_t *palette, int colors, int transparent,
                   int delay_cs);
int cc_gif_out_finish(cc_gif_out *g, uint8_t **out, size_t *out_length);
const char *cc_gif_out_message(const cc_gif_out *g);

/* ---- WebM (VP9 with alpha) ---- */
typedef struct cc_webm cc_webm;
/* VP9 at constant quality `crf` (0..63, lower is better), speed `cpu_used` (0..8), time base 1/1000 s, key frames
 * at most `gop` frames apart; pixels go RGBA -> yuva420p (BT.601, limited range) through libswscale. */
cc_webm *cc_webm_create(uint32_t width, uint32_t height, int crf, int cpu_used, int gop);
void cc_webm_destroy(cc_webm *w);
/* Opens the encoder and muxer; the first cc_webm_add calls it when the caller has not. Opens once: a later call (and
 * cc_webm_add, cc_webm_finish) returns what the first returned, its message kept. */
int cc_webm_open(cc_webm *w);
/* Adds an RGBA frame of the created size (`size` bytes: CC_INVALID when they are fewer) shown from `pts_ms` for
 * `duration_ms`. */
int cc_webm_add(cc_webm *w, const uint8_t *rgba, size_t size, int64_t pts_ms, int64_t duration_ms);
/* Drains the encoder, writes the trailer (cues, duration) and hands the file over. */
int cc_webm_finish(cc_webm *w, uint8_t **out, size_t *out_length);
const char *cc_webm_message(const cc_webm *w);

#endif
