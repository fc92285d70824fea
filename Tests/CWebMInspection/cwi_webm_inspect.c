/* Test support (CWebMInspection.h): a WebM read back through libavformat and libvpx-vp9. */
#include "CWebMInspection.h"
#include "CCodecs.h"
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* CCodecs' routing of FFmpeg's process-wide log (Sources/CCodecs/cc_ffmpeg_log.h): installed once for the process,
 * so this reader uses it rather than replacing it under the shims' feet. */
void cc_ffmpeg_log_install(void);
const char *cc_ffmpeg_last_error(void);
void cc_ffmpeg_clear_error(void);

#define CWI_IO_BUFFER 65536

typedef struct cwi_input {
    const uint8_t *data;
    size_t length, position;
} cwi_input;

static int cwi_read(void *opaque, uint8_t *bytes, int count) {
    cwi_input *f = (cwi_input *)opaque;
    if (f->position >= f->length) return AVERROR_EOF;
    size_t n = f->length - f->position;
    if (n > (size_t)count) n = (size_t)count;
    memcpy(bytes, f->data + f->position, n);
    f->position += n;
    return (int)n;
}

static int64_t cwi_seek(void *opaque, int64_t offset, int whence) {
    cwi_input *f = (cwi_input *)opaque;
    int64_t base;
    switch (whence & ~AVSEEK_FORCE) {
    case AVSEEK_SIZE: return (int64_t)f->length;
    case SEEK_SET: base = 0; break;
    case SEEK_CUR: base = (int64_t)f->position; break;
    case SEEK_END: base = (int64_t)f->length; break;
    default: return AVERROR(EINVAL);
    }
    int64_t target = base + offset;
    if (target < 0 || target > (int64_t)f->length) return AVERROR(EINVAL);
    f->position = (size_t)target;
    return target;
}

int cwi_webm_inspect(const uint8_t *data, size_t size, int index, uint8_t *alpha, uint8_t *luma, size_t capacity,
                     cwi_webm_facts *facts, char *error, size_t error_size) {
    cc_ffmpeg_log_install();
    memset(facts, 0, sizeof *facts);
    facts->pts_ms = -1;
    cwi_input file = {data, size, 0};
    AVFormatContext *format = avformat_alloc_context();
    uint8_t *buffer = (uint8_t *)av_malloc(CWI_IO_BUFFER);
    AVIOContext *io = buffer ? avio_alloc_context(buffer, CWI_IO_BUFFER, 0, &file, cwi_read, NULL, cwi_seek) : NULL;
    AVCodecContext *decoder = NULL;
    AVPacket *packet = av_packet_alloc();
    AVFrame *frame = av_frame_alloc();
    int status = CC_INVALID, e = 0, video = -1, decoded = 0;
    const char *where = "setup";
    if (format == NULL || io == NULL || packet == NULL || frame == NULL) goto done;
    format->pb = io;
    format->flags |= AVFMT_FLAG_CUSTOM_IO;
    where = "opening";
    e = avformat_open_input(&format, NULL, av_find_input_format("matroska"), NULL);
    if (e < 0) goto done;
    where = "stream info";
    e = avformat_find_stream_info(format, NULL);
    if (e < 0) goto done;
    facts->duration_ms = format->duration == AV_NOPTS_VALUE ? -1 : format->duration / 1000;
    for (unsigned i = 0; i < format->nb_streams; i++) {
        AVStream *st = format->streams[i];
        if (st->codecpar->codec_type == AVMEDIA_TYPE_AUDIO) facts->audio_streams++;
        if (st->codecpar->codec_type != AVMEDIA_TYPE_VIDEO) continue;
        facts->video_streams++;
        if (video >= 0) continue;
        video = (int)i;
        facts->width = (uint32_t)st->codecpar->width;
        facts->height = (uint32_t)st->codecpar->height;
        snprintf(facts->codec, sizeof facts->codec, "%s", avcodec_get_name(st->codecpar->codec_id));
        AVDictionaryEntry *tag = av_dict_get(st->metadata, "alpha_mode", NULL, 0);
        facts->alpha_mode = tag ? atoi(tag->value) : 0;
    }
    where = "no video stream";
    if (video < 0) goto done;
    const AVCodec *vp9 = avcodec_find_decoder_by_name("libvpx-vp9");
    where = "no libvpx-vp9 decoder";
    if (vp9 == NULL) goto done;
    decoder = avcodec_alloc_context3(vp9);
    where = "decoder";
    if (decoder == NULL) goto done;
    e = avcodec_parameters_to_context(decoder, format->streams[video]->codecpar);
    if (e < 0) goto done;
    decoder->pkt_timebase = format->streams[video]->time_base;
    e = avcodec_open2(decoder, vp9, NULL);
    if (e < 0) goto done;
    AVRational ms = {1, 1000};
    int draining = 0;
    for (;;) {
        if (!draining) {
            e = av_read_frame(format, packet);
            if (e == AVERROR_EOF) {
                draining = 1;
                e = avcodec_send_packet(decoder, NULL);
            } else if (e < 0) {
                where = "reading";
                goto done;
            } else {
                if (packet->stream_index == video) e = avcodec_send_packet(decoder, packet);
                av_packet_unref(packet);
            }
            where = "decoding";
            if (e < 0 && e != AVERROR(EAGAIN)) goto done;
        }
        for (;;) {
            e = avcodec_receive_frame(decoder, frame);
            if (e == AVERROR(EAGAIN)) break;
            if (e == AVERROR_EOF) goto finished;
            where = "decoding";
            if (e < 0) goto done;
            if (decoded == index) {
                facts->has_alpha_plane = frame->format == AV_PIX_FMT_YUVA420P;
                facts->pts_ms = av_rescale_q(frame->best_effort_timestamp, format->streams[video]->time_base, ms);
                size_t need = (size_t)frame->width * (size_t)frame->height;
                for (int plane = 0; plane < 2; plane++) {
                    uint8_t *target = plane == 0 ? luma : alpha;
                    int source = plane == 0 ? 0 : 3;
                    if (target == NULL || capacity < need || (source == 3 && !facts->has_alpha_plane)) continue;
                    for (int y = 0; y < frame->height; y++)
                        memcpy(target + (size_t)y * (size_t)frame->width,
                               frame->data[source] + (size_t)y * (size_t)frame->linesize[source], (size_t)frame->width);
                }
            }
            decoded++;
            av_frame_unref(frame);
        }
        if (draining && e == AVERROR(EAGAIN)) break;
    }
finished:
    facts->frames = decoded;
    status = CC_OK;
done:
    if (status != CC_OK && error != NULL && error_size > 0) {
        char reason[AV_ERROR_MAX_STRING_SIZE] = "";
        if (e < 0) av_strerror(e, reason, sizeof reason);
        snprintf(error, error_size, "%s: %s %s", where, reason, cc_ffmpeg_last_error());
    }
    cc_ffmpeg_clear_error();
    av_frame_free(&frame);
    av_packet_free(&packet);
    avcodec_free_context(&decoder);
    if (format != NULL) avformat_close_input(&format);
    if (io != NULL) {
        av_freep(&io->buffer);
        avio_context_free(&io);
    }
    return status;
}
