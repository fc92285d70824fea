#!/usr/bin/env python3
"""Makes the halo set for `photobench halo`: every sticker-dev subject with a soft edge over a saturated background.

For each photo NAME of corpus/sticker-dev, the human mask blurred by a Gaussian (sigma 2.5 px: a soft band about
15 px wide) is the alpha; the foreground F is the photo inside the mask and, outside it, the subject's colours
carried outwards ring by ring (each new pixel the mean of its neighbours already known), so every pixel with alpha
above 0 has a foreground colour that is the subject's (as hair or fur over a background would); the background B
is a horizontal gradient between two saturated colours (a different pair per photo, in turn). Writes, to OUT
(default .build/halo-set):
  NAME.composite.png  alpha * F + (1 - alpha) * B, opaque (what a cut-out would be made from)
  NAME.alpha.png      the alpha, 8-bit grey
  NAME.fg.png         F, the true colour at every pixel (as PNG, so no JPEG decoder difference enters)
Deterministic; needs numpy and opencv-python-headless (bench venv).

  .build/bench-venv/bin/python3 bench/make_halo_set.py [--dir corpus/sticker-dev] [--out .build/halo-set]
"""
import argparse
import glob
import os

import cv2
import numpy as np

# BGR pairs of saturated colours (green/magenta, blue/yellow, red/cyan, orange/violet).
PAIRS = [((0, 255, 0), (255, 0, 255)), ((255, 0, 0), (0, 255, 255)), ((0, 0, 255), (255, 255, 0)),
         ((0, 128, 255), (255, 0, 128))]


def extend(fg, mask, rings):
    """The subject's colours carried `rings` pixels beyond its mask (3x3 means of the pixels already known)."""
    known = mask.copy()
    out = fg * known[..., None]
    for _ in range(rings):
        weight = cv2.blur(known, (3, 3), borderType=cv2.BORDER_CONSTANT)
        total = cv2.blur(out, (3, 3), borderType=cv2.BORDER_CONSTANT)
        new = (known == 0) & (weight > 0)
        out[new] = total[new] / weight[new][..., None]
        known = np.where(new, 1.0, known)
    # Beyond the rings alpha is 0: the photo's own colours there are never compared.
    return np.where(known[..., None] > 0, out, fg)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default="corpus/sticker-dev")
    ap.add_argument("--out", default=".build/halo-set")
    ap.add_argument("--sigma", type=float, default=2.5)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    names = sorted(os.path.basename(p)[:-4] for p in glob.glob(os.path.join(args.dir, "images", "*.jpg")))
    for i, name in enumerate(names):
        fg = cv2.imread(os.path.join(args.dir, "images", name + ".jpg"), cv2.IMREAD_COLOR).astype(np.float64)
        mask = (cv2.imread(os.path.join(args.dir, "masks", name + ".png"), cv2.IMREAD_GRAYSCALE) > 0).astype(np.float64)
        fg = extend(fg, mask, rings=int(4 * args.sigma) + 2)
        alpha8 = np.clip(np.rint(cv2.GaussianBlur(mask, (0, 0), args.sigma) * 255), 0, 255).astype(np.uint8)
        alpha = alpha8.astype(np.float64)[..., None] / 255
        h, w = mask.shape
        a, b = (np.array(c, np.float64) for c in PAIRS[i % len(PAIRS)])
        t = np.linspace(0, 1, w)[None, :, None]
        bg = np.broadcast_to(a * (1 - t) + b * t, (h, w, 3))
        composite = np.clip(np.rint(alpha * fg + (1 - alpha) * bg), 0, 255).astype(np.uint8)
        cv2.imwrite(os.path.join(args.out, name + ".composite.png"), composite)
        cv2.imwrite(os.path.join(args.out, name + ".alpha.png"), alpha8)
        cv2.imwrite(os.path.join(args.out, name + ".fg.png"), fg.astype(np.uint8))
    print(f"make_halo_set: {len(names)} subjects in {args.out}")


if __name__ == "__main__":
    main()
