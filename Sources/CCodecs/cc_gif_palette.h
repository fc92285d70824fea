#ifndef CC_GIF_PALETTE_H
#define CC_GIF_PALETTE_H
/* Shared by the still (cc_gif.c) and animation (cc_gif_anim.c) readers. */
#include <gif_lib.h>
#include <stdint.h>
#include <string.h>

/* Each index's RGBA as one word: the transparent index and indices past the colour map (a damaged file: black, as
 * browsers show them) are resolved here instead of per pixel. A GIF without any colour map (neither global nor
 * local) reads as a grey ramp, index i as grey i, as Pillow and browsers read it. */
static inline void cc_gif_color_table(const ColorMapObject *colors, int transparent, uint32_t table[256]) {
    int count = colors != NULL ? colors->ColorCount : 0;
    for (int i = 0; i < 256; i++) {
        uint8_t c[4] = { 0, 0, 0, 255 };
        if (colors == NULL) {
            c[0] = c[1] = c[2] = (uint8_t)i;
        } else if (i < count) {
            c[0] = colors->Colors[i].Red;
            c[1] = colors->Colors[i].Green;
            c[2] = colors->Colors[i].Blue;
        }
        if (i == transparent) c[3] = 0;
        memcpy(&table[i], c, 4);
    }
}

#endif
