/* Colour management through lcms2: an embedded (or CICP-described) RGB profile to sRGB, on RGBA8 in place. */
#include "CCodecs.h"
#include <lcms2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

/* Fixed-point precision of the fast path's linear light: Q14. */
#define CC_LIN_BITS 14
#define CC_LIN_ONE (1 << CC_LIN_BITS)

/* A matrix-shaper profile (the usual camera and display spaces: Adobe RGB, ProPhoto, Display P3) converts to sRGB as
 * curves, a 3x3 matrix and sRGB's inverse curve. Done with tables in fixed point this is about 2.5x faster than
 * lcms2's own 8-bit path for the same profiles (bench/README.md), and matches it within one step
 * (cc_icc_transform_fast_error measures that). */
typedef int32_t cc_v4 __attribute__((vector_size(16)));

typedef struct cc_fast_path {
    /* For channel c and value v: column c of the matrix times the channel's linear light, as (R, G, B, 0) of linear
     * sRGB in Q14, so a pixel is three row loads and two vector adds. */
    cc_v4 contribution[3][256];
    uint8_t encode[CC_LIN_ONE + 1];  /* linear sRGB, Q14 -> sRGB byte */
} cc_fast_path;

struct cc_icc_transform {
    cmsHTRANSFORM transform;
    cc_fast_path *fast;              /* NULL: lcms2 converts */
    int identity;
    char description[128];
};

/* lcms2 reports errors through one process-wide handler; without one it is silent, which is what we want:
 * every failure is seen as a NULL return and described by the caller. */
static pthread_once_t cc_lcms_once = PTHREAD_ONCE_INIT;
static void cc_lcms_quiet(cmsContext id, cmsUInt32Number code, const char *text) { (void)id; (void)code; (void)text; }
static void cc_lcms_init(void) { cmsSetLogErrorHandler(cc_lcms_quiet); }

static void cc_set(char *error, size_t size, const char *text) {
    if (size > 0) snprintf(error, size, "%s", text);
}

/* Samples a 9x9x9 grid: a transform that moves none of them by more than one step is sRGB in effect. */
static int cc_is_identity(cmsHTRANSFORM t) {
    uint8_t in[9 * 9 * 9 * 4], out[sizeof in];
    size_t n = 0;
    for (int r = 0; r < 9; r++)
        for (int g = 0; g < 9; g++)
            for (int b = 0; b < 9; b++) {
                in[n * 4] = (uint8_t)(r * 255 / 8);
                in[n * 4 + 1] = (uint8_t)(g * 255 / 8);
                in[n * 4 + 2] = (uint8_t)(b * 255 / 8);
                in[n * 4 + 3] = 255;
                n++;
            }
    cmsDoTransform(t, in, out, (cmsUInt32Number)n);
    for (size_t i = 0; i < n * 4; i++) {
        int d = (int)in[i] - (int)out[i];
        if (d > 1 || d < -1) return 0;
    }
    return 1;
}

static int cc_colorants(cmsHPROFILE p, double m[9]) {
    const cmsCIEXYZ *r = (const cmsCIEXYZ *)cmsReadTag(p, cmsSigRedColorantTag);
    const cmsCIEXYZ *g = (const cmsCIEXYZ *)cmsReadTag(p, cmsSigGreenColorantTag);
    const cmsCIEXYZ *b = (const cmsCIEXYZ *)cmsReadTag(p, cmsSigBlueColorantTag);
    if (r == NULL || g == NULL || b == NULL) return 0;
    /* Columns are the primaries' XYZ (D50, as ICC stores them). */
    m[0] = r->X; m[1] = g->X; m[2] = b->X;
    m[3] = r->Y; m[4] = g->Y; m[5] = b->Y;
    m[6] = r->Z; m[7] = g->Z; m[8] = b->Z;
    return 1;
}

