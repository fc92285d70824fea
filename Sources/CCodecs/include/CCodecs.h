#ifndef CCODECS_H
#define CCODECS_H
/*
 * C shim over the image libraries: libpng, libjpeg(-turbo), libwebp, giflib, libheif and lcms2.
 *
 * Every libpng/libjpeg call that can longjmp is made from a function in this target that has set its own
 * setjmp point first, so a longjmp never crosses a Swift frame. Functions return a CC_* status and leave
 * the library's message in the handle (cc_*_message); warnings are collected (cc_*_warnings), never printed.
 * Decoding is split into header / start / read-rows / finish so the caller can check for cancellation
 * between bands of rows. Handles are single-threaded per-call scratch state.
 */
#include <stddef.h>
#include <stdint.h>

enum {
    CC_OK = 0,
    CC_INVALID = 1,      /* the library rejected the data (its message is in the handle) */
    CC_TRUNCATED = 2,    /* input ended before the image did */
    CC_UNSUPPORTED = 3,  /* valid but not supported (e.g. 12-bit JPEG, odd colour spaces) */
    CC_NOMEM = 4,        /* allocation failed */
    CC_LIMIT = 5,        /* a safety limit was hit (memory, scan count, chunk size) */
    CC_CANCELLED = 6,    /* the cancellation check asked to stop */
};

/* Polled during long library-internal work: `poll(context)` returns nonzero to abandon the decode; a NULL `poll`
 * never does. Swift passes the loop the decode runs on as `context` (Imaging's CodecCancellation), so the poll reads
 * no ambient state. Must not longjmp. */
typedef struct {
    int (*poll)(void *context);
    void *context;
} cc_cancel_check;

static inline int cc_cancelled(cc_cancel_check check) { return check.poll != NULL && check.poll(check.context); }

/* Values read from the file header. */
typedef struct cc_header {
    uint32_t width;          /* as stored */
    uint32_t height;
    int32_t channels;        /* PNG: 1 grey, 2 grey+alpha, 3 rgb/palette, 4 rgba; JPEG: components */
    int32_t bit_depth;       /* PNG 1..16 (palette: index depth); JPEG sample precision */
    int32_t has_alpha;       /* alpha channel or tRNS */
    int32_t interlaced;      /* PNG Adam7 */
    int32_t progressive;     /* JPEG progressive */
    int32_t arithmetic;      /* JPEG arithmetic coding */
    int32_t color_type;      /* PNG colour type; JPEG J_COLOR_SPACE of the file */
    int32_t adobe_inverted;  /* JPEG CMYK/YCCK stored inverted (Adobe APP14 present) */
} cc_header;

/* ---- PNG decoding ---- */
typedef struct cc_png cc_png;
/* `data` must stay valid until cc_png_destroy. Returns NULL on allocation failure. */
cc_png *cc_png_create(const uint8_t *data, size_t size);
void cc_png_destroy(cc_png *p);
/* Reads everything up to the first IDAT; fills `out`. */
int cc_png_read_header(cc_png *p, cc_header *out);
/* Sets up RGBA8 output (no gamma correction; 16-bit samples rounded to 8-bit). */
int cc_png_start(cc_png *p);
/* Reads at most `max_steps` rows (for Adam7 images a step is one row of one pass) into `image`, the base of
 * the whole width*height RGBA buffer with `row_bytes` per row. `*remaining` is set to the steps still left. */
int cc_png_read_rows(cc_png *p, uint8_t *image, size_t row_bytes, size_t capacity, uint32_t max_steps,
                     uint32_t *remaining);
/* Reads the chunks after the image data. */
int cc_png_finish(cc_png *p);
/* The iCCP profile (decompressed) or NULL; valid until cc_png_destroy. */
const uint8_t *cc_png_icc(cc_png *p, size_t *length);
const char *cc_png_message(const cc_png *p);
/* Collected warnings, one per line ('\n' separated), "" when none; only the first few are kept. */
const char *cc_png_warnings(const cc_png *p);
/* How many warnings were raised in total (kept or not). */
int cc_png_warning_count(const cc_png *p);

