/* WebM with VP9 and alpha through FFmpeg's libraries: libswscale turns RGBA into yuva420p, libavcodec's libvpx-vp9
 * encodes it (the alpha plane as a second VP9 stream, carried as Matroska BlockAdditional side data), libavformat's
 * webm muxer writes through an AVIOContext over a growing memory buffer (seekable, so the muxer can go back for the
 * duration and cues). FFmpeg opens no file and no protocol here. No audio.
 *
 * FFmpeg's log is routed once for the process (cc_ffmpeg_log.h): the last error logged on this thread completes the
 * handle's message; nothing reaches stdout (the JSON-RPC channel) or stderr. */
#include "CCodecs.h"
#include "CCodecsAnimation.h"
#include "cc_messages.h"
#include "cc_bounds.h"
#include "cc_ffmpeg_log.h"
#include "cc_ffmpeg_compat.h"
#include "cc_sws_rows.h"
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CC_WEBM_IO_BUFFER 65536
/* Frames the encoder may hold before its first packet (libvpx's lag), for matching each packet with its duration. */
#define CC_WEBM_PENDING 64

/* A growing memory file: writes at `position`, which seeks may move back. */
typedef struct cc_memory_file {
    uint8_t *data;
    size_t length, capacity, position;
    int failed_alloc;
} cc_memory_file;

static int cc_memory_write(void *opaque, CC_AVIO_WRITTEN_BYTES bytes, int count) {
    cc_memory_file *f = (cc_memory_file *)opaque;
    if (count <= 0) return 0;
    size_t end = f->position + (size_t)count;
    if (end > f->capacity) {
        size_t capacity = f->capacity ? f->capacity : 65536;
        while (capacity < end) capacity *= 2;
        uint8_t *grown = (uint8_t *)realloc(f->data, capacity);
        if (grown == NULL) {
            f->failed_alloc = 1;
            return AVERROR(ENOMEM);
        }
        f->data = grown;
        f->capacity = capacity;
    }
    memcpy(f->data + f->position, bytes, (size_t)count);
    f->position = end;
    if (end > f->length) f->length = end;
    return count;
}

static int64_t cc_memory_seek(void *opaque, int64_t offset, int whence) {
    cc_memory_file *f = (cc_memory_file *)opaque;
    int64_t base;
    switch (whence & ~AVSEEK_FORCE) {
    case AVSEEK_SIZE: return (int64_t)f->length;
    case SEEK_SET: base = 0; break;
    case SEEK_CUR: base = (int64_t)f->position; break;
    case SEEK_END: base = (int64_t)f->length; break;
    default: return AVERROR(EINVAL);
    }
    int64_t target = base + offset;
    if (target < 0) return AVERROR(EINVAL);
    f->position = (size_t)target;
    return target;
}

struct cc_webm {
    uint32_t width, height;
    int crf, cpu_used, gop;
    int opened, finished;
    int open_status; /* what the one attempt to open returned (its message stays in msg) */
    AVFormatContext *format;
    AVIOContext *io;
    AVCodecContext *codec;
    AVStream *stream;
    struct SwsContext *sws;
    uint8_t *rows; /* the frame's RGBA in padded rows (cc_sws_rows.h says why) */
    AVFrame *frame;
    AVPacket *packet;
    cc_memory_file file;
    int64_t pending_pts[CC_WEBM_PENDING], pending_duration[CC_WEBM_PENDING];
    int pending_count;
    cc_messages msg;
};

static int cc_webm_fail(cc_webm *w, const char *where, int error) {
    char reason[AV_ERROR_MAX_STRING_SIZE] = "";
    if (error < 0) av_strerror(error, reason, sizeof reason);
    char line[200];
    const char *logged = cc_ffmpeg_last_error();
    snprintf(line, sizeof line, "%s: %s%s%s", where, reason, logged[0] ? " (" : "", logged);
    if (logged[0]) strncat(line, ")", sizeof line - strlen(line) - 1);
    cc_messages_set_error(&w->msg, line);
    cc_ffmpeg_clear_error();
    return error == AVERROR(ENOMEM) || w->file.failed_alloc ? CC_NOMEM : CC_INVALID;
}

cc_webm *cc_webm_create(uint32_t width, uint32_t height, int crf, int cpu_used, int gop) {
    cc_ffmpeg_log_install();
    cc_webm *w = (cc_webm *)calloc(1, sizeof *w);
    if (w == NULL) return NULL;
    w->width = width;
    w->height = height;
    w->crf = crf;
    w->cpu_used = cpu_used;
    w->gop = gop;
    return w;
}

void cc_webm_destroy(cc_webm *w) {
    if (w == NULL) return;
    avcodec_free_context(&w->codec);
    if (w->format != NULL) {
        w->format->pb = NULL;
        avformat_free_context(w->format);
    }
    if (w->io != NULL) {
        av_freep(&w->io->buffer);
        avio_context_free(&w->io);
    }
    sws_freeContext(w->sws);
    av_free(w->rows);
    av_frame_free(&w->frame);
    av_packet_free(&w->packet);
    free(w->file.data);
    free(w);
}

