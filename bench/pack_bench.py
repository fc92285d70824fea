#!/usr/bin/env python3
"""pack.export at scale through one worker: wall time and peak RSS.

  .build/bench-venv/bin/python3 bench/pack_bench.py [--bin .build/release/photoworker] [--count 200]
        [--sources] [--files] [--target telegram|whatsapp|signal]

One pack.export of --count corpus photos (cycled): as ready-made `stickers` (each loaded and placed as it is), or with
--sources cut out first; --files also writes each sticker's file (PNG, or WebP for --target) into a temporary
folder. The worker runs with `--cache-bytes 0`, so the figure is the export's own. Prints the wall time, the sheet's
size and the worker's peak RSS (`worker.stats` VmHWM).
"""
import argparse, json, pathlib, subprocess, sys, tempfile, time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from bench_env import add_openblas_option, use_detected_openblas  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=str(ROOT / ".build/release/photoworker"))
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--sources", action="store_true", help="cut the stickers out of the photos first")
    ap.add_argument("--files", action="store_true", help="also write each sticker's file")
    ap.add_argument("--target", choices=["telegram", "whatsapp", "signal"])
    add_openblas_option(ap)
    a = ap.parse_args()
    use_detected_openblas(a.keep_openblas_env)
    photos = [str(p) for p in sorted((ROOT / "corpus/photos").glob("*.jpg")) if "monkey12" not in p.name]
    p = subprocess.Popen([a.bin, "--cache-bytes", "0"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def call(i, method, params=None):
        p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params or {}}) + "\n")
        while True:
            m = json.loads(p.stdout.readline())
            if m.get("id") == i:
                if "error" in m:
                    sys.exit(f"pack_bench: {method} failed: {m['error']}")
                return m["result"]

    with tempfile.TemporaryDirectory(prefix="pw-pack-") as out:
        items = [{"path": photos[i % len(photos)]} for i in range(a.count)]
        params = {"sources" if a.sources else "stickers": items, "output": {"path": f"{out}/sheet.png"}}
        if a.files or a.target:
            params["filesDir"] = f"{out}/files"
        if a.target:
            params["target"] = a.target
        t0 = time.perf_counter()
        r = call(1, "pack.export", params)
        wall = time.perf_counter() - t0
        peak = call(2, "worker.stats")["peakRSSBytes"] / 2**20
    p.stdin.close()
    p.wait()
    kind = "photos cut into stickers" if a.sources else "photos as stickers"
    files = f", files ({a.target or 'png'})" if "filesDir" in params else ""
    print(f"pack.export of {a.count} {kind}{files}: {wall:.2f} s, sheet {r['output']['width']}x{r['output']['height']}, "
          f"worker peak RSS {peak:.0f} MiB")


if __name__ == "__main__":
    main()
