/* Video through FFmpeg's libraries, confined: the demuxer reads only through a custom AVIOContext over the caller's
 * bytes or file descriptor (no protocol is ever opened: `pb` is ours, nested opens are refused, the protocol
 * whitelist names none), only the MP4/MOV and Matroska/WebM demuxers and the H.264, HEVC, VP8 and VP9 decoders are
 * allowed, the decoder runs on the calling thread, and av_log goes to the handle's messages, never to stdout or
 * stderr. Every FFmpeg status stays here and comes back as a CC_* status and a message. */
#include "CCodecs.h"
#include "cc_messages.h"
#include "cc_bounds.h"
#include "cc_ffmpeg_log.h"
#include "cc_ffmpeg_compat.h"
#include "cc_sws_rows.h"
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libswscale/swscale.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CC_VIDEO_IO_BUFFER (64 * 1024)
/* Damaged packets skipped (each a warning) before the stream is refused as broken. */
#define CC_VIDEO_MAX_BAD_PACKETS 32

struct cc_video {
    /* The source: bytes, or a file read with pread (not closed here). */
    const uint8_t *data;
    int fd;
    int64_t size;
    int64_t position;
    AVFormatContext *format;
    AVIOContext *io;
    AVCodecContext *codec;
    struct SwsContext *sws;
    int sws_width, sws_height, sws_format, sws_colorspace, sws_range, sws_out_width, sws_out_height;
    /* swscale's output rows, padded (cc_sws_rows.h says why), and their size in bytes. */
    uint8_t *sws_rows;
    size_t sws_rows_size;
    AVPacket *packet;
    AVFrame *pending;        /* decoded, not yet handed out: its duration is the next frame's start minus its own */
    AVFrame *upcoming;
    int has_pending;
    int stream;
    AVRational time_base;
    int64_t start_pts;
    double default_duration; /* one frame at the declared rate (1/30 s when the container says nothing) */
    double last_time;
    double skip_before;      /* frames ending at or before this time are dropped (seek) */
    int drained, ended, bad_packets, truncated, info_only;
    int index_missing;       /* an ISO file cut off before (or inside) its index: cc_video_index_missing */
    uint32_t width, height;
    uint32_t out_width, out_height; /* frames handed out; 0: the opened size */
    cc_messages msg;
    char last_log[200];      /* the last error FFmpeg logged: the detail behind a bare status code */
};

/* ---- av_log: to the handle whose call is running on this thread ---- */
static _Thread_local cc_video *cc_video_current;
static pthread_once_t cc_video_log_once = PTHREAD_ONCE_INIT;

/* Errors logged on this thread outside a video handle's call (the encoders'): cc_ffmpeg_log.h. */
static _Thread_local char cc_ffmpeg_error[200];

const char *cc_ffmpeg_last_error(void) { return cc_ffmpeg_error; }
void cc_ffmpeg_clear_error(void) { cc_ffmpeg_error[0] = '\0'; }

static void cc_video_log(void *avcl, int level, const char *format, va_list args) {
    cc_video *v = cc_video_current;
    if (level > AV_LOG_WARNING || (v == NULL && level > AV_LOG_ERROR)) return;
    char line[240];
    int prefix = 1;
    av_log_format_line2(avcl, level, format, args, line, sizeof line, &prefix);
    size_t n = strlen(line);
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = '\0';
    if (n == 0) return;
    if (v == NULL) {
        snprintf(cc_ffmpeg_error, sizeof cc_ffmpeg_error, "%s", line);
        return;
    }
    if (level <= AV_LOG_ERROR) snprintf(v->last_log, sizeof v->last_log, "%s", line);
    cc_messages_add_warning(&v->msg, line);
}

static void cc_video_install_log(void) {
    /* Process-wide: no FFmpeg message reaches stdout (the JSON-RPC channel) or stderr from here on. */
    av_log_set_callback(cc_video_log);
    av_log_set_level(AV_LOG_WARNING);
}

void cc_ffmpeg_log_install(void) { pthread_once(&cc_video_log_once, cc_video_install_log); }

