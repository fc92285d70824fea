#!/usr/bin/env python3
"""Cancellation latency of a sticker mid-flight, through the worker (issue #30's "within 30 ms").

  python3 bench/cancel_bench.py [--bin .build/release/photoworker] [--count 40]

One worker; for each photo of corpus/sticker-dev/images (cycled): `image.sticker` (default segmenter, PNG to a
temporary folder), then `$/cancelRequest` after a delay drawn from 10-200 ms (the passes, the maps and the cut all
fall in that range on a 481x321 photo), and the time from writing the cancel to reading the final response. Replies
that finished before the cancel arrived are counted apart. Prints p50/p90/max of the cancelled ones.
"""
import argparse, glob, json, pathlib, random, subprocess, sys, tempfile, time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from bench_env import add_openblas_option, use_detected_openblas  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=str(ROOT / ".build/release/photoworker"))
    ap.add_argument("--count", type=int, default=40)
    add_openblas_option(ap)
    a = ap.parse_args()
    use_detected_openblas(a.keep_openblas_env)
    photos = sorted(glob.glob(str(ROOT / "corpus/sticker-dev/images/*.jpg")))
    rng = random.Random(30)
    p = subprocess.Popen([a.bin], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True, bufsize=1)
    latencies, finished = [], 0
    with tempfile.TemporaryDirectory() as out:
        for i in range(a.count):
            photo = photos[i % len(photos)]
            request = {"jsonrpc": "2.0", "id": i, "method": "image.sticker",
                       "params": {"source": {"path": photo}, "output": {"path": f"{out}/{i}.png"}}}
            p.stdin.write(json.dumps(request) + "\n")
            time.sleep(rng.uniform(0.010, 0.200))
            sent = time.perf_counter()
            p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": i}}) + "\n")
            while True:
                reply = json.loads(p.stdout.readline())
                if reply.get("id") == i:
                    break
            if "error" in reply and reply["error"]["code"] == -32800:
                latencies.append((time.perf_counter() - sent) * 1000)
            else:
                finished += 1
    p.stdin.close()
    p.wait()
    latencies.sort()
    pick = lambda q: latencies[min(len(latencies) - 1, int(q * (len(latencies) - 1)))]
    print(f"cancel: {len(latencies)} cancelled mid-flight, {finished} finished first; "
          f"answered after p50 {pick(.5):.1f} ms, p90 {pick(.9):.1f} ms, max {latencies[-1]:.1f} ms")


if __name__ == "__main__":
    main()