/* ---- JPEG decoding ---- */
typedef struct cc_jpeg cc_jpeg;
/* `max_memory` bounds libjpeg's big buffers (e.g. progressive coefficients); 0 = no bound. */
cc_jpeg *cc_jpeg_create(const uint8_t *data, size_t size, size_t max_memory);
void cc_jpeg_destroy(cc_jpeg *j);
int cc_jpeg_read_header(cc_jpeg *j, cc_header *out);
/* A progressive JPEG is read whole inside cc_jpeg_start; `check` is polled per row of blocks there. */
void cc_jpeg_set_cancel_check(cc_jpeg *j, cc_cancel_check check);
/* Payload of the first APP1 "Exif\0\0" segment (TIFF header onwards), NULL when absent. */
const uint8_t *cc_jpeg_exif(cc_jpeg *j, size_t *length);
/* The ICC profile assembled from APP2 chunks, NULL when absent or malformed. */
const uint8_t *cc_jpeg_icc(cc_jpeg *j, size_t *length);
/* Starts decompression to RGBA8 at 1/scale_denom (1, 2, 4, 8) size; CMYK/YCCK are converted to RGB. */
int cc_jpeg_start(cc_jpeg *j, int scale_denom, uint32_t *out_width, uint32_t *out_height);
/* Reads at most `max_rows` rows into `image` (base of the whole output buffer). */
int cc_jpeg_read_rows(cc_jpeg *j, uint8_t *image, size_t row_bytes, size_t capacity, uint32_t max_rows,
                      uint32_t *remaining);
int cc_jpeg_finish(cc_jpeg *j);
/* 1 once libjpeg has hit the end of the data and padded the rest of the image. */
int cc_jpeg_truncated(const cc_jpeg *j);
const char *cc_jpeg_message(const cc_jpeg *j);
const char *cc_jpeg_warnings(const cc_jpeg *j);
int cc_jpeg_warning_count(const cc_jpeg *j);

/* ---- Formats decoded whole by their library (WebP, GIF, HEIF/AVIF) ----
 * Each has: create over the caller's bytes (which must outlive the handle), open (header facts only; no pixel
 * buffer is allocated), decode into the caller's RGBA8 buffer of the opened size (straight alpha), message,
 * destroy. Sizes are checked by the caller against its pixel budget between open and decode. */
typedef struct cc_frame_info {
    uint32_t width;           /* as displayed: the canvas (WebP), logical screen (GIF), transformed image (HEIF) */
    uint32_t height;
    int32_t has_alpha;
    int32_t bit_depth;        /* bits per sample as stored (HEIF luma 8/10/12; WebP and GIF 8) */
    int32_t frame_count;      /* animation frames (WebP, GIF), top-level images (HEIF) */
    int32_t lossless;         /* WebP VP8L */
    int32_t interlaced;       /* GIF interlaced first frame */
    uint32_t thumbnail_width; /* HEIF: the largest embedded thumbnail, 0 when none */
    uint32_t thumbnail_height;
    int32_t is_avif;          /* HEIF container holding AV1 (ftyp avif/avis) */
} cc_frame_info;

/* WebP (libwebp, libwebpdemux): still lossy/lossless with alpha, or the first frame of an animation composited
 * on its canvas. Still images are decoded incrementally, `check` polled between input chunks. */
typedef struct cc_webp cc_webp;
cc_webp *cc_webp_create(const uint8_t *data, size_t size);
void cc_webp_destroy(cc_webp *w);
int cc_webp_open(cc_webp *w, cc_frame_info *out);
/* The ICCP and EXIF chunks (EXIF: TIFF header onwards), NULL when absent; valid until destroy. */
const uint8_t *cc_webp_icc(cc_webp *w, size_t *length);
const uint8_t *cc_webp_exif(cc_webp *w, size_t *length);
int cc_webp_decode(cc_webp *w, uint8_t *rgba, size_t row_bytes, size_t capacity, cc_cancel_check check);
const char *cc_webp_message(const cc_webp *w);
/* RGBA input. lossless: exact (alpha kept); else lossy at quality 0..100 (alpha compressed losslessly).
 * `method` is libwebp's speed/size trade-off 0..6. */
