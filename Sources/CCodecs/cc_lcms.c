/* Colour management through lcms2: an embedded (or CICP-described) RGB profile to sRGB, on RGBA8 in place. */
#include "CCodecs.h"
#include <lcms2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

struct cc_icc_transform {
    cmsHTRANSFORM transform;
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
    while (count > 0) {
        cmsUInt32Number n = count > 0x10000000u ? 0x10000000u : (cmsUInt32Number)count;
        cmsDoTransform(t->transform, rgba, rgba, n);
        rgba += (size_t)n * 4;
        count -= n;
    }
}

void cc_icc_transform_destroy(cc_icc_transform *t) {
    if (t == NULL) return;
    cmsDeleteTransform(t->transform);
    free(t);
}