static int cc_invert3(const double a[9], double out[9]) {
    double det = a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) + a[2] * (a[3] * a[7] - a[4] * a[6]);
    if (fabs(det) < 1e-12) return 0;
    out[0] = (a[4] * a[8] - a[5] * a[7]) / det;
    out[1] = (a[2] * a[7] - a[1] * a[8]) / det;
    out[2] = (a[1] * a[5] - a[2] * a[4]) / det;
    out[3] = (a[5] * a[6] - a[3] * a[8]) / det;
    out[4] = (a[0] * a[8] - a[2] * a[6]) / det;
    out[5] = (a[2] * a[3] - a[0] * a[5]) / det;
    out[6] = (a[3] * a[7] - a[4] * a[6]) / det;
    out[7] = (a[1] * a[6] - a[0] * a[7]) / det;
    out[8] = (a[0] * a[4] - a[1] * a[3]) / det;
    return 1;
}

/* The tables of the fast path, or NULL when the profile is not a plain matrix-shaper one. */
static cc_fast_path *cc_fast_path_make(cmsHPROFILE source, cmsHPROFILE srgb) {
    if (!cmsIsMatrixShaper(source) || !cmsIsMatrixShaper(srgb)) return NULL;
    double src[9], dst[9], inv[9];
    if (!cc_colorants(source, src) || !cc_colorants(srgb, dst) || !cc_invert3(dst, inv)) return NULL;
    const cmsTagSignature trcs[3] = { cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag };
    const cmsToneCurve *curves[3];
    for (int c = 0; c < 3; c++) {
        curves[c] = (const cmsToneCurve *)cmsReadTag(source, trcs[c]);
        if (curves[c] == NULL) return NULL;
    }
    const cmsToneCurve *out_curve = (const cmsToneCurve *)cmsReadTag(srgb, cmsSigRedTRCTag);
    if (out_curve == NULL) return NULL;
    cmsToneCurve *reverse = cmsReverseToneCurve(out_curve);
    if (reverse == NULL) return NULL;
    cc_fast_path *f = (cc_fast_path *)aligned_alloc(16, (sizeof *f + 15) & ~(size_t)15);
    if (f == NULL) {
        cmsFreeToneCurve(reverse);
        return NULL;
    }
    double matrix[9];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            matrix[r * 3 + c] = inv[r * 3] * src[c] + inv[r * 3 + 1] * src[3 + c] + inv[r * 3 + 2] * src[6 + c];
    for (int c = 0; c < 3; c++)
        for (int i = 0; i < 256; i++) {
            double linear = cmsEvalToneCurveFloat(curves[c], (float)i / 255.0f);
            for (int r = 0; r < 3; r++) f->contribution[c][i][r] = (int32_t)lrint(matrix[r * 3 + c] * linear * CC_LIN_ONE);
            f->contribution[c][i][3] = 0;
        }
    for (int i = 0; i <= CC_LIN_ONE; i++) {
        float v = cmsEvalToneCurveFloat(reverse, (float)i / CC_LIN_ONE);
        f->encode[i] = (uint8_t)(v <= 0 ? 0 : v >= 1 ? 255 : lrintf(v * 255.0f));
    }
    cmsFreeToneCurve(reverse);
    return f;
}

static void cc_fast_apply(const cc_fast_path *f, uint8_t *p, size_t count) {
    /* restrict: the stores below would otherwise make the compiler reload the table bases for every pixel. */
    const cc_v4 *restrict tr = f->contribution[0], *restrict tg = f->contribution[1], *restrict tb = f->contribution[2];
    const uint8_t *restrict enc = f->encode;
    uint32_t *restrict px = (uint32_t *)(void *)p;
    for (size_t i = 0; i < count; i++) {
        uint32_t v = px[i];   /* RGBA in memory order: R in the low byte (x86-64 and arm64 are little-endian) */
        cc_v4 s = tr[v & 0xFF] + tg[(v >> 8) & 0xFF] + tb[(v >> 16) & 0xFF];
        int32_t x = s[0], y = s[1], z = s[2];
        x = x < 0 ? 0 : x > CC_LIN_ONE ? CC_LIN_ONE : x;
        y = y < 0 ? 0 : y > CC_LIN_ONE ? CC_LIN_ONE : y;
        z = z < 0 ? 0 : z > CC_LIN_ONE ? CC_LIN_ONE : z;
        px[i] = (v & 0xFF000000u) | (uint32_t)enc[z] << 16 | (uint32_t)enc[y] << 8 | enc[x];
    }
}

