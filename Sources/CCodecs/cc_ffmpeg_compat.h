#ifndef CC_FFMPEG_COMPAT_H
#define CC_FFMPEG_COMPAT_H
/* The few places where FFmpeg 5.1 (Debian 12), 6.1 (Ubuntu 24.04) and 7.1 (Debian 13) share no API, named once.
 * Everything else the shims call is present, undeprecated, in all three; scripts/check-shims.sh compiles every shim
 * with deprecations as errors against each distribution's headers (scripts/test-distro.sh). The checks name the
 * version where each API arrived as released (major versions, and lavc 60.30 for coded_side_data, which came
 * within 60: FFmpeg 6.0 is 60.3, 6.1 is 60.31). */
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/frame.h>

/* avio_alloc_context's write callback takes const bytes from libavformat 61 (FFmpeg 7) on. */
#if LIBAVFORMAT_VERSION_MAJOR >= 61
#define CC_AVIO_WRITTEN_BYTES const uint8_t *
#else
#define CC_AVIO_WRITTEN_BYTES uint8_t *
#endif

/* A frame's duration in its time base: AVFrame.duration from libavutil 58 (FFmpeg 6), where pkt_duration is
 * deprecated (and gone in 7); FFmpeg 5.1 has only pkt_duration. */
static inline int64_t cc_frame_duration(const AVFrame *frame) {
#if LIBAVUTIL_VERSION_MAJOR >= 58
    return frame->duration;
#else
    return frame->pkt_duration;
#endif
}

static inline void cc_frame_set_duration(AVFrame *frame, int64_t duration) {
#if LIBAVUTIL_VERSION_MAJOR >= 58
    frame->duration = duration;
#else
    frame->pkt_duration = duration;
#endif
}

/* A stream's side data of one type: the codec parameters' coded_side_data from libavcodec 60.30 (FFmpeg 6.1), where
 * av_stream_get_side_data is deprecated; before it, only av_stream_get_side_data. NULL, with *size 0, when absent. */
static inline const uint8_t *cc_stream_side_data(const AVStream *stream, enum AVPacketSideDataType type,
                                                 size_t *size) {
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(60, 30, 100)
    const AVPacketSideData *side = av_packet_side_data_get(stream->codecpar->coded_side_data,
                                                           stream->codecpar->nb_coded_side_data, type);
    *size = side != NULL ? side->size : 0;
    return side != NULL ? side->data : NULL;
#else
    return av_stream_get_side_data(stream, type, size);
#endif
}
#endif