static int cc_webm_open_once(cc_webm *w);

/* Opens once: a later call returns what the first returned, so a failed open's own error is what callers see. */
int cc_webm_open(cc_webm *w) {
    if (w->opened) return w->open_status;
    w->opened = 1;
    w->open_status = cc_webm_open_once(w);
    return w->open_status;
}

static int cc_webm_open_once(cc_webm *w) {
    cc_ffmpeg_clear_error();
    const AVCodec *vp9 = avcodec_find_encoder_by_name("libvpx-vp9");
    if (vp9 == NULL) {
        cc_messages_set_error(&w->msg, "this FFmpeg has no libvpx-vp9 encoder");
        return CC_UNSUPPORTED;
    }
    int e = avformat_alloc_output_context2(&w->format, NULL, "webm", NULL);
    if (e < 0 || w->format == NULL) return cc_webm_fail(w, "webm muxer", e);
    uint8_t *buffer = (uint8_t *)av_malloc(CC_WEBM_IO_BUFFER);
    if (buffer == NULL) return cc_webm_fail(w, "I/O buffer", AVERROR(ENOMEM));
    w->io = avio_alloc_context(buffer, CC_WEBM_IO_BUFFER, 1, &w->file, NULL, cc_memory_write, cc_memory_seek);
    if (w->io == NULL) {
        av_free(buffer);
        return cc_webm_fail(w, "I/O context", AVERROR(ENOMEM));
    }
    w->format->pb = w->io;
    w->format->flags |= AVFMT_FLAG_CUSTOM_IO;

    w->codec = avcodec_alloc_context3(vp9);
    if (w->codec == NULL) return cc_webm_fail(w, "encoder", AVERROR(ENOMEM));
    w->codec->width = (int)w->width;
    w->codec->height = (int)w->height;
    w->codec->pix_fmt = AV_PIX_FMT_YUVA420P;
    w->codec->time_base = (AVRational){1, 1000};
    w->codec->gop_size = w->gop;
    w->codec->bit_rate = 0;
    /* Two threads (row-mt): the whole clip is encoded after its last frame is cut (the canvas is the subject's box over
     * the clip), so the encode is the job's tail with nothing beside it; 0.7x its time at 512 px (bench/README.md). */
    w->codec->thread_count = 2;
    w->codec->color_range = AVCOL_RANGE_MPEG;
    w->codec->colorspace = AVCOL_SPC_SMPTE170M;
    w->codec->color_primaries = AVCOL_PRI_BT709;
    w->codec->color_trc = AVCOL_TRC_IEC61966_2_1;
    if (w->format->oformat->flags & AVFMT_GLOBALHEADER) w->codec->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    av_opt_set_int(w->codec->priv_data, "crf", w->crf, 0);
    av_opt_set(w->codec->priv_data, "deadline", "good", 0);
    av_opt_set_int(w->codec->priv_data, "cpu-used", w->cpu_used, 0);
    av_opt_set_int(w->codec->priv_data, "row-mt", 1, 0);
    /* No look-ahead: libvpx's default keeps 25 frames (with its 160-pixel borders) in each of the two encoders,
     * colour and alpha, and these settings write the same bytes without them (bench/README.md). */
    av_opt_set_int(w->codec->priv_data, "lag-in-frames", 0, 0);
    e = avcodec_open2(w->codec, vp9, NULL);
    if (e < 0) return cc_webm_fail(w, "opening libvpx-vp9", e);

    w->stream = avformat_new_stream(w->format, NULL);
    if (w->stream == NULL) return cc_webm_fail(w, "stream", AVERROR(ENOMEM));
    w->stream->time_base = (AVRational){1, 1000};
    e = avcodec_parameters_from_context(w->stream->codecpar, w->codec);
    if (e < 0) return cc_webm_fail(w, "stream parameters", e);
    e = avformat_write_header(w->format, NULL);
    if (e < 0) return cc_webm_fail(w, "webm header", e);

    w->sws = sws_getContext((int)w->width, (int)w->height, AV_PIX_FMT_RGBA, (int)w->width, (int)w->height,
                            AV_PIX_FMT_YUVA420P, SWS_BILINEAR | SWS_ACCURATE_RND, NULL, NULL, NULL);
    w->frame = av_frame_alloc();
    w->packet = av_packet_alloc();
    if (w->sws == NULL || w->frame == NULL || w->packet == NULL) return cc_webm_fail(w, "scaler", AVERROR(ENOMEM));
    w->frame->format = AV_PIX_FMT_YUVA420P;
    w->frame->width = (int)w->width;
    w->frame->height = (int)w->height;
    e = av_frame_get_buffer(w->frame, 0);
    if (e < 0) return cc_webm_fail(w, "frame", e);
    return CC_OK;
}