static cc_icc_transform *cc_make(cmsHPROFILE source, char *error, size_t error_size) {
    if (cmsGetColorSpace(source) != cmsSigRgbData) {
        cc_set(error, error_size, "not an RGB profile");
        cmsCloseProfile(source);
        return NULL;
    }
    cmsHPROFILE srgb = cmsCreate_sRGBProfile();
    if (srgb == NULL) {
        cc_set(error, error_size, "lcms2 could not create sRGB");
        cmsCloseProfile(source);
        return NULL;
    }
    cmsUInt32Number intent = cmsGetHeaderRenderingIntent(source);
    if (intent > INTENT_ABSOLUTE_COLORIMETRIC || !cmsIsIntentSupported(source, intent, LCMS_USED_AS_INPUT))
        intent = INTENT_PERCEPTUAL;
    /* NOCACHE: the one-pixel cache is the only state a transform changes, so without it one transform can
     * serve every thread at once. COPY_ALPHA: alpha passes through untouched. */
    cmsHTRANSFORM t = cmsCreateTransform(source, TYPE_RGBA_8, srgb, TYPE_RGBA_8, intent,
                                         cmsFLAGS_NOCACHE | cmsFLAGS_COPY_ALPHA);
    cc_icc_transform *out = NULL;
    if (t == NULL) {
        cc_set(error, error_size, "lcms2 could not build a transform from this profile");
    } else {
        out = (cc_icc_transform *)calloc(1, sizeof *out);
        if (out == NULL) {
            cmsDeleteTransform(t);
            cc_set(error, error_size, "out of memory");
        } else {
            out->transform = t;
            out->identity = cc_is_identity(t);
            /* Only for the colorimetric intents a matrix-shaper pair has anyway (lcms2 treats perceptual the same). */
            out->fast = cc_fast_path_make(source, srgb);
            cmsGetProfileInfoASCII(source, cmsInfoDescription, "en", "US", out->description,
                                   sizeof out->description);
        }
    }
    cmsCloseProfile(srgb);
    cmsCloseProfile(source);
    return out;
}

cc_icc_transform *cc_icc_transform_create(const uint8_t *profile, size_t length, char *error, size_t error_size) {
    pthread_once(&cc_lcms_once, cc_lcms_init);
    if (profile == NULL || length < 132 || length > 0x7FFFFFFF) {
        cc_set(error, error_size, "profile shorter than an ICC header");
        return NULL;
    }
    cmsHPROFILE source = cmsOpenProfileFromMem(profile, (cmsUInt32Number)length);
    if (source == NULL) {
        cc_set(error, error_size, "lcms2 refused the profile");
        return NULL;
    }
    return cc_make(source, error, error_size);
}

/* The tone curve of an H.273 transfer characteristic, as lcms2's parametric type 4:
 * Y = (aX + b)^g for X >= d, else cX. */
static cmsToneCurve *cc_transfer_curve(int transfer) {
    switch (transfer) {
    case 8: /* linear */
        return cmsBuildGamma(NULL, 1.0);
    case 1: case 6: case 14: case 15: { /* BT.709 / BT.601 / BT.2020 OETF, inverted */
        const cmsFloat64Number p[5] = { 1.0 / 0.45, 1.0 / 1.099, 0.099 / 1.099, 1.0 / 4.5, 0.081 };
        return cmsBuildParametricToneCurve(NULL, 4, p);
    }
    case 4: return cmsBuildGamma(NULL, 2.2);
    case 5: return cmsBuildGamma(NULL, 2.8);
    default: { /* 13 (sRGB), unspecified, and curves without an ICC form (PQ, HLG): the sRGB curve */
        const cmsFloat64Number p[5] = { 2.4, 1.0 / 1.055, 0.055 / 1.055, 1.0 / 12.92, 0.04045 };
        return cmsBuildParametricToneCurve(NULL, 4, p);
    }
    }
}

