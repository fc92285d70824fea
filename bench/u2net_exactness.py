#!/usr/bin/env python3
"""Our U²-Netp against onnxruntime on every sticker-dev photo: max abs difference of the final map.

  bash bench/setup.sh && swift build -c release --product photobench
  .build/bench-venv/bin/python3 bench/u2net_exactness.py [--dir corpus/sticker-dev/images] [--side 256]

Both sides get the same input: the photo sampled to 320x320 (or side x side) at pixel centres, divided
by its maximum, ImageNet mean and deviation (scripts/gen-u2netp.py's reference_input). At another
side the model's declared input shape is made symbolic (onnx) so onnxruntime takes it; ours is the
same network resized (Network.resized).
"""
import argparse, importlib, pathlib, subprocess, sys, tempfile

import numpy as np
import onnxruntime as ort

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "bench"))
from u2net_peers import model_bytes  # noqa: E402


def reference_input(path, side=320):
    from PIL import Image
    img = np.asarray(Image.open(path).convert("RGB"), dtype=np.float32)
    h, w, _ = img.shape
    ys = ((np.arange(side) + 0.5) * h / side).astype(np.int64)
    xs = ((np.arange(side) + 0.5) * w / side).astype(np.int64)
    small = img[ys][:, xs] / max(1.0, float(img.max()))
    x = (small - np.array((0.485, 0.456, 0.406), np.float32)) / np.array((0.229, 0.224, 0.225), np.float32)
    return x.transpose(2, 0, 1)[None].astype(np.float32)


def model_at(side):
    """The model as onnxruntime takes it at `side` x `side`: as shipped at 320, else with a symbolic
    input size (scripts/gen-u2netp.py's symbolic_input)."""
    if side == 320:
        return model_bytes()
    return importlib.import_module("gen-u2netp").symbolic_input(model_bytes())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default=str(ROOT / "corpus/sticker-dev/images"))
    ap.add_argument("--side", type=int, default=320)
    a = ap.parse_args()
    sess = ort.InferenceSession(model_at(a.side), providers=["CPUExecutionProvider"])
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([str(ROOT / ".build/release/photobench"), "u2net", "--maps", a.dir, out, "--side", str(a.side)],
                       check=True)
        worst = []
        for f in sorted(pathlib.Path(out).glob("*.f32")):
            ours = np.fromfile(f, dtype="<f4").reshape(a.side, a.side)
            theirs = sess.run(["1959"], {"input.1": reference_input(pathlib.Path(a.dir) / f.stem, a.side)})[0][0, 0]
            worst.append((float(np.abs(ours - theirs).max()), f.stem))
    worst.sort(reverse=True)
    print(f"{len(worst)} photos: max abs difference {worst[0][0]:.2e} ({worst[0][1]}), median {worst[len(worst) // 2][0]:.2e}; "
          f"within 1e-3: {sum(d <= 1e-3 for d, _ in worst)}/{len(worst)}")


if __name__ == "__main__":
    main()