int cc_webp_encode(const uint8_t *rgba, uint32_t width, uint32_t height, int lossless, float quality, int method,
                   uint8_t **out, size_t *out_length, char *error, size_t error_size);

/* GIF (giflib): the first frame composited on the logical screen (outside it transparent), its transparent
 * index kept as alpha 0; rows decoded one at a time with `check` polled per band. */
typedef struct cc_gif cc_gif;
cc_gif *cc_gif_create(const uint8_t *data, size_t size);
void cc_gif_destroy(cc_gif *g);
/* `count_frames`: walk every record to count frames (image.info), else stop at the first image. */
int cc_gif_open(cc_gif *g, int count_frames, cc_frame_info *out);
int cc_gif_decode(cc_gif *g, uint8_t *rgba, size_t row_bytes, size_t capacity, cc_cancel_check check);
const char *cc_gif_message(const cc_gif *g);

/* HEIF/HEIC/AVIF (libheif): the primary image with the container's transforms (irot, imir, clap) applied,
 * alpha kept, 10/12-bit reduced to 8. `max_side` is given to libheif as its image size limit. libheif 1.15
 * cannot be interrupted inside a decode: `check` is polled before and after it. */
typedef struct cc_heif cc_heif;
cc_heif *cc_heif_create(const uint8_t *data, size_t size);
void cc_heif_destroy(cc_heif *h);
int cc_heif_open(cc_heif *h, int max_side, cc_frame_info *out);
/* The colr 'prof'/'rICC' ICC profile, NULL when absent; valid until destroy. */
const uint8_t *cc_heif_icc(cc_heif *h, size_t *length);
/* The colr 'nclx' values: returns 1 and fills the four when present, else 0. */
int cc_heif_nclx(cc_heif *h, int *primaries, int *transfer, int *matrix, int *full_range,
                 float chromaticities[8]);
/* Decodes the primary image (thumbnail = 0) or its largest thumbnail (thumbnail = 1) into `rgba`, which must
 * hold the size reported by open (or its thumbnail size); the decoded size is written back. */
int cc_heif_decode(cc_heif *h, int thumbnail, uint8_t *rgba, size_t capacity, uint32_t *width, uint32_t *height,
                   cc_cancel_check check);
const char *cc_heif_message(const cc_heif *h);

/* ---- Motion: every frame of a GIF, an animated WebP or a video, one at a time ----
 * Each reader has: create over the caller's bytes (or file descriptor), open (container facts only; no frame buffer
 * allocated, so the caller checks its limits between open and the first frame), next (the next frame as a full
 * RGBA8 canvas of the opened size, straight alpha, into the caller's buffer of `capacity` bytes, rows `row_bytes`
 * apart: CC_INVALID, nothing written, when they do not hold it; *got = 0 at the end), message,
 * destroy. Times are seconds from the source's start. */
typedef struct cc_motion_info {
    uint32_t width;           /* as stored (a video's rotation is not applied: see `rotation`) */
    uint32_t height;
    int32_t frame_count;      /* declared by the container; -1 when it does not say */
    double duration;          /* seconds; < 0 when unknown */
    double frame_rate;        /* frames per second; < 0 when unknown or variable */
    int32_t has_alpha;
    int32_t loop_count;       /* 0 = forever, n = plays n more times, -1 = not declared */
    int32_t rotation;         /* clockwise degrees to display upright: 0, 90, 180, 270 */
    char codec[24];
    char container[24];
} cc_motion_info;

typedef struct cc_motion_frame {
    double time;              /* presentation start */
    double duration;
    int32_t truncated;        /* the data ended inside this frame: rows that arrived only; it is the last */
} cc_motion_frame;

/* Delays under 20 ms (0 or 1 centisecond) play as 100 ms, as Chrome, Firefox and Safari play them. */
#define CC_GIF_MIN_DELAY_CS 2
#define CC_GIF_DEFAULT_DELAY_CS 10

/* GIF animation (giflib): disposal (none, background: cleared to transparent as browsers do, previous),
 * transparency, delays, NETSCAPE2.0 loop count. A truncated GIF gives the frames and rows that arrived. */
