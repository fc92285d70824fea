/* Writes ycck.jpg: a 48x32 Adobe YCCK JPEG (the colour transform Photoshop uses for CMYK), which no corpus
 * file covers. Samples follow the Adobe convention of inverted CMYK (255 = no ink).
 * Build and run from this directory: cc make_ycck.c -ljpeg -o /tmp/make_ycck && /tmp/make_ycck */
#include <stdio.h>
#include <stdlib.h>
#include <jpeglib.h>

int main(void) {
    const int w = 48, h = 32;
    unsigned char *pixels = malloc((size_t)w * h * 4);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            unsigned char *p = pixels + ((size_t)y * w + x) * 4;
            int c = x * 255 / (w - 1), m = y * 255 / (h - 1), ye = (x < w / 2) ? 40 : 200, k = (y < h / 2) ? 0 : 90;
            p[0] = (unsigned char)(255 - c); p[1] = (unsigned char)(255 - m);
            p[2] = (unsigned char)(255 - ye); p[3] = (unsigned char)(255 - k);
        }
    }
    struct jpeg_compress_struct cinfo;
    struct jpeg_error_mgr jerr;
    cinfo.err = jpeg_std_error(&jerr);
    jpeg_create_compress(&cinfo);
    FILE *f = fopen("ycck.jpg", "wb");
    if (!f) return 1;
    jpeg_stdio_dest(&cinfo, f);
    cinfo.image_width = w;
    cinfo.image_height = h;
    cinfo.input_components = 4;
    cinfo.in_color_space = JCS_CMYK;
    jpeg_set_defaults(&cinfo);
    jpeg_set_colorspace(&cinfo, JCS_YCCK);   /* also writes the Adobe APP14 marker, transform 2 */
    jpeg_set_quality(&cinfo, 95, TRUE);
    jpeg_start_compress(&cinfo, TRUE);
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = pixels + (size_t)cinfo.next_scanline * w * 4;
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    fclose(f);
    free(pixels);
    return 0;
}
