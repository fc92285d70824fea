#!/usr/bin/env python3
"""Our U²-Netp against onnxruntime on every sticker-dev photo: max abs difference of the final map.

  bash bench/setup.sh && swift build -c release --product photobench
  .build/bench-venv/bin/python3 bench/u2net_exactness.py [--dir corpus/sticker-dev/images]

Both sides get the same input: the photo sampled to 320x320 at pixel centres, divided by its maximum,
ImageNet mean and deviation (scripts/gen-u2netp.py's reference_input).
"""
import argparse, pathlib, subprocess, sys, tempfile

import numpy as np
import onnxruntime as ort

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "bench"))
from u2net_peers import model_bytes  # noqa: E402


def reference_input(path):
    from PIL import Image
    img = np.asarray(Image.open(path).convert("RGB"), dtype=np.float32)
    h, w, _ = img.shape
    ys = ((np.arange(320) + 0.5) * h / 320).astype(np.int64)
    xs = ((np.arange(320) + 0.5) * w / 320).astype(np.int64)
    small = img[ys][:, xs] / max(1.0, float(img.max()))
    x = (small - np.array((0.485, 0.456, 0.406), np.float32)) / np.array((0.229, 0.224, 0.225), np.float32)
    return x.transpose(2, 0, 1)[None].astype(np.float32)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default=str(ROOT / "corpus/sticker-dev/images"))
    a = ap.parse_args()
    sess = ort.InferenceSession(model_bytes(), providers=["CPUExecutionProvider"])
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([str(ROOT / ".build/release/photobench"), "u2net", "--maps", a.dir, out], check=True)
        worst = []
        for f in sorted(pathlib.Path(out).glob("*.f32")):
            ours = np.fromfile(f, dtype="<f4").reshape(320, 320)
            theirs = sess.run(["1959"], {"input.1": reference_input(pathlib.Path(a.dir) / f.stem)})[0][0, 0]
            worst.append((float(np.abs(ours - theirs).max()), f.stem))
    worst.sort(reverse=True)
    print(f"{len(worst)} photos: max abs difference {worst[0][0]:.2e} ({worst[0][1]}), median {worst[len(worst) // 2][0]:.2e}; "
          f"within 1e-3: {sum(d <= 1e-3 for d, _ in worst)}/{len(worst)}")


if __name__ == "__main__":
    main()
