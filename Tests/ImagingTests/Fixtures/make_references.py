#!/usr/bin/env python3
"""Regenerates the decode reference fixtures from the project's corpus (run from the package root).

pngsuite-reference.json: for every valid PngSuite file, the FNV-1a 64 hash of its RGBA8 pixels computed
independently of libpng with pypng: palette + tRNS expanded, low-depth grey scaled by bit replication,
16-bit samples rounded as (v*255 + 32767) // 65535 (tRNS matched on the 16-bit values), no gamma, no sBIT.
Each reference is cross-checked against Pillow (exact for 8-bit sources, +-1 for 16-bit ones, because
Pillow truncates 16-bit samples to their high byte).

jpeg-reference.json: for a few JPEGs (plus the YCCK fixture made by make_ycck.c), Pillow's RGB decode summarised as per-channel means and an 8x8 grid
of sampled pixels (Pillow bundles libjpeg-turbo, so greyscale/colour files match to +-1; CMYK is converted
by Pillow's own multiplicative formula).

Requires: pip install pillow pypng numpy
"""
import json, os, sys
import numpy as np
import png
from PIL import Image

CORPUS = "corpus"
OUT = os.path.join("Tests", "ImagingTests", "Fixtures")


def fnv1a64(data: bytes) -> str:
    h = 0xcbf29ce484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def reference_rgba(path):
    r = png.Reader(filename=path)
    w, h, rows, info = r.read()
    depth = info["bitdepth"]
    planes = info["planes"]
    a = np.vstack([np.asarray(row, dtype=np.uint32) for row in rows]).reshape(h, w, planes)
    out = np.zeros((h, w, 4), dtype=np.uint32)
    if "palette" in info and info.get("palette") is not None and planes == 1 and not info["greyscale"]:
        pal = info["palette"]
        lut = np.zeros((256, 4), dtype=np.uint32)
        lut[:, 3] = 255
        for i, entry in enumerate(pal):
            lut[i, :len(entry)] = entry
            if len(entry) == 3:
                lut[i, 3] = 255
        out = lut[a[:, :, 0]]
        return out.astype(np.uint8), depth
    maxv = (1 << depth) - 1
    trns = info.get("transparent")

    def scale(v):
        if depth == 16:
            return (v * 255 + 32767) // 65535
        return v * 255 // maxv
    if info["greyscale"]:
        g = a[:, :, 0]
        for c in range(3):
            out[:, :, c] = scale(g)
        if info["alpha"]:
            out[:, :, 3] = scale(a[:, :, 1])
        else:
            out[:, :, 3] = 255
            if trns is not None:
                t = trns[0] if isinstance(trns, (tuple, list)) else trns
                out[:, :, 3][g == t] = 0
    else:
        for c in range(3):
            out[:, :, c] = scale(a[:, :, c])
        if info["alpha"]:
            out[:, :, 3] = scale(a[:, :, 3])
        else:
            out[:, :, 3] = 255
            if trns is not None:
                mask = (a[:, :, 0] == trns[0]) & (a[:, :, 1] == trns[1]) & (a[:, :, 2] == trns[2])
                out[:, :, 3][mask] = 0
    return out.astype(np.uint8), depth


def pngsuite():
    folder = os.path.join(CORPUS, "pngsuite")
    refs = {}
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".png") or name.startswith("x") or name == "PngSuite.png":
            continue
        path = os.path.join(folder, name)
        rgba, depth = reference_rgba(path)
        im = Image.open(path)
        if im.mode.startswith("I"):
            # Pillow keeps 16-bit grey as I;16 and clips (not scales) it when converting; compare the
            # high byte instead, with alpha from its tRNS handling left out.
            g = np.asarray(im, dtype=np.int32) >> 8
            pil = np.dstack([g, g, g, rgba[:, :, 3].astype(np.int32)])
        else:
            pil = np.asarray(im.convert("RGBA"), dtype=np.int32)
        diff = np.abs(pil - rgba.astype(np.int32))
        tolerance = 1 if depth == 16 else 0
        # Known Pillow deviation: tbbn0g04 (4-bit grey + tRNS) matches tRNS after scaling to 8 bits.
        if diff[:, :, :3].max() > tolerance:
            print("pillow disagrees on colour:", name, int(diff.max()), file=sys.stderr)
        elif diff.max() > tolerance:
            print("pillow disagrees on alpha only:", name, int(diff.max()), file=sys.stderr)
        refs[name] = {"width": rgba.shape[1], "height": rgba.shape[0], "fnv1a64": fnv1a64(rgba.tobytes())}
    with open(os.path.join(OUT, "pngsuite-reference.json"), "w") as f:
        json.dump(refs, f, indent=0, sort_keys=True)
    print(len(refs), "PngSuite references")


def jpegs():
    names = ["photos/libjpeg-testorig.jpg", "photos/libjpeg-testimgari.jpg", "photos/libjpeg-testimgint.jpg",
             "photos/pillow-hopper_gray.jpg", "photos/pillow-pil_sample_cmyk.jpg", "photos/rocket.jpg"]
    # Keys starting with "fixture:" name files in this folder (ycck.jpg comes from make_ycck.c).
    names.append("fixture:ycck.jpg")
    refs = {}
    for rel in names:
        path = os.path.join(OUT, rel[8:]) if rel.startswith("fixture:") else os.path.join(CORPUS, rel)
        im = Image.open(path)
        mode = im.mode
        rgb = np.asarray(im.convert("RGB"), dtype=np.int32)
        h, w, _ = rgb.shape
        grid = []
        for gy in range(8):
            for gx in range(8):
                x = (2 * gx + 1) * w // 16
                y = (2 * gy + 1) * h // 16
                grid.append([x, y] + [int(v) for v in rgb[y, x]])
        refs[rel] = {"mode": mode, "width": w, "height": h,
                     "mean": [round(float(rgb[:, :, c].mean()), 3) for c in range(3)], "samples": grid}
    with open(os.path.join(OUT, "jpeg-reference.json"), "w") as f:
        json.dump(refs, f, indent=1, sort_keys=True)
    print(len(refs), "JPEG references")


if __name__ == "__main__":
    pngsuite()
    jpegs()
