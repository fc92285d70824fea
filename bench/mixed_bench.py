#!/usr/bin/env python3
"""A mixed load through one worker: peak memory, throughput and latency per method.

  .build/bench-venv/bin/python3 bench/mixed_bench.py [--bin .build/release/photoworker] [--count 600]
        [--window 8] [--seed 30] [--large N] [--cache-bytes N] [--only METHOD,...]

--count requests drawn (seeded) from what the sticker app and its editors send: image.sticker 25%, image.palette 20%,
image.thumbnail 15% (256 px), image.info 10%, image.scale 8% (x0.5), photo.process 8%, image.convert 6% (to WebP),
image.effect 5% (blur 4), pack.export 3% (three photos' stickers); sources are the corpus photos and the formats set
(HEIC, AVIF, WebP, GIF, PNG), and with --large N, N requests on a 6000x4000 mosaic (worker_bench's, generated once)
in their place. At most --window requests are in flight: a new one is written as each final response is read.
Prints the wall time, requests per second, failures, per-method p50 / p90 / max latency, and the worker's peak RSS
(`worker.stats` VmHWM) with RSS sampled every 20 ms (median, p90).
"""
import argparse, collections, json, os, pathlib, random, statistics, subprocess, sys, tempfile, threading, time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from bench_env import add_openblas_option, use_detected_openblas  # noqa: E402

MIX = [("image.sticker", 25), ("image.palette", 20), ("image.thumbnail", 15), ("image.info", 10),
       ("image.scale", 8), ("photo.process", 8), ("image.convert", 6), ("image.effect", 5), ("pack.export", 3)]


def sources():
    photos = sorted(str(p) for p in (ROOT / "corpus/photos").glob("*.jpg"))
    formats = sorted(str(p) for p in (ROOT / "corpus/formats").iterdir()
                     if p.suffix in (".heic", ".avif", ".webp", ".gif", ".png") and p.is_file())
    return photos, formats


def request(method, rng, photos, formats, out, i, large):
    src = {"path": large} if large else {"path": rng.choice(photos if rng.random() < 0.8 else formats)}
    if method == "image.sticker":
        return {"source": src, "outline": {"width": 8}, "output": {"path": f"{out}/{i}-sticker.png"}}
    if method == "image.palette":
        return {"source": src, "count": rng.choice([3, 5, 8])}
    if method == "image.thumbnail":
        return {"source": src, "size": 256, "output": {"path": f"{out}/{i}-thumb.jpg"}}
    if method == "image.info":
        return {"source": src}
    if method == "image.scale":
        return {"source": src, "factor": 0.5, "output": {"path": f"{out}/{i}-half.png"}}
    if method == "photo.process":
        return {"source": src, "count": 5, "outline": {"width": 8}, "output": {"dir": out}, "name": f"p{i}"}
    if method == "image.convert":
        return {"source": src, "output": {"path": f"{out}/{i}.webp"}}
    if method == "image.effect":
        return {"source": src, "effects": [{"blur": 4}], "output": {"path": f"{out}/{i}-blur.png"}}
    return {"sources": [{"path": rng.choice(photos)} for _ in range(3)], "output": {"path": f"{out}/{i}-pack.png"}}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=str(ROOT / ".build/release/photoworker"))
    ap.add_argument("--count", type=int, default=600)
    ap.add_argument("--window", type=int, default=8, help="requests in flight at most")
    ap.add_argument("--seed", type=int, default=30)
    ap.add_argument("--large", type=int, default=0, help="requests on a 6000x4000 mosaic among them")
    ap.add_argument("--cache-bytes", type=int, help="the worker's decoded-image cache (its default otherwise)")
    ap.add_argument("--only", help="comma-separated methods: the mix restricted to them (same weights)")
    add_openblas_option(ap)
    a = ap.parse_args()
    use_detected_openblas(a.keep_openblas_env)
    rng = random.Random(a.seed)
    photos, formats = sources()
    large_file = None
    if a.large:
        from worker_bench import large_inputs
        large_file = str(large_inputs(count=1)[0])
    mix = [(n, w) for n, w in MIX if not a.only or n in a.only.split(",")]
    if not mix:
        ap.error(f"--only names none of {', '.join(n for n, _ in MIX)}")
    names, weights = zip(*mix)
    plan = [rng.choices(names, weights)[0] for _ in range(a.count)]
    large_at = set(rng.sample(range(a.count), min(a.large, a.count)))

    args = [a.bin] + (["--cache-bytes", str(a.cache_bytes)] if a.cache_bytes is not None else [])
    p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True, bufsize=1)
    samples, done = [], threading.Event()

    def sample():
        while not done.is_set():
            try:
                for line in open(f"/proc/{p.pid}/status"):
                    if line.startswith("VmRSS"):
                        samples.append(int(line.split()[1]) / 1024)
            except OSError:
                break
            time.sleep(0.02)

    threading.Thread(target=sample, daemon=True).start()
    latencies, failures = collections.defaultdict(list), collections.Counter()
    with tempfile.TemporaryDirectory(prefix="pw-mixed-") as out:
        started, next_i, in_flight = {}, 0, 0
        t0 = time.perf_counter()

        def send(i):
            params = request(plan[i], rng, photos, formats, out, i, large_file if i in large_at else None)
            started[i] = time.perf_counter()
            p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": plan[i], "params": params}) + "\n")

        while next_i < a.count and in_flight < a.window:
            send(next_i)
            next_i += 1
            in_flight += 1
        while in_flight:
            m = json.loads(p.stdout.readline())
            i = m.get("id")
            if i not in started or ("result" not in m and "error" not in m):
                continue
            latencies[plan[i]].append((time.perf_counter() - started.pop(i)) * 1000)
            if "error" in m:
                failures[(plan[i], m["error"].get("code"))] += 1
            in_flight -= 1
            if next_i < a.count:
                send(next_i)
                next_i += 1
                in_flight += 1
        wall = time.perf_counter() - t0
        p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": "stats", "method": "worker.stats"}) + "\n")
        while True:
            m = json.loads(p.stdout.readline())
            if m.get("id") == "stats":
                peak = m["result"]["peakRSSBytes"] / 2**20
                break
    done.set()
    p.stdin.close()
    p.wait()
    cache = "the default cache" if a.cache_bytes is None else f"a cache of {a.cache_bytes} bytes"
    print(f"mixed load: {a.count} requests, window {a.window}, seed {a.seed}, {a.large} on a 6000x4000 mosaic, "
          f"{cache}, {os.cpu_count()} cores")
    print(f"  {wall:.2f} s wall, {a.count / wall:.1f} requests/s; failed: {sum(failures.values())}"
          + (f" {dict(failures)}" if failures else ""))
    for name, _ in MIX:
        v = sorted(latencies[name])
        if v:
            print(f"  {name:16s} {len(v):4d}  p50 {statistics.median(v):7.1f}  p90 {v[int(len(v) * 0.9)]:7.1f}  "
                  f"max {v[-1]:7.1f} ms")
    s = sorted(samples)
    print(f"  worker peak RSS: {peak:.0f} MiB (sampled: median {s[len(s) // 2]:.0f}, p90 {s[int(len(s) * 0.9)]:.0f})")


if __name__ == "__main__":
    main()
