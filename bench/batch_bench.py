#!/usr/bin/env python3
"""Batch throughput and peak memory of photos.process (issue #5).

  python3 bench/batch_bench.py [--bin .build/release/photoworker] [--count 100] [--cache-bytes N]
        [--segmenter network|classical] [--onnxruntime]

Processes --count photos (the corpus .jpg photos, cycled) in one photos.process request, streaming
items, and prints wall time, photos per second, per-stage medians and the worker's peak RSS. Each
repeat of a photo is a distinct file (a hard link) so the decode cache cannot shortcut the work.

--onnxruntime (run with .build/bench-venv/bin/python3 after bench/setup.sh) then times issue #30's peer on the same
files: rembg's way with onnxruntime, one session with 2 threads, photos in turn (Pillow decode, LANCZOS to 320x320,
the U²-Netp pass, the map resized back to the photo); it writes nothing, so it does less than photos.process.
"""
import argparse, json, os, pathlib, shutil, statistics, subprocess, sys, tempfile, time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from bench_env import add_openblas_option, use_detected_openblas  # noqa: E402
PHOTOS = sorted((ROOT / "corpus/photos").glob("*.jpg"))

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=str(ROOT / ".build/release/photoworker"))
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--cache-bytes", type=int, default=None)
    ap.add_argument("--segmenter", default=None, help="the cut-out (default: the worker's, network)")
    ap.add_argument("--onnxruntime", action="store_true", help="also time rembg's way with onnxruntime on the same files")
    add_openblas_option(ap)
    a = ap.parse_args()
    use_detected_openblas(a.keep_openblas_env)
    work = tempfile.mkdtemp(prefix="pw-batch-")
    sources = []
    for i in range(a.count):
        src = PHOTOS[i % len(PHOTOS)]
        dst = os.path.join(work, f"in-{i:04d}{src.suffix}")
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy(src, dst)
        sources.append({"path": dst})
    args = [a.bin] + (["--cache-bytes", str(a.cache_bytes)] if a.cache_bytes is not None else [])
    p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    req = {"jsonrpc": "2.0", "id": 1, "method": "photos.process",
           "params": {"sources": sources, "count": 5, "outline": {"width": 8}, "output": {"dir": os.path.join(work, "out")}}}
    if a.segmenter:
        req["params"]["segmenter"] = a.segmenter
    t0 = time.perf_counter()
    p.stdin.write(json.dumps(req) + "\n"); p.stdin.flush()
    stages = {"decodeMs": [], "stickerMs": [], "paletteMs": [], "gradientMs": [], "writeMs": [], "totalMs": []}
    first = None
    while True:
        m = json.loads(p.stdout.readline())
        if m.get("method") == "$/progress" and m["params"].get("kind") == "item" and "result" in m["params"]:
            first = first or time.perf_counter() - t0
            for k in stages:
                stages[k].append(m["params"]["result"]["timings"][k])
        if m.get("id") == 1:
            final = m
            break
    wall = time.perf_counter() - t0
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "worker.stats"}) + "\n"); p.stdin.flush()
    stats = json.loads(p.stdout.readline())["result"]
    p.stdin.close(); p.wait()
    r = final["result"]
    print(f"photos.process x{a.count}: {wall:.2f} s wall, {a.count / wall:.1f} photos/s on {os.cpu_count()} cores "
          f"(completed {r['completed']}, failed {r['failed']}); first result after {first:.2f} s")
    print("per photo (median ms): " + ", ".join(f"{k[:-2]} {statistics.median(v):.0f}" for k, v in stages.items() if v))
    print(f"worker peak RSS: {stats['peakRSSBytes'] / 2**20:.0f} MiB")
    if a.onnxruntime:
        onnxruntime_peer([s["path"] for s in sources])
    shutil.rmtree(work)


def onnxruntime_peer(paths):
    """rembg's way, as bench/worker_bench.py's sticker suite times it, photo after photo."""
    import onnxruntime as ort
    from u2net_peers import rembg_masks
    mask = rembg_masks()
    done = failed = 0
    t0 = time.perf_counter()
    for path in paths:
        try:
            mask(path)
        except OSError:  # Pillow cannot open it (the 12-bit JPEG)
            failed += 1
            continue
        done += 1
    wall = time.perf_counter() - t0
    print(f"onnxruntime {ort.__version__} rembg-style, 2 threads, photos in turn: {wall:.2f} s, "
          f"{len(paths) / wall:.1f} photos/s (completed {done}, failed {failed})")

if __name__ == "__main__":
    main()