/* ---- custom I/O ---- */
static int cc_video_read(void *opaque, uint8_t *buf, int size) {
    cc_video *v = (cc_video *)opaque;
    if (size <= 0) return 0;
    if (v->position >= v->size) return AVERROR_EOF;
    int64_t n = v->size - v->position;
    if (n > size) n = size;
    if (v->data != NULL) {
        memcpy(buf, v->data + v->position, (size_t)n);
    } else {
        ssize_t r;
        do { r = pread(v->fd, buf, (size_t)n, (off_t)v->position); } while (r < 0 && errno == EINTR);
        if (r < 0) return AVERROR(errno);
        if (r == 0) return AVERROR_EOF;
        n = r;
    }
    v->position += n;
    return (int)n;
}

static int64_t cc_video_seek_io(void *opaque, int64_t offset, int whence) {
    cc_video *v = (cc_video *)opaque;
    int64_t target;
    switch (whence & ~AVSEEK_FORCE) {
    case AVSEEK_SIZE: return v->size;
    case SEEK_SET: target = offset; break;
    case SEEK_CUR: target = v->position + offset; break;
    case SEEK_END: target = v->size + offset; break;
    default: return AVERROR(EINVAL);
    }
    if (target < 0) return AVERROR(EINVAL);
    v->position = target;
    return target;
}

/* Nested opens (a playlist's entries, an external reference track) are refused: the worker's access only. */
static int cc_video_refuse_open(struct AVFormatContext *s, AVIOContext **pb, const char *url, int flags,
                                AVDictionary **options) {
    (void)pb; (void)flags; (void)options;
    av_log(s, AV_LOG_ERROR, "refused to open %s: only the given source is read\n", url ? url : "(null)");
    return AVERROR(EPERM);
}

static cc_video *cc_video_new(void) {
    pthread_once(&cc_video_log_once, cc_video_install_log);
    cc_video *v = (cc_video *)calloc(1, sizeof *v);
    if (v == NULL) return NULL;
    v->fd = -1;
    v->stream = -1;
    return v;
}

cc_video *cc_video_create(const uint8_t *data, size_t size) {
    cc_video *v = cc_video_new();
    if (v == NULL) return NULL;
    v->data = data;
    v->size = (int64_t)size;
    return v;
}

cc_video *cc_video_create_fd(int fd) {
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return NULL;
    cc_video *v = cc_video_new();
    if (v == NULL) return NULL;
    v->fd = fd;
    v->size = (int64_t)st.st_size;
    return v;
}

void cc_video_destroy(cc_video *v) {
    if (v == NULL) return;
    cc_video_current = v;
    sws_freeContext(v->sws);
    av_free(v->sws_rows);
    av_frame_free(&v->pending);
    av_frame_free(&v->upcoming);
    av_packet_free(&v->packet);
    avcodec_free_context(&v->codec);
    avformat_close_input(&v->format);
    if (v->io != NULL) {
        av_freep(&v->io->buffer);
        avio_context_free(&v->io);
    }
    cc_video_current = NULL;
    free(v);
}

/* FFmpeg's status as ours, with its words (or the last error it logged) as the message. */
static int cc_video_fail(cc_video *v, int error, const char *where) {
    char reason[AV_ERROR_MAX_STRING_SIZE] = { 0 };
    av_strerror(error, reason, sizeof reason);
    char text[200];
    if (v->last_log[0] != '\0')
        snprintf(text, sizeof text, "%s: %s (%s)", where, reason, v->last_log);
    else
        snprintf(text, sizeof text, "%s: %s", where, reason);
    cc_messages_set_error(&v->msg, text);
    if (error == AVERROR(ENOMEM)) return CC_NOMEM;
    if (error == AVERROR_EOF) return CC_TRUNCATED;
    if (error == AVERROR_PATCHWELCOME || error == AVERROR_DECODER_NOT_FOUND || error == AVERROR(ENOSYS))
        return CC_UNSUPPORTED;
    return CC_INVALID;
}

static int cc_video_refuse(cc_video *v, int status, const char *text) {
    cc_messages_set_error(&v->msg, text);
    return status;
}

static double cc_video_seconds(cc_video *v, int64_t pts) {
    return (double)(pts - v->start_pts) * av_q2d(v->time_base);
}

/* Clockwise degrees that turn the stored picture upright, from the stream's display matrix. */
static int cc_video_rotation(AVStream *st) {
    size_t size = 0;
    const uint8_t *matrix = cc_stream_side_data(st, AV_PKT_DATA_DISPLAYMATRIX, &size);
    if (matrix == NULL || size < 9 * sizeof(int32_t)) return 0;
    double counterclockwise = av_display_rotation_get((const int32_t *)matrix);
    if (isnan(counterclockwise)) return 0;
    long degrees = lround(-counterclockwise / 90.0) * 90;
    degrees %= 360;
    if (degrees < 0) degrees += 360;
    return (int)degrees;
}

