#!/usr/bin/env python3
"""Thumbnail peers and quality for `photobench thumbnail`.

  thumbnail_peers.py OUT SIZE SWIFT_SECONDS

OUT/input/*.jpg are the large inputs, OUT/swift/*.png the Swift thumbnails. Times
vipsthumbnail (one invocation over all files; libvips threads internally) and Pillow
(draft + LANCZOS, a pool of 2 processes, one per core), then scores every tool's thumbnails by PSNR
against one reference: Pillow full decode (no draft) + LANCZOS straight to the same size.
"""
import glob, os, shutil, subprocess, sys, time
from concurrent.futures import ProcessPoolExecutor

import numpy as np
from PIL import Image


def pillow_thumb(args):
    """Pillow's fastest good thumbnail: draft (JPEG DCT scaling) + LANCZOS; PNG level 1 or JPEG q90 by name."""
    src, dst, size = args
    im = Image.open(src)
    im.draft("RGB", (size, size))
    im.thumbnail((size, size), Image.LANCZOS, reducing_gap=None)
    im.save(dst, compress_level=1, quality=90)  # each format reads its own option


def psnr(a, b):
    """PSNR in dB over the overlap (tools round the short side differently by a pixel)."""
    a = np.asarray(a.convert("RGB"), dtype=np.float64)
    b = np.asarray(b.convert("RGB"), dtype=np.float64)
    h, w = min(a.shape[0], b.shape[0]), min(a.shape[1], b.shape[1])
    mse = np.mean((a[:h, :w] - b[:h, :w]) ** 2)
    return float("inf") if mse == 0 else 10 * np.log10(255 ** 2 / mse)


def main():
    out, size, swift_s = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    inputs = sorted(glob.glob(os.path.join(out, "input", "*.jpg")))
    names = [os.path.splitext(os.path.basename(p))[0] for p in inputs]
    times = {"swift": swift_s}

    pdir = os.path.join(out, "pillow"); os.makedirs(pdir, exist_ok=True)
    jobs = [(p, os.path.join(pdir, n + ".png"), size) for p, n in zip(inputs, names)]
    with ProcessPoolExecutor(2) as pool:
        list(pool.map(pillow_thumb, jobs[:2]))  # warm the workers
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter(); list(pool.map(pillow_thumb, jobs)); best = min(best, time.perf_counter() - t0)
    times["pillow"] = best

    vdir = os.path.join(out, "vips"); os.makedirs(vdir, exist_ok=True)
    if shutil.which("vipsthumbnail"):
        cmd = ["vipsthumbnail", "-s", str(size), "-o", os.path.join(vdir, "%s.png[compression=1]")] + inputs
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter(); subprocess.run(cmd, check=True); best = min(best, time.perf_counter() - t0)
        times["vipsthumbnail"] = best
    else:
        print("vipsthumbnail not installed (apt-get install libvips-tools); skipped")

    refs = {}
    for p, n in zip(inputs, names):
        im = Image.open(p)
        w, h = im.size
        s = size / max(w, h)
        refs[n] = im.convert("RGB").resize((round(w * s), round(h * s)), Image.LANCZOS)

    print(f"{len(inputs)} x {Image.open(inputs[0]).size} JPEG -> {size} px; PSNR vs Pillow full-decode LANCZOS reference")
    print(f"{'tool':15} {'wall s':>8} {'PSNR dB':>8} {'swift faster by':>16}")
    for tool, d in [("swift", "swift"), ("pillow", "pillow"), ("vipsthumbnail", "vips")]:
        if tool not in times:
            continue
        vals = [psnr(Image.open(os.path.join(out, d, n + ".png")), refs[n]) for n in names]
        ratio = times[tool] / times["swift"]
        print(f"{tool:15} {times[tool]:8.3f} {np.mean(vals):8.2f} {ratio:15.2f}x")


if __name__ == "__main__":
    main()