typedef struct cc_gif_anim cc_gif_anim;
cc_gif_anim *cc_gif_anim_create(const uint8_t *data, size_t size);
void cc_gif_anim_destroy(cc_gif_anim *a);
/* Walks every record (image data skipped, never decompressed) for the frame count, the summed delays and the loop
 * count; stops after `max_frames` + 1 frames (frame_count then says max_frames + 1: over the limit). */
int cc_gif_anim_open(cc_gif_anim *a, int32_t max_frames, cc_motion_info *out);
int cc_gif_anim_next(cc_gif_anim *a, uint8_t *rgba, size_t row_bytes, size_t capacity, cc_motion_frame *frame, int *got,
                     cc_cancel_check check);
const char *cc_gif_anim_message(const cc_gif_anim *a);

/* Animated (or still) WebP through libwebpdemux's WebPAnimDecoder: each frame composited on the canvas. */
typedef struct cc_webp_anim cc_webp_anim;
cc_webp_anim *cc_webp_anim_create(const uint8_t *data, size_t size);
void cc_webp_anim_destroy(cc_webp_anim *a);
int cc_webp_anim_open(cc_webp_anim *a, cc_motion_info *out);
int cc_webp_anim_next(cc_webp_anim *a, uint8_t *rgba, size_t row_bytes, size_t capacity, cc_motion_frame *frame,
                      int *got);
const char *cc_webp_anim_message(const cc_webp_anim *a);

/* Video (FFmpeg's libavformat/libavcodec/libswscale): MP4/MOV (H.264, HEVC) and WebM/Matroska (VP8, VP9, VP9 with
 * alpha through libvpx). FFmpeg reads only through the caller's bytes or file descriptor (a custom AVIOContext; no
 * protocol, no nested open, a whitelist of demuxers and decoders); its log goes to the handle's messages. */
typedef struct cc_video cc_video;
/* Over bytes (which must outlive the handle) or over an open file descriptor (read with pread; not closed). */
cc_video *cc_video_create(const uint8_t *data, size_t size);
cc_video *cc_video_create_fd(int fd);
void cc_video_destroy(cc_video *v);
/* `max_pixels` bounds each decoded picture (given to the decoder as its own limit too); on CC_LIMIT (a declared
 * frame size over it) `out` still holds what the container declares, with that size. `count_frames`: when the
 * container does not declare the frame count, count the video packets (demuxing only; stops after
 * `max_frames` + 1) and start again. */
int cc_video_open(cc_video *v, int64_t max_pixels, int32_t count_frames, int32_t max_frames, cc_cancel_check check,
                  cc_motion_info *out);
/* Skips to the first frame whose presentation ends after `start` (seconds): seeks to the key frame before it. */
int cc_video_seek(cc_video *v, double start);
/* Frames are handed out at `width` x `height` (stored orientation) instead of the opened size, scaled while they are
 * converted to RGBA: CC_INVALID, the output size unchanged, for a size of 0 or larger than the opened one. */
int cc_video_set_output_size(cc_video *v, uint32_t width, uint32_t height);
/* The next frame at the output size (the opened, unrotated size unless cc_video_set_output_size chose another);
 * a frame whose own size differs from the opened one is scaled to it. CC_INVALID, nothing written, when `capacity`
 * bytes do not hold the output size's rows `row_bytes` apart. */
int cc_video_next(cc_video *v, uint8_t *rgba, size_t row_bytes, size_t capacity, cc_motion_frame *frame, int *got,
                  cc_cancel_check check);
const char *cc_video_message(const cc_video *v);
const char *cc_video_warnings(const cc_video *v);
int cc_video_warning_count(const cc_video *v);
/* 1 when cc_video_open refused an MP4/MOV (CC_TRUNCATED) because the file ends before its index (the `moov` box)
 * does: it was cut off, or its writer never finished it. */
int cc_video_index_missing(const cc_video *v);

/* ---- Colour management (lcms2) ---- *
 * A transform from an embedded profile to sRGB on RGBA8 pixels (alpha copied). Created once per profile and
 * shared between threads (made without lcms2's one-pixel cache, which is what makes a transform unshareable). */