/* Writes the packets the encoder has ready, each with the duration of the frame it came from. */
static int cc_webm_drain(cc_webm *w) {
    for (;;) {
        int e = avcodec_receive_packet(w->codec, w->packet);
        if (e == AVERROR(EAGAIN) || e == AVERROR_EOF) return CC_OK;
        if (e < 0) return cc_webm_fail(w, "encoding", e);
        for (int i = 0; i < w->pending_count; i++) {
            if (w->pending_pts[i] != w->packet->pts) continue;
            w->packet->duration = w->pending_duration[i];
            memmove(w->pending_pts + i, w->pending_pts + i + 1, (size_t)(w->pending_count - i - 1) * sizeof(int64_t));
            memmove(w->pending_duration + i, w->pending_duration + i + 1,
                    (size_t)(w->pending_count - i - 1) * sizeof(int64_t));
            w->pending_count--;
            break;
        }
        av_packet_rescale_ts(w->packet, w->codec->time_base, w->stream->time_base);
        w->packet->stream_index = w->stream->index;
        e = av_interleaved_write_frame(w->format, w->packet); /* takes the packet's data */
        if (e < 0) return cc_webm_fail(w, "muxing", e);
    }
}

int cc_webm_add(cc_webm *w, const uint8_t *rgba, size_t size, int64_t pts_ms, int64_t duration_ms) {
    int s = cc_webm_open(w);
    if (s != CC_OK) return s;
    if (rgba == NULL || !cc_rgba_fits(w->width, w->height, (size_t)w->width * 4, size)) {
        cc_messages_set_error(&w->msg, "the frame is smaller than the WebM's size");
        return CC_INVALID;
    }
    if (w->finished || w->codec == NULL || w->frame == NULL) {
        cc_messages_set_error(&w->msg, "WebM encoder not usable");
        return CC_INVALID;
    }
    int e = av_frame_make_writable(w->frame);
    if (e < 0) return cc_webm_fail(w, "frame", e);
    /* The frame is copied into padded rows for swscale to read (cc_sws_rows.h says why). */
    size_t row = (size_t)w->width * 4, padded = cc_sws_rows_stride(w->width);
    if (w->rows == NULL) {
        w->rows = (uint8_t *)av_mallocz(cc_sws_rows_size(w->width, w->height));
        if (w->rows == NULL) return cc_webm_fail(w, "frame", AVERROR(ENOMEM));
    }
    for (uint32_t y = 0; y < w->height; y++) memcpy(w->rows + y * padded, rgba + y * row, row);
    const uint8_t *src[1] = {w->rows};
    const int stride[1] = {(int)padded};
    sws_scale(w->sws, src, stride, 0, (int)w->height, w->frame->data, w->frame->linesize);
    w->frame->pts = pts_ms;
    cc_frame_set_duration(w->frame, duration_ms);
    if (w->pending_count == CC_WEBM_PENDING) { /* the encoder never lags this far; drop the oldest guess */
        memmove(w->pending_pts, w->pending_pts + 1, (CC_WEBM_PENDING - 1) * sizeof(int64_t));
        memmove(w->pending_duration, w->pending_duration + 1, (CC_WEBM_PENDING - 1) * sizeof(int64_t));
        w->pending_count--;
    }
    w->pending_pts[w->pending_count] = pts_ms;
    w->pending_duration[w->pending_count] = duration_ms;
    w->pending_count++;
    e = avcodec_send_frame(w->codec, w->frame);
    if (e < 0) return cc_webm_fail(w, "encoding", e);
    return cc_webm_drain(w);
}

int cc_webm_finish(cc_webm *w, uint8_t **out, size_t *out_length) {
    *out = NULL;
    *out_length = 0;
    if (w->opened && w->open_status != CC_OK) return w->open_status;
    if (!w->opened || w->codec == NULL || w->finished) {
        cc_messages_set_error(&w->msg, "WebM has no frames");
        return CC_INVALID;
    }
    w->finished = 1;
    int e = avcodec_send_frame(w->codec, NULL);
    if (e < 0) return cc_webm_fail(w, "flushing", e);
    int s = cc_webm_drain(w);
    if (s != CC_OK) return s;
    e = av_write_trailer(w->format);
    if (e < 0) return cc_webm_fail(w, "webm trailer", e);
    avio_flush(w->io);
    if (w->file.failed_alloc) return cc_webm_fail(w, "writing", AVERROR(ENOMEM));
    *out = w->file.data;
    *out_length = w->file.length;
    w->file.data = NULL;
    w->file.length = w->file.capacity = w->file.position = 0;
    return CC_OK;
}

const char *cc_webm_message(const cc_webm *w) { return w->msg.error; }