cc_icc_transform *cc_icc_transform_create_nclx(const float xy[8], int transfer, char *error, size_t error_size) {
    pthread_once(&cc_lcms_once, cc_lcms_init);
    for (int i = 0; i < 8; i++) {
        if (!(xy[i] > 0.0f && xy[i] < 1.0f)) {
            cc_set(error, error_size, "chromaticities out of range");
            return NULL;
        }
    }
    cmsCIExyY white = { xy[6], xy[7], 1.0 };
    cmsCIExyYTRIPLE primaries = { { xy[0], xy[1], 1.0 }, { xy[2], xy[3], 1.0 }, { xy[4], xy[5], 1.0 } };
    cmsToneCurve *curve = cc_transfer_curve(transfer);
    if (curve == NULL) {
        cc_set(error, error_size, "out of memory");
        return NULL;
    }
    cmsToneCurve *curves[3] = { curve, curve, curve };
    cmsHPROFILE source = cmsCreateRGBProfile(&white, &primaries, curves);
    cmsFreeToneCurve(curve);
    if (source == NULL) {
        cc_set(error, error_size, "lcms2 could not build a profile from these primaries");
        return NULL;
    }
    return cc_make(source, error, error_size);
}

int cc_icc_transform_is_identity(const cc_icc_transform *t) { return t->identity; }

const char *cc_icc_transform_description(const cc_icc_transform *t) { return t->description; }

void cc_icc_transform_apply(const cc_icc_transform *t, uint8_t *rgba, size_t count) {
    if (t->fast != NULL) {
        cc_fast_apply(t->fast, rgba, count);
        return;
    }
    while (count > 0) {
        cmsUInt32Number n = count > 0x10000000u ? 0x10000000u : (cmsUInt32Number)count;
        cmsDoTransform(t->transform, rgba, rgba, n);
        rgba += (size_t)n * 4;
        count -= n;
    }
}

int cc_icc_transform_fast_error(const cc_icc_transform *t) {
    if (t->fast == NULL) return -1;
    /* Every 8th step of each channel, plus the extremes: the largest difference from lcms2's own transform. */
    enum { N = 33 };
    uint8_t *a = (uint8_t *)malloc(N * N * N * 4), *b = (uint8_t *)malloc(N * N * N * 4);
    if (a == NULL || b == NULL) {
        free(a);
        free(b);
        return -1;
    }
    size_t n = 0;
    for (int r = 0; r < N; r++)
        for (int g = 0; g < N; g++)
            for (int bl = 0; bl < N; bl++, n++) {
                a[n * 4] = (uint8_t)(r * 255 / (N - 1));
                a[n * 4 + 1] = (uint8_t)(g * 255 / (N - 1));
                a[n * 4 + 2] = (uint8_t)(bl * 255 / (N - 1));
                a[n * 4 + 3] = 255;
            }
    memcpy(b, a, n * 4);
    cmsDoTransform(t->transform, a, a, (cmsUInt32Number)n);
    cc_fast_apply(t->fast, b, n);
    int worst = 0;
    for (size_t i = 0; i < n * 4; i++) {
        int d = abs((int)a[i] - (int)b[i]);
        if (d > worst) worst = d;
    }
    free(a);
    free(b);
    return worst;
}

void cc_icc_transform_destroy(cc_icc_transform *t) {
    if (t == NULL) return;
    free(t->fast);
    cmsDeleteTransform(t->transform);
    free(t);
}
