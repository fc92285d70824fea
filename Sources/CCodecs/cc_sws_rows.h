#ifndef CC_SWS_ROWS_H
#define CC_SWS_ROWS_H

#include <stddef.h>
#include <stdint.h>

/* swscale's vector loops read and write whole blocks of pixels, so a packed RGBA row whose width is not a multiple
 * of the block is read or written past its end, and the last row past its buffer: a 360-pixel-wide clip corrupted
 * the heap that way. Every RGBA buffer swscale touches is therefore held in rows padded to 64 bytes, with a spare
 * row and block after them, and copied to or from the caller's rows. */

/* The padded stride of a row of `width` RGBA pixels. */
static inline size_t cc_sws_rows_stride(uint32_t width) { return ((size_t)width * 4 + 63) & ~(size_t)63; }

/* The bytes of a buffer of `height` padded rows, with the spare row and block. */
static inline size_t cc_sws_rows_size(uint32_t width, uint32_t height) {
    return cc_sws_rows_stride(width) * ((size_t)height + 1) + 64;
}

#endif
