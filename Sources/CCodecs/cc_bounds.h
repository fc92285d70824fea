#ifndef CC_BOUNDS_H
#define CC_BOUNDS_H
/* The one check a shim makes before writing into a caller's buffer: the caller says how many bytes it has, and the
 * shim, which knows the size it will write, refuses rather than trusting that the two agree. */
#include <stddef.h>
#include <stdint.h>

/* Whether `capacity` bytes hold `height` rows `row_bytes` apart, each of `width` RGBA pixels, with no overflow.
 * Whole rows: the last row's padding too, as the callers' buffers have it. */
static inline int cc_rgba_fits(uint32_t width, uint32_t height, size_t row_bytes, size_t capacity) {
    if (width == 0 || height == 0 || row_bytes / 4 < width) return 0;
    if (row_bytes > SIZE_MAX / height) return 0;
    return (size_t)height * row_bytes <= capacity;
}
#endif