/* The container's own name for what it is: the brand of an ISO file, the EBML doctype of a Matroska one. */
static void cc_video_container(cc_video *v, char *out, size_t size) {
    const char *name = v->format->iformat->name;
    if (strstr(name, "matroska") != NULL) {
        uint8_t head[64] = { 0 };
        int64_t n = v->size < 64 ? v->size : 64;
        if (v->data != NULL) memcpy(head, v->data, (size_t)n);
        else if (pread(v->fd, head, (size_t)n, 0) < 0) n = 0;
        int webm = 0;
        for (int64_t i = 0; i + 4 <= n; i++)
            if (memcmp(head + i, "webm", 4) == 0) webm = 1;
        snprintf(out, size, "%s", webm ? "webm" : "matroska");
        return;
    }
    AVDictionaryEntry *brand = av_dict_get(v->format->metadata, "major_brand", NULL, 0);
    snprintf(out, size, "%s", brand != NULL && strncmp(brand->value, "qt", 2) == 0 ? "mov" : "mp4");
}

/* Decodes the next frame into `out`; *got = 0 at the end of the stream. A damaged packet is skipped with a
 * warning; the data ending early (or breaking) ends the stream with `truncated` set. */
static int cc_video_decode(cc_video *v, AVFrame *out, int *got, cc_cancel_check check) {
    *got = 0;
    for (;;) {
        int r = avcodec_receive_frame(v->codec, out);
        if (r == 0) {
            *got = 1;
            return CC_OK;
        }
        if (r == AVERROR_EOF) return CC_OK;
        if (r != AVERROR(EAGAIN)) {
            if (r == AVERROR_INVALIDDATA && ++v->bad_packets <= CC_VIDEO_MAX_BAD_PACKETS) continue;
            return cc_video_fail(v, r, "decoding");
        }
        if (v->drained) return CC_OK;
        if (cc_cancelled(check)) return CC_CANCELLED;
        r = av_read_frame(v->format, v->packet);
        if (r < 0) {
            if (r != AVERROR_EOF) {
                /* Broken or missing data past what was read: play what arrived, as players do. */
                v->truncated = 1;
                char reason[AV_ERROR_MAX_STRING_SIZE] = { 0 };
                av_strerror(r, reason, sizeof reason);
                char text[120];
                snprintf(text, sizeof text, "the stream ends early: %s", reason);
                cc_messages_add_warning(&v->msg, text);
            }
            v->drained = 1;
            r = avcodec_send_packet(v->codec, NULL);
            if (r < 0 && r != AVERROR_EOF) return cc_video_fail(v, r, "draining the decoder");
            continue;
        }
        if (v->packet->stream_index != v->stream) {
            av_packet_unref(v->packet);
            continue;
        }
        r = avcodec_send_packet(v->codec, v->packet);
        av_packet_unref(v->packet);
        if (r < 0 && r != AVERROR(EAGAIN)) {
            if (r == AVERROR_INVALIDDATA && ++v->bad_packets <= CC_VIDEO_MAX_BAD_PACKETS) continue;
            return cc_video_fail(v, r, "decoding a packet");
        }
    }
}

/* The next frame whose presentation ends after `skip_before`, into v->upcoming. */
static int cc_video_decode_kept(cc_video *v, int *got, cc_cancel_check check) {
    for (;;) {
        av_frame_unref(v->upcoming);
        int status = cc_video_decode(v, v->upcoming, got, check);
        if (status != CC_OK || !*got) return status;
        if (v->skip_before <= 0) return CC_OK;
        int64_t pts = v->upcoming->best_effort_timestamp;
        double time = pts == AV_NOPTS_VALUE ? v->last_time : cc_video_seconds(v, pts);
        int64_t frame_duration = cc_frame_duration(v->upcoming);
        double duration = frame_duration > 0 ? frame_duration * av_q2d(v->time_base) : v->default_duration;
        if (time + duration > v->skip_before + 1e-6) return CC_OK;
    }
}

/* The demuxer from the first bytes: ISO BMFF (MP4/MOV: a box type at offset 4) or EBML (WebM/Matroska). FFmpeg is
 * then told which demuxer to use instead of probing: probing calls every demuxer's probe, about three hundred of
 * them, on hostile bytes, and some (libgme's, libopenmpt's) in libraries the packages carry only as stand-ins. */
