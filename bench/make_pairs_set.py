#!/usr/bin/env python3
"""Makes the two-subject set for `photobench subjects`: two sticker-dev photos side by side, with both true masks.

Pairs are taken within each half of the sorted names (tuning: the first 30, held-out: the last 30), each photo beside
the next one of its half (the last beside the first), so every photo is once on the left and once on the right: 30
pairs per half, named T-NN (tuning) and H-NN (held-out) in that order. Both photos are scaled (area) to 240 px high.
Writes, to OUT (default .build/pairs-set):
  NAME.png        the two photos side by side
  NAME.left.png   the left photo's human mask, placed on the pair (255 = subject)
  NAME.right.png  the right photo's
  NAME.json       {"left": photo, "right": photo, "split": the left photo's width}
Deterministic; needs numpy and opencv-python-headless (bench venv).

  .build/bench-venv/bin/python3 bench/make_pairs_set.py [--dir corpus/sticker-dev] [--out .build/pairs-set]
"""
import argparse
import glob
import json
import os

import cv2
import numpy as np

HEIGHT = 240


def load(d, name):
    img = cv2.imread(os.path.join(d, "images", name + ".jpg"), cv2.IMREAD_COLOR)
    mask = (cv2.imread(os.path.join(d, "masks", name + ".png"), cv2.IMREAD_GRAYSCALE) > 0).astype(np.uint8) * 255
    h, w = mask.shape
    size = (max(1, round(w * HEIGHT / h)), HEIGHT)
    return (cv2.resize(img, size, interpolation=cv2.INTER_AREA),
            (cv2.resize(mask, size, interpolation=cv2.INTER_AREA) >= 128).astype(np.uint8) * 255)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default="corpus/sticker-dev")
    ap.add_argument("--out", default=".build/pairs-set")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    names = sorted(os.path.basename(p)[:-4] for p in glob.glob(os.path.join(args.dir, "images", "*.jpg")))
    half = len(names) // 2
    count = 0
    for label, part in (("T", names[:half]), ("H", names[half:])):
        for k, left in enumerate(part):
            right = part[(k + 1) % len(part)]
            (li, lm), (ri, rm) = load(args.dir, left), load(args.dir, right)
            pair = np.hstack([li, ri])
            zl, zr = np.zeros_like(lm), np.zeros_like(rm)
            name = f"{label}-{k:02d}"
            cv2.imwrite(os.path.join(args.out, name + ".png"), pair)
            cv2.imwrite(os.path.join(args.out, name + ".left.png"), np.hstack([lm, zr]))
            cv2.imwrite(os.path.join(args.out, name + ".right.png"), np.hstack([zl, rm]))
            with open(os.path.join(args.out, name + ".json"), "w") as f:
                json.dump({"left": left, "right": right, "split": int(li.shape[1])}, f)
            count += 1
    print(f"make_pairs_set: {count} two-subject photos in {args.out}")


if __name__ == "__main__":
    main()
