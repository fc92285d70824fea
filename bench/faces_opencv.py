#!/usr/bin/env python3
"""Peer figure for `photobench faces`: OpenCV's CascadeClassifier with the same cascade and settings.

Runs haarcascade_frontalface_alt2 through `detectMultiScale` on the histogram-equalised grey copy of
each sticker-dev photo, resized (area) so its longest side is --max-side, faces of at least --min-size
of the shorter side, one thread. Prints the faces found and the ms per photo; with --ours FILE (the
output of `photobench faces --verbose`, same settings) it also prints how many boxes match
(IoU >= 0.5) and the time ratio.

  pip install "opencv-python-headless<5" numpy     # 5.x wheels dropped CascadeClassifier
  .build/release/photobench faces --verbose > /tmp/ours.txt
  python3 bench/faces_opencv.py --ours /tmp/ours.txt
"""
import argparse
import glob
import os
import time

import cv2


def box_iou(a, b):
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    iw = max(0, min(ax + aw, bx + bw) - max(ax, bx))
    ih = max(0, min(ay + ah, by + bh) - max(ay, by))
    inter = iw * ih
    return inter / float(aw * ah + bw * bh - inter)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default="corpus/sticker-dev")
    ap.add_argument("--max-side", type=int, default=320)
    ap.add_argument("--scale", type=float, default=1.2)
    ap.add_argument("--neighbors", type=int, default=4)
    ap.add_argument("--min-size", type=float, default=0.1)
    ap.add_argument("--ours", metavar="FILE")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    cascade = cv2.CascadeClassifier(cv2.data.haarcascades + "haarcascade_frontalface_alt2.xml")
    names = sorted(os.path.basename(p)[:-4] for p in glob.glob(os.path.join(args.dir, "images", "*.jpg")))
    theirs, total = {}, 0.0
    for name in names:
        img = cv2.imread(os.path.join(args.dir, "images", name + ".jpg"))
        h, w = img.shape[:2]
        s = min(1.0, args.max_side / max(w, h))
        start = time.perf_counter()
        small = cv2.resize(img, (round(w * s), round(h * s)), interpolation=cv2.INTER_AREA) if s < 1 else img
        grey = cv2.equalizeHist(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY))
        m = max(1, int(args.min_size * min(grey.shape)))
        faces = cascade.detectMultiScale(grey, args.scale, args.neighbors, minSize=(m, m))
        total += time.perf_counter() - start
        theirs[name] = [tuple(round(v / s) for v in f) for f in faces]
    ms = total / len(names) * 1000
    found = sum(len(v) for v in theirs.values())
    print("opencv: %d photos, %d faces on %d of them; %.1f ms/photo" % (
        len(names), found, sum(1 for v in theirs.values() if v), ms))
    if args.ours:
        ours = {}
        for line in open(args.ours):
            parts = line.split()
            if len(parts) == 5 and parts[0] in theirs:
                ours.setdefault(parts[0], []).append(tuple(int(v) for v in parts[1:]))
        matched = sum(1 for n, boxes in ours.items() for b in boxes
                      if any(box_iou(b, t) >= 0.5 for t in theirs.get(n, [])))
        count = sum(len(v) for v in ours.values())
        print("ours: %d faces, %d of them matching an OpenCV face (IoU >= 0.5); OpenCV found %d" % (count, matched, found))
        for n in names:
            if ours.get(n) or theirs.get(n):
                print("  %s  ours %s  opencv %s" % (n, ours.get(n, []), theirs.get(n, [])))
        last = [l for l in open(args.ours) if l.startswith("faces:")]
        if last:
            ours_ms = float(last[-1].split("; ")[1].split(" ms")[0])
            print("time: ours %.1f ms, OpenCV %.1f ms per photo: ours %.2fx OpenCV's" % (ours_ms, ms, ours_ms / ms))


if __name__ == "__main__":
    main()