static const AVInputFormat *cc_video_demuxer(AVIOContext *io) {
    unsigned char head[12];
    int n = avio_read(io, head, (int)sizeof head);
    if (avio_seek(io, 0, SEEK_SET) < 0 || n < 8) return NULL;
    if (head[0] == 0x1A && head[1] == 0x45 && head[2] == 0xDF && head[3] == 0xA3) return av_find_input_format("matroska");
    static const char *const boxes[] = {"ftyp", "moov", "mdat", "wide", "free", "skip", "pnot"};
    for (size_t i = 0; i < sizeof boxes / sizeof boxes[0]; i++)
        if (memcmp(head + 4, boxes[i], 4) == 0) return av_find_input_format("mov");
    return NULL;
}

/* `n` bytes of the source from `offset` (fewer at its end); -1 when they cannot be read. */
static int64_t cc_video_pread(cc_video *v, uint8_t *out, int64_t n, int64_t offset) {
    if (offset >= v->size) return 0;
    if (n > v->size - offset) n = v->size - offset;
    if (v->data != NULL) {
        memcpy(out, v->data + offset, (size_t)n);
        return n;
    }
    ssize_t r;
    do { r = pread(v->fd, out, (size_t)n, (off_t)offset); } while (r < 0 && errno == EINTR);
    return r;
}

/* Whether an ISO file (MP4/MOV) that FFmpeg could not open is one cut off before the end of its index: its top-level
 * boxes are well formed (four printable letters each, sizes that chain), and either no `moov` box arrived (a camera's
 * or an encoder's file written with the index last, cut short) or the file ends inside the `moov` box. Noise after a
 * valid `ftyp` is not: its "boxes" have no names. Reads at most 256 box headers. */
static int cc_video_iso_index_missing(cc_video *v) {
    int64_t offset = 0;
    int has_moov = 0, boxes = 0;
    while (offset < v->size && boxes < 256) {
        uint8_t head[16];
        int64_t n = cc_video_pread(v, head, sizeof head, offset);
        if (n < 8) return boxes > 0 && !has_moov;  /* ends inside a box header */
        for (int i = 4; i < 8; i++)
            if (head[i] < 0x20 || head[i] > 0x7E) return 0;
        uint64_t size = ((uint64_t)head[0] << 24) | ((uint64_t)head[1] << 16) | ((uint64_t)head[2] << 8) | head[3];
        int64_t header = 8;
        if (size == 1) {
            if (n < 16) return !has_moov;
            size = 0;
            for (int i = 8; i < 16; i++) size = (size << 8) | head[i];
            header = 16;
        } else if (size == 0) {
            size = (uint64_t)(v->size - offset);  /* to the end of the file */
        }
        if (size < (uint64_t)header) return 0;
        int moov = memcmp(head + 4, "moov", 4) == 0;
        if (size > (uint64_t)(v->size - offset)) return moov || !has_moov;  /* the file ends inside this box */
        if (moov) has_moov = 1;
        offset += (int64_t)size;
        boxes++;
    }
    return boxes > 0 && !has_moov;
}

