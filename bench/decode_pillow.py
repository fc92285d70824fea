#!/usr/bin/env python3
"""Pillow peer for `photobench decode`: decode times of the given JPEGs, full size and 1/8 (draft mode,
which uses libjpeg DCT scaling like our shrink-on-load), and of PNGs at full size. Prints a JSON list on
stdout.

usage: decode_pillow.py [--iterations N] file.jpg...
"""
import json, os, sys, time
import PIL
from PIL import Image

# One decoding thread, as ours (PEER_THREADS=0 leaves the libraries' defaults: pillow-heif 4 threads, Pillow's AVIF
# plugin one per core).
THREADS = int(os.environ.get("PEER_THREADS", "1"))
try:  # HEIF/HEIC through pillow-heif's libheif; AVIF through Pillow's own plugin (libavif) where it has one
    import pillow_heif
    pillow_heif.register_heif_opener()
    if hasattr(pillow_heif, "register_avif_opener"):
        pillow_heif.register_avif_opener()
    if THREADS:
        pillow_heif.options.DECODE_THREADS = THREADS
except ImportError:
    pillow_heif = None
try:
    from PIL import AvifImagePlugin
    if THREADS:
        AvifImagePlugin.DEFAULT_MAX_THREADS = THREADS
except ImportError:
    pass


def best_seconds(n, body):
    # Minimum like the Swift side: on a shared machine interference only adds time.
    body()
    times = []
    for _ in range(n):
        start = time.perf_counter()
        body()
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv):
    iterations = 9
    if "--iterations" in argv:
        i = argv.index("--iterations")
        iterations = max(1, int(argv[i + 1]))
        del argv[i:i + 2]
    full_only = "--full-only" in argv
    if full_only:
        argv.remove("--full-only")
    rows = []
    for path in argv:
        data = open(path, "rb").read()
        with Image.open(path) as probe:
            w, h = probe.size
        result = {}

        def full():
            import io
            im = Image.open(io.BytesIO(data))
            im.load()
            result["size"] = "%dx%d" % im.size

        def eighth():
            import io
            im = Image.open(io.BytesIO(data))
            im.draft("RGB", (w // 8, h // 8))
            im.load()
            result["size"] = "%dx%d" % im.size

        modes = (("full", full), ("1/8", eighth)) if path.lower().endswith(".jpg") and not full_only else (("full", full),)
        for mode, fn in modes:
            s = best_seconds(iterations, fn)
            rows.append({"file": os.path.basename(path), "mode": mode, "ms": s * 1000,
                         "mp_per_s": w * h / 1e6 / s, "size": result["size"], "pillow": PIL.__version__})
    json.dump(rows, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1:])