typedef struct cc_icc_transform cc_icc_transform;
/* From ICC bytes; NULL with `error` filled when lcms2 refuses the profile or it is not an RGB one. */
cc_icc_transform *cc_icc_transform_create(const uint8_t *profile, size_t length, char *error, size_t error_size);
/* From CICP/nclx values: xy chromaticities (r, g, b, white) and a transfer characteristic (H.273). */
cc_icc_transform *cc_icc_transform_create_nclx(const float chromaticities[8], int transfer, char *error,
                                               size_t error_size);
/* 1 when the transform maps every sampled colour to itself within one step (the profile is sRGB in effect). */
int cc_icc_transform_is_identity(const cc_icc_transform *t);
/* The profile's description (ASCII, possibly empty); valid while the transform lives. */
const char *cc_icc_transform_description(const cc_icc_transform *t);
/* For matrix-shaper profiles the conversion runs on fixed-point tables instead of lcms2's pipeline: the largest
 * difference from lcms2 over a 33^3 grid (tests), or -1 when lcms2 itself converts. */
int cc_icc_transform_fast_error(const cc_icc_transform *t);
/* Converts `count` RGBA8 pixels in place. */
void cc_icc_transform_apply(const cc_icc_transform *t, uint8_t *rgba, size_t count);
void cc_icc_transform_destroy(cc_icc_transform *t);

/* ---- Encoding ---- *
 * The output buffer is allocated with malloc; release it with cc_free. `error` receives the library message. */
/* `pixels` has `in_channels` (1 or 4) bytes per pixel; `out_channels` is 1 (grey), 3 (RGB, alpha dropped) or 4. */
/* `check` is polled between bands of rows (CC_CANCELLED when it asks to stop: no output). */
int cc_png_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int in_channels, int out_channels,
                  int compression_level, cc_cancel_check check, uint8_t **out, size_t *out_length, char *error,
                  size_t error_size);
/* cc_png_encode's whole path in pieces, for several threads: bands of rows filtered apart, the filtered bytes
 * compressed in segments of one zlib stream, then put together. Filtered rows above CC_PNG_WHOLE_MAX bytes are
 * streamed by cc_png_encode instead; below it, cc_png_encode (libdeflate's own zlib wrapper) is what the tests
 * check the pieces against. */
#define CC_PNG_WHOLE_MAX 8388608
/* Rows [y0, y1) filtered into `filtered` (row_bytes + 1 each, from row y0), and unless `costs` is NULL each row's
 * filtered sum of absolute values into costs[y - y0]: where the deflate's work is. */
int cc_png_filter_rows(const uint8_t *pixels, uint32_t width, int in_channels, int out_channels, uint32_t y0,
                       uint32_t y1, uint8_t *filtered, uint32_t *costs);
/* The room cc_png_deflate_segment needs for `length` bytes. */
size_t cc_png_segment_bound(size_t length);
/* `length` filtered bytes as one segment of the stream's deflate data, into `out` (cc_png_segment_bound's room);
 * a segment that is not the `last` ends byte-aligned and lets the next one go on. */
int cc_png_deflate_segment(const uint8_t *data, size_t length, int level, int last, uint8_t *out, size_t capacity,
                           size_t *out_length);
/* The PNG of `count` segments, in order, of `filtered` (all rows, for the checksum); release with cc_free. */
int cc_png_assemble(uint32_t width, uint32_t height, int out_channels, int level, const uint8_t *filtered,
                    size_t filtered_length, const uint8_t *const *segments, const size_t *lengths, int count,
                    uint8_t **out, size_t *out_length);
/* RGBA input, alpha ignored; baseline or progressive, 4:2:0, no metadata. */
int cc_jpeg_encode(const uint8_t *rgba, uint32_t width, uint32_t height, int quality, int progressive,
                   uint8_t **out, size_t *out_length, char *error, size_t error_size);
void cc_free(void *p);

/* Animation encoders (animated WebP, GIF, WebM). */
#include "CCodecsAnimation.h"

#endif