int cc_video_open(cc_video *v, int64_t max_pixels, int32_t count_frames, int32_t max_frames, cc_cancel_check check,
                  cc_motion_info *out) {
    memset(out, 0, sizeof *out);
    out->loop_count = -1;
    cc_video_current = v;
    int status = CC_OK;
    v->format = avformat_alloc_context();
    uint8_t *buffer = (uint8_t *)av_malloc(CC_VIDEO_IO_BUFFER);
    v->packet = av_packet_alloc();
    v->pending = av_frame_alloc();
    v->upcoming = av_frame_alloc();
    if (v->format == NULL || buffer == NULL || v->packet == NULL || v->pending == NULL || v->upcoming == NULL) {
        av_free(buffer);
        status = cc_video_refuse(v, CC_NOMEM, "out of memory");
        goto done;
    }
    v->io = avio_alloc_context(buffer, CC_VIDEO_IO_BUFFER, 0, v, cc_video_read, NULL, cc_video_seek_io);
    if (v->io == NULL) {
        av_free(buffer);
        status = cc_video_refuse(v, CC_NOMEM, "out of memory");
        goto done;
    }
    AVFormatContext *f = v->format;
    f->pb = v->io;
    f->flags |= AVFMT_FLAG_CUSTOM_IO;
    f->io_open = cc_video_refuse_open;
    f->format_whitelist = av_strdup("mov,mp4,m4a,3gp,3g2,mj2,matroska,webm");
    f->codec_whitelist = av_strdup("h264,hevc,vp8,vp9,libvpx,libvpx-vp9");
    f->protocol_whitelist = av_strdup("none");
    if (f->format_whitelist == NULL || f->codec_whitelist == NULL || f->protocol_whitelist == NULL) {
        status = cc_video_refuse(v, CC_NOMEM, "out of memory");
        goto done;
    }
    const AVInputFormat *container = cc_video_demuxer(v->io);
    if (container == NULL) {
        status = cc_video_refuse(v, CC_INVALID, "not an MP4, MOV, WebM or Matroska file");
        goto done;
    }
    int r = avformat_open_input(&v->format, NULL, container, NULL);
    if (r < 0) {
        /* avformat_open_input frees the context on failure (our pb is left to us). */
        v->format = NULL;
        status = r == AVERROR_INVALIDDATA && v->last_log[0] == '\0'
            ? cc_video_refuse(v, CC_INVALID, "not an MP4, MOV, WebM or Matroska file")
            : cc_video_fail(v, r, "reading the container");
        /* A cut-off file is told apart from a damaged one by its shape, not by FFmpeg's words (which change). */
        if ((status == CC_INVALID || status == CC_TRUNCATED) && strncmp(container->name, "mov", 3) == 0 && cc_video_iso_index_missing(v)) {
            v->index_missing = 1;
            status = CC_TRUNCATED;
        }
        goto done;
    }
    f = v->format;
    r = av_find_best_stream(f, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
    if (r < 0) {
        status = cc_video_refuse(v, CC_INVALID, "the file has no video stream");
        goto done;
    }
    v->stream = r;
    AVStream *st = f->streams[r];
    for (unsigned i = 0; i < f->nb_streams; i++)
        if ((int)i != v->stream) f->streams[i]->discard = AVDISCARD_ALL;
    AVCodecParameters *par = st->codecpar;
    enum AVCodecID id = par->codec_id;
    if (id != AV_CODEC_ID_H264 && id != AV_CODEC_ID_HEVC && id != AV_CODEC_ID_VP8 && id != AV_CODEC_ID_VP9) {
        char text[120];
        snprintf(text, sizeof text, "video codec %s is not read (H.264, HEVC, VP8 and VP9 are)", avcodec_get_name(id));
        status = cc_video_refuse(v, CC_UNSUPPORTED, text);
        goto done;
    }
    /* What the container declares, read before the size is checked: a clip refused for its size is still described
     * (`out` is filled in on CC_LIMIT too, with the declared size). */
    v->time_base = st->time_base;
    v->start_pts = st->start_time != AV_NOPTS_VALUE ? st->start_time : 0;
    AVRational rate = st->avg_frame_rate.num > 0 && st->avg_frame_rate.den > 0 ? st->avg_frame_rate : st->r_frame_rate;
    double fps = rate.num > 0 && rate.den > 0 ? av_q2d(rate) : -1;
    if (fps > 1000) fps = -1;  /* a timescale, not a rate (MOV's r_frame_rate guess) */
    v->default_duration = fps > 0 ? 1.0 / fps : 1.0 / 30.0;
    out->frame_rate = fps;
    out->frame_count = st->nb_frames > 0 && st->nb_frames < INT32_MAX ? (int32_t)st->nb_frames : -1;
    /* The longer of the stream's and the container's: limits are checked against what either declares (an audio
     * track may make the container a little longer; a lying header much longer). */
    out->duration = -1;
    if (st->duration != AV_NOPTS_VALUE && st->duration > 0) out->duration = st->duration * av_q2d(st->time_base);
    if (f->duration != AV_NOPTS_VALUE && f->duration > 0 && (double)f->duration / AV_TIME_BASE > out->duration)
        out->duration = (double)f->duration / AV_TIME_BASE;
    /* And the samples' own span, by the container's index: FFmpeg 7's mov demuxer declares what the edit list
     * presents where 5.1 declared mvhd's duration, so samples running far past a short edit list would otherwise go
     * unseen by the limits. Only a span more than a second past a declared duration counts (an undeclared one stays
     * unknown, not a guess from the part of the index read so far): edit lists that phones
     * write trim a few frames, and the duration reported for every other clip stays the container's. */
    int entries = avformat_index_get_entries_count(st);
    const AVIndexEntry *last = entries > 0 ? avformat_index_get_entry(st, entries - 1) : NULL;
    if (last != NULL && last->timestamp != AV_NOPTS_VALUE) {
        double span = cc_video_seconds(v, last->timestamp) + v->default_duration;
        if (out->duration > 0 && span > out->duration + 1.0) out->duration = span;
    }
    out->rotation = cc_video_rotation(st);
    snprintf(out->codec, sizeof out->codec, "%s", avcodec_get_name(id));
    cc_video_container(v, out->container, sizeof out->container);
    if (par->width < 0 || par->height < 0 || (int64_t)par->width * par->height > max_pixels) {
        char text[120];
        snprintf(text, sizeof text, "declared frame size %dx%d", par->width, par->height);
        status = cc_video_refuse(v, CC_LIMIT, text);
        out->width = (uint32_t)(par->width > 0 ? par->width : 0);
        out->height = (uint32_t)(par->height > 0 ? par->height : 0);
        goto done;
    }
    /* VP8/VP9 alpha travels in Matroska's BlockAdditional, which only libvpx's decoders read. */
    AVDictionaryEntry *alpha = av_dict_get(st->metadata, "alpha_mode", NULL, 0);
    int wants_alpha = alpha != NULL && strcmp(alpha->value, "1") == 0 && (id == AV_CODEC_ID_VP8 || id == AV_CODEC_ID_VP9);
    const AVCodec *decoder = NULL;
    if (wants_alpha) decoder = avcodec_find_decoder_by_name(id == AV_CODEC_ID_VP9 ? "libvpx-vp9" : "libvpx");
    if (wants_alpha && decoder == NULL) cc_messages_add_warning(&v->msg, "no libvpx decoder: the alpha channel is dropped");
    if (decoder == NULL) decoder = avcodec_find_decoder(id);
    if (decoder == NULL) {
        status = cc_video_refuse(v, CC_UNSUPPORTED, "no decoder for the stream's codec in this FFmpeg");
        goto done;
    }
    v->codec = avcodec_alloc_context3(decoder);
    if (v->codec == NULL || avcodec_parameters_to_context(v->codec, par) < 0) {
        status = cc_video_refuse(v, CC_NOMEM, "out of memory");
        goto done;
    }
    /* One thread: the worker's compute pool is the parallelism; nothing outlives a call. */
    v->codec->thread_count = 1;
    v->codec->max_pixels = max_pixels;
    v->codec->pkt_timebase = st->time_base;
    r = avcodec_open2(v->codec, decoder, NULL);
    if (r < 0) {
        status = cc_video_fail(v, r, "opening the decoder");
        goto done;
    }
    out->has_alpha = wants_alpha && strncmp(decoder->name, "libvpx", 6) == 0;
    /* The first frame, decoded now: its size is the stream's (a header may say anything), and a stream that
     * does not decode is refused here rather than at the first frame. */
    int got = 0;
    status = cc_video_decode_kept(v, &got, check);
    if (status != CC_OK) goto done;
    if (!got) {
        status = cc_video_refuse(v, v->truncated ? CC_TRUNCATED : CC_INVALID, "no frame decodes in the stream");
        goto done;
    }
    AVFrame *swap = v->pending;
    v->pending = v->upcoming;
    v->upcoming = swap;
    v->has_pending = 1;
    v->width = (uint32_t)v->pending->width;
    v->height = (uint32_t)v->pending->height;
    out->width = v->width;
    out->height = v->height;
    if (count_frames && out->frame_count < 0) {
        /* Demux only: every video packet is one frame in these containers. */
        v->info_only = 1;
        int32_t count = 0;
        if (avformat_seek_file(f, v->stream, INT64_MIN, INT64_MIN, v->start_pts, AVSEEK_FLAG_BACKWARD) >= 0) {
            while (count <= max_frames) {
                if (count % 256 == 0 && cc_cancelled(check)) { status = CC_CANCELLED; goto done; }
                if (av_read_frame(f, v->packet) < 0) break;
                if (v->packet->stream_index == v->stream) count++;
                av_packet_unref(v->packet);
            }
            out->frame_count = count;
        }
    }
done:
    cc_video_current = NULL;
    return status;
}

int cc_video_seek(cc_video *v, double start) {
    if (v->codec == NULL || v->info_only) return cc_video_refuse(v, CC_INVALID, "cc_video_open did not succeed");
    if (start <= 0) return CC_OK;
    /* In the stream's ticks, checked before the conversion: a double past int64's range has no defined conversion. */
    double ticks = start / av_q2d(v->time_base);
    if (!(ticks < (double)(INT64_MAX / 2)) || v->start_pts > INT64_MAX / 2 || v->start_pts < INT64_MIN / 2)
        return cc_video_refuse(v, CC_INVALID, "the start is past any clip's length");
    cc_video_current = v;
    int64_t target = v->start_pts + (int64_t)ticks;
    int status = CC_OK;
    if (av_seek_frame(v->format, v->stream, target, AVSEEK_FLAG_BACKWARD) < 0) {
        /* Not seekable (a damaged index): decode from where we are and drop what comes before. */
        cc_messages_add_warning(&v->msg, "seeking failed: frames before the start are decoded and dropped");
    } else {
        avcodec_flush_buffers(v->codec);
        v->has_pending = 0;
        v->drained = 0;
        v->ended = 0;
    }
    v->skip_before = start;
    if (v->has_pending) {
        /* The frame kept from open is before the start unless it ends after it. */
        int64_t pts = v->pending->best_effort_timestamp;
        double time = pts == AV_NOPTS_VALUE ? 0 : cc_video_seconds(v, pts);
        int64_t frame_duration = cc_frame_duration(v->pending);
        double duration = frame_duration > 0 ? frame_duration * av_q2d(v->time_base) : v->default_duration;
        if (time + duration <= start + 1e-6) v->has_pending = 0;
    }
    cc_video_current = NULL;
    return status;
}

/* The size frames are handed out at: the opened size unless cc_video_set_output_size chose another. */
static uint32_t cc_video_out_width(const cc_video *v) { return v->out_width ? v->out_width : v->width; }
static uint32_t cc_video_out_height(const cc_video *v) { return v->out_height ? v->out_height : v->height; }

/* Converts `frame` to RGBA at the output size (the opened size unless cc_video_set_output_size chose a smaller one;
 * a frame of another size is scaled to it). Scaling down in the same pass as the conversion costs about what the
 * conversion alone does, where converting at full size and resampling after would cost both. */
static int cc_video_convert(cc_video *v, const AVFrame *frame, uint8_t *rgba, size_t row_bytes) {
    int range = frame->color_range == AVCOL_RANGE_JPEG;
    int out_width = (int)cc_video_out_width(v), out_height = (int)cc_video_out_height(v);
    if (v->sws == NULL || v->sws_width != frame->width || v->sws_height != frame->height
        || v->sws_format != frame->format || v->sws_colorspace != (int)frame->colorspace || v->sws_range != range
        || v->sws_out_width != out_width || v->sws_out_height != out_height) {
        sws_freeContext(v->sws);
        /* Bicubic widens with the reduction (an antialiasing filter down, not a point sample); at the same size
         * only the chroma is interpolated, bilinearly as before. */
        int scaled = out_width != frame->width || out_height != frame->height;
        v->sws = sws_getContext(frame->width, frame->height, (enum AVPixelFormat)frame->format, out_width,
                                out_height, AV_PIX_FMT_RGBA, scaled ? SWS_BICUBIC : SWS_BILINEAR,
                                NULL, NULL, NULL);
        if (v->sws == NULL) return cc_video_refuse(v, CC_UNSUPPORTED, "no conversion from the stream's pixel format to RGBA");
        /* The stream's own matrix (BT.709 for HD, BT.601 when unspecified, as FFmpeg's tools assume) and range. */
        int space = frame->colorspace == AVCOL_SPC_UNSPECIFIED ? SWS_CS_DEFAULT : (int)frame->colorspace;
        sws_setColorspaceDetails(v->sws, sws_getCoefficients(space), range, sws_getCoefficients(SWS_CS_DEFAULT), 1,
                                 0, 1 << 16, 1 << 16);
        v->sws_width = frame->width;
        v->sws_height = frame->height;
        v->sws_format = frame->format;
        v->sws_colorspace = (int)frame->colorspace;
        v->sws_range = range;
        v->sws_out_width = out_width;
        v->sws_out_height = out_height;
    }
    /* Into padded rows, then copied out (cc_sws_rows.h says why). */
    size_t stride = cc_sws_rows_stride((uint32_t)out_width);
    size_t need = cc_sws_rows_size((uint32_t)out_width, (uint32_t)out_height);
    if (v->sws_rows_size < need) {
        av_free(v->sws_rows);
        v->sws_rows = (uint8_t *)av_malloc(need);
        v->sws_rows_size = v->sws_rows ? need : 0;
        if (v->sws_rows == NULL) return cc_video_refuse(v, CC_NOMEM, "no memory for a converted frame");
    }
    uint8_t *planes[4] = { v->sws_rows, NULL, NULL, NULL };
    int strides[4] = { (int)stride, 0, 0, 0 };
    int rows = sws_scale(v->sws, (const uint8_t *const *)frame->data, frame->linesize, 0, frame->height, planes, strides);
    if (rows <= 0) return cc_video_refuse(v, CC_INVALID, "converting a frame to RGBA failed");
    size_t copy = (size_t)out_width * 4 < row_bytes ? (size_t)out_width * 4 : row_bytes;
    for (int y = 0; y < out_height; y++) memcpy(rgba + (size_t)y * row_bytes, v->sws_rows + (size_t)y * stride, copy);
    /* From a format without alpha swscale writes 255 (the decoders' tests check every frame is opaque). */
    return CC_OK;
}

int cc_video_set_output_size(cc_video *v, uint32_t width, uint32_t height) {
    if (v->codec == NULL || v->info_only) return cc_video_refuse(v, CC_INVALID, "cc_video_open did not succeed");
    if (width == 0 || height == 0 || width > v->width || height > v->height)
        return cc_video_refuse(v, CC_INVALID, "the output size is not within the stream's size");
    v->out_width = width;
    v->out_height = height;
    return CC_OK;
}

int cc_video_next(cc_video *v, uint8_t *rgba, size_t row_bytes, size_t capacity, cc_motion_frame *frame, int *got,
                  cc_cancel_check check) {
    *got = 0;
    memset(frame, 0, sizeof *frame);
    if (v->codec == NULL || v->info_only) return cc_video_refuse(v, CC_INVALID, "cc_video_open did not succeed");
    if (!cc_rgba_fits(cc_video_out_width(v), cc_video_out_height(v), row_bytes, capacity))
        return cc_video_refuse(v, CC_INVALID, "the frame buffer does not hold a frame at the output size");
    if (v->ended) return CC_OK;
    cc_video_current = v;
    int status = CC_OK, have = 0;
    if (!v->has_pending) {
        status = cc_video_decode_kept(v, &have, check);
        if (status != CC_OK) goto done;
        if (!have) { v->ended = 1; goto done; }
        AVFrame *swap = v->pending;
        v->pending = v->upcoming;
        v->upcoming = swap;
        v->has_pending = 1;
    }
    int64_t pts = v->pending->best_effort_timestamp;
    double time = pts == AV_NOPTS_VALUE ? v->last_time : cc_video_seconds(v, pts);
    int64_t frame_duration = cc_frame_duration(v->pending);
    double duration = frame_duration > 0 ? frame_duration * av_q2d(v->time_base) : v->default_duration;
    /* Converted and let go before the next frame is decoded: the decoder's pool then never needs a buffer while
     * a frame that only waits for its duration holds one (a 4K frame is 12 MB). */
    status = cc_video_convert(v, v->pending, rgba, row_bytes);
    if (status != CC_OK) goto done;
    av_frame_unref(v->pending);
    v->has_pending = 0;
    /* The frame after this one fixes this one's duration. */
    status = cc_video_decode_kept(v, &have, check);
    if (status != CC_OK) goto done;
    if (have) {
        int64_t next = v->upcoming->best_effort_timestamp;
        if (next != AV_NOPTS_VALUE && cc_video_seconds(v, next) > time) duration = cc_video_seconds(v, next) - time;
    }
    frame->time = time;
    frame->duration = duration;
    frame->truncated = !have && v->truncated;
    v->last_time = time + duration;
    *got = 1;
    if (have) {
        AVFrame *swap = v->pending;
        v->pending = v->upcoming;
        v->upcoming = swap;
        v->has_pending = 1;
    } else {
        v->ended = 1;
    }
done:
    cc_video_current = NULL;
    return status;
}

const char *cc_video_message(const cc_video *v) { return v->msg.error; }
const char *cc_video_warnings(const cc_video *v) { return v->msg.warnings; }
int cc_video_warning_count(const cc_video *v) { return v->msg.warning_count; }
int cc_video_index_missing(const cc_video *v) { return v->index_missing; }
