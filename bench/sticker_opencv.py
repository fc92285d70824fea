#!/usr/bin/env python3
"""Peer figure for `photobench sticker`: OpenCV GrabCut on the sticker-dev corpus.

GrabCut initialised with a rectangle 5% in from each border, 5 iterations, run at full size and on a
copy whose longest side is 240 px (mask upscaled with nearest neighbour). Prints mean IoU and ms/image
(one thread) for both, and, with --ours "IOU MS" (the figures photobench printed), the ratios.

--box: the peer of `photobench sticker --prompt box` instead: GrabCut from the tight box round each human mask (the
same box ours is given), 5 iterations, full size; mean IoU of the tuning half (first 30 names), the held-out half
and all.

  pip install opencv-python-headless numpy
  python3 bench/sticker_opencv.py [--dir corpus/sticker-dev] [--ours 0.48 60]
"""
import argparse
import glob
import os
import time

import cv2
import numpy as np


def grabcut(img, iterations=5, rect=None):
    h, w = img.shape[:2]
    if rect is None:
        rect = (int(w * 0.05), int(h * 0.05), max(1, int(w * 0.9)), max(1, int(h * 0.9)))
    mask = np.zeros((h, w), np.uint8)
    bgd, fgd = np.zeros((1, 65), np.float64), np.zeros((1, 65), np.float64)
    cv2.grabCut(img, mask, rect, bgd, fgd, iterations, cv2.GC_INIT_WITH_RECT)
    return (mask == cv2.GC_FGD) | (mask == cv2.GC_PR_FGD)


def iou(a, b):
    union = np.logical_or(a, b).sum()
    return 1.0 if union == 0 else np.logical_and(a, b).sum() / union


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default="corpus/sticker-dev")
    ap.add_argument("--ours", nargs=2, type=float, metavar=("IOU", "MS"))
    ap.add_argument("--box", action="store_true")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    names = sorted(os.path.basename(p)[:-4] for p in glob.glob(os.path.join(args.dir, "images", "*.jpg")))
    if not names:
        raise SystemExit("no images in " + args.dir)
    if args.box:
        ious, times = [], []
        for name in names:
            img = cv2.imread(os.path.join(args.dir, "images", name + ".jpg"), cv2.IMREAD_COLOR)
            truth = cv2.imread(os.path.join(args.dir, "masks", name + ".png"), cv2.IMREAD_GRAYSCALE) > 0
            ys, xs = np.nonzero(truth)
            rect = (int(xs.min()), int(ys.min()), int(xs.max() - xs.min() + 1), int(ys.max() - ys.min() + 1))
            start = time.perf_counter()
            m = grabcut(img, rect=rect)
            times.append((time.perf_counter() - start) * 1000)
            ious.append(iou(m, truth))
        half = len(ious) // 2
        print(f"opencv grabcut from the mask's box: tuning half mean IoU {np.mean(ious[:half]):.3f}  held-out half "
              f"{np.mean(ious[half:]):.3f}  all {np.mean(ious):.3f}  {np.mean(times):.1f} ms/image mean (one thread)")
        return
    results = {}
    for label, side in (("full size", None), ("240 px", 240)):
        ious, times = [], []
        for name in names:
            img = cv2.imread(os.path.join(args.dir, "images", name + ".jpg"), cv2.IMREAD_COLOR)
            truth = cv2.imread(os.path.join(args.dir, "masks", name + ".png"), cv2.IMREAD_GRAYSCALE) > 0
            start = time.perf_counter()
            if side:
                h, w = img.shape[:2]
                s = side / max(h, w)
                small = cv2.resize(img, (max(1, round(w * s)), max(1, round(h * s))), interpolation=cv2.INTER_AREA)
                m = grabcut(small).astype(np.uint8)
                m = cv2.resize(m, (w, h), interpolation=cv2.INTER_NEAREST) > 0
            else:
                m = grabcut(img)
            times.append((time.perf_counter() - start) * 1000)
            ious.append(iou(m, truth))
        results[label] = (float(np.mean(ious)), float(np.mean(times)))
        print(f"opencv grabcut {label}: {len(names)} images  mean IoU {np.mean(ious):.3f}  "
              f"{np.mean(times):.1f} ms/image mean, {np.median(times):.1f} ms median (one thread)")
    if args.ours:
        our_iou, our_ms = args.ours
        for label, (cv_iou, cv_ms) in results.items():
            print(f"ours vs opencv {label}: IoU ratio {our_iou / cv_iou:.2f}, speed-up {cv_ms / our_ms:.1f}x")


if __name__ == "__main__":
    main()
