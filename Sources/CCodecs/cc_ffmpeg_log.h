#ifndef CC_FFMPEG_LOG_H
#define CC_FFMPEG_LOG_H
/* FFmpeg's log is process-wide, so one callback (installed once, in cc_video.c) routes every line: to the video
 * handle whose call runs on this thread, else, for errors, to this thread's last-error buffer that encoders
 * (cc_webm.c) read for their messages. Nothing reaches stdout (the JSON-RPC channel) or stderr. */
void cc_ffmpeg_log_install(void);
/* The last error FFmpeg logged on this thread outside a video handle's call ("" when none). */
const char *cc_ffmpeg_last_error(void);
void cc_ffmpeg_clear_error(void);
#endif
