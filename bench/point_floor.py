#!/usr/bin/env python3
"""A point never makes the cut worse (issue 64 item 5): image.sticker with and without a point, on both halves of
sticker-dev, through the worker.

  .build/bench-venv/bin/python3 bench/point_floor.py [--bin .build/release/photoworker] [--json FILE] [-v]

The point is the pixel of the human mask farthest from its edge (4-connected erosion until nothing is left: the last
pixels standing, the one nearest their mean), as photobench's deepestPoint. Per photo: the unprompted sticker's mask
and the point's, each scored by IoU against the human mask (at the photo's size). Printed per half: mean IoU
unprompted, with the point, how many photos the point made worse / better by more than 0.005, and the mean over the
photos where the point lies on the unprompted cut (where the floor applies) and where it does not.
"""
import argparse, json, pathlib, subprocess, tempfile
import numpy as np
from PIL import Image

from animated_quality import Worker

ROOT = pathlib.Path(__file__).resolve().parents[1]


def deepest_point(mask):
    m = mask.copy()
    while True:
        e = m.copy()
        e[1:, :] &= m[:-1, :]; e[:-1, :] &= m[1:, :]; e[:, 1:] &= m[:, :-1]; e[:, :-1] &= m[:, 1:]
        e[0, :] = e[-1, :] = False; e[:, 0] = e[:, -1] = False
        if not e.any():
            ys, xs = np.nonzero(m)
            k = np.argmin((ys - ys.mean()) ** 2 + (xs - xs.mean()) ** 2)
            return int(xs[k]), int(ys[k])
        m = e


def mask_of(worker, photo, out, point=None):
    params = {"source": {"path": str(photo)}, "output": {"path": str(out / "s.png"), "overwrite": True},
              "maskOutput": {"path": str(out / "m.png"), "overwrite": True}}
    if point:
        params["subject"] = {"point": list(point)}
    worker.call("image.sticker", params)
    return np.array(Image.open(out / "m.png").convert("L")) >= 128


def iou(a, b):
    return float((a & b).sum() / max(1, (a | b).sum()))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=str(ROOT / ".build/release/photoworker"))
    ap.add_argument("--json")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    names = sorted(p.stem for p in (ROOT / "corpus/sticker-dev/images").glob("*.jpg"))
    worker, rows = Worker(args.bin), []
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp)
        for i, name in enumerate(names):
            truth = np.array(Image.open(ROOT / f"corpus/sticker-dev/masks/{name}.png").convert("L")) >= 128
            photo = ROOT / f"corpus/sticker-dev/images/{name}.jpg"
            point = deepest_point(truth)
            plain = mask_of(worker, photo, out)
            pointed = mask_of(worker, photo, out, point)
            row = {"name": name, "half": "tuning" if i < 30 else "held-out", "at": point,
                   "onCut": bool(plain[point[1], point[0]]), "plain": iou(plain, truth), "point": iou(pointed, truth)}
            rows.append(row)
            if args.verbose:
                print(f"  {row['half']} {name}: unprompted {row['plain']:.3f}, point {row['point']:.3f}"
                      f"{'' if row['onCut'] else ' (point off the unprompted cut)'}", flush=True)
    worker.close()
    for half in ("tuning", "held-out"):
        r = [x for x in rows if x["half"] == half]
        on, off = [x for x in r if x["onCut"]], [x for x in r if not x["onCut"]]
        mean = lambda xs, k: np.mean([x[k] for x in xs]) if xs else float("nan")
        worse = sum(x["point"] < x["plain"] - 0.005 for x in r)
        better = sum(x["point"] > x["plain"] + 0.005 for x in r)
        print(f"{half}: unprompted {mean(r, 'plain'):.3f}, point {mean(r, 'point'):.3f}; point worse on {worse}, "
              f"better on {better} of {len(r)}; point on the unprompted cut ({len(on)}): {mean(on, 'plain'):.3f} -> "
              f"{mean(on, 'point'):.3f}; off it ({len(off)}): {mean(off, 'plain'):.3f} -> {mean(off, 'point'):.3f}")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
