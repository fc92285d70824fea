#!/usr/bin/env python3
"""Palette peers and the one place the palette quality metric is computed.

  palette_peers.py prepare OUT   decode corpus/photos/*.jpg with Pillow into OUT/src/<name>.rgba
  palette_peers.py score OUT     run colorthief and scikit-learn k-means (CIELAB) on OUT/128/<name>.rgba
                                 (the 128-px images the Swift bench made), then score them and
                                 OUT/swift.json with the same metric.

Metric: mean CIEDE2000 distance from each pixel (alpha >= 128) of the 128-px image to its nearest
palette colour (lower is better). Raw image format: uint32 LE width, uint32 LE height, RGBA8 rows.
"""
import glob, json, os, struct, sys, time

import numpy as np


def read_raw(path):
    with open(path, "rb") as f:
        w, h = struct.unpack("<II", f.read(8))
        return np.frombuffer(f.read(), dtype=np.uint8).reshape(h, w, 4)


def write_raw(path, rgba):
    h, w, _ = rgba.shape
    with open(path, "wb") as f:
        f.write(struct.pack("<II", w, h))
        f.write(np.ascontiguousarray(rgba, dtype=np.uint8).tobytes())


def srgb_to_lab(rgb):
    """sRGB uint8 (..., 3) -> CIELAB D65, same constants as Sources/Imaging/ColorScience.swift."""
    c = rgb.astype(np.float64) / 255.0
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    m = np.array([[0.4124564, 0.3575761, 0.1804375],
                  [0.2126729, 0.7151522, 0.0721750],
                  [0.0193339, 0.1191920, 0.9503041]])
    xyz = lin @ m.T
    xyz[..., 0] /= 0.95047
    xyz[..., 2] /= 1.08883
    e = 216.0 / 24389.0
    f = np.where(xyz > e, np.cbrt(xyz), (24389.0 / 27.0 * xyz + 16) / 116)
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], -1)


def ciede2000(lab1, lab2):
    """Vectorised CIEDE2000 (Sharma et al. 2005), kL = kC = kH = 1."""
    L1, a1, b1 = lab1[..., 0], lab1[..., 1], lab1[..., 2]
    L2, a2, b2 = lab2[..., 0], lab2[..., 1], lab2[..., 2]
    C1 = np.hypot(a1, b1); C2 = np.hypot(a2, b2)
    Cb7 = ((C1 + C2) / 2) ** 7
    G = 0.5 * (1 - np.sqrt(Cb7 / (Cb7 + 25.0 ** 7)))
    a1p = (1 + G) * a1; a2p = (1 + G) * a2
    C1p = np.hypot(a1p, b1); C2p = np.hypot(a2p, b2)
    h1p = np.where((a1p == 0) & (b1 == 0), 0, np.degrees(np.arctan2(b1, a1p)) % 360)
    h2p = np.where((a2p == 0) & (b2 == 0), 0, np.degrees(np.arctan2(b2, a2p)) % 360)
    dLp = L2 - L1; dCp = C2p - C1p
    prod = C1p * C2p
    dhp = h2p - h1p
    dhp = np.where(dhp > 180, dhp - 360, np.where(dhp < -180, dhp + 360, dhp))
    dhp = np.where(prod == 0, 0, dhp)
    dHp = 2 * np.sqrt(prod) * np.sin(np.radians(dhp) / 2)
    Lbp = (L1 + L2) / 2; Cbp = (C1p + C2p) / 2
    hs = h1p + h2p
    hbp = np.where(np.abs(h1p - h2p) <= 180, hs / 2, np.where(hs < 360, (hs + 360) / 2, (hs - 360) / 2))
    hbp = np.where(prod == 0, hs, hbp)
    T = (1 - 0.17 * np.cos(np.radians(hbp - 30)) + 0.24 * np.cos(np.radians(2 * hbp))
         + 0.32 * np.cos(np.radians(3 * hbp + 6)) - 0.20 * np.cos(np.radians(4 * hbp - 63)))
    dTheta = 30 * np.exp(-((hbp - 275) / 25) ** 2)
    Cbp7 = Cbp ** 7
    RC = 2 * np.sqrt(Cbp7 / (Cbp7 + 25.0 ** 7))
    SL = 1 + 0.015 * (Lbp - 50) ** 2 / np.sqrt(20 + (Lbp - 50) ** 2)
    SC = 1 + 0.045 * Cbp
    SH = 1 + 0.015 * Cbp * T
    RT = -np.sin(np.radians(2 * dTheta)) * RC
    return np.sqrt((dLp / SL) ** 2 + (dCp / SC) ** 2 + (dHp / SH) ** 2 + RT * (dCp / SC) * (dHp / SH))


def score(rgba, hexes):
    px = rgba.reshape(-1, 4)
    px = px[px[:, 3] >= 128][:, :3]
    lab = srgb_to_lab(px)
    pal = srgb_to_lab(np.array([[int(h[1:3], 16), int(h[3:5], 16), int(h[5:7], 16)] for h in hexes], dtype=np.uint8))
    d = ciede2000(lab[:, None, :], pal[None, :, :])
    return float(d.min(axis=1).mean())


def colorthief_palette(rgba, k):
    from colorthief import ColorThief
    from PIL import Image
    import io
    buf = io.BytesIO()
    Image.fromarray(rgba, "RGBA").save(buf, "PNG")
    buf.seek(0)
    # quality=1: look at every pixel (the image is already 128 px).
    pal = ColorThief(buf).get_palette(color_count=k, quality=1)[:k]
    return ["#%02X%02X%02X" % tuple(c) for c in pal]


def sklearn_palette(rgba, k):
    from sklearn.cluster import KMeans
    from skimage.color import lab2rgb
    px = rgba.reshape(-1, 4)
    px = px[px[:, 3] >= 128][:, :3]
    lab = srgb_to_lab(px)
    km = KMeans(n_clusters=k, n_init=4, random_state=0).fit(lab)
    rgb = np.clip(lab2rgb(km.cluster_centers_[None, :, :])[0] * 255 + 0.5, 0, 255).astype(int)
    return ["#%02X%02X%02X" % tuple(c) for c in rgb]


def prepare(out):
    from PIL import Image
    here = os.path.dirname(os.path.abspath(__file__))
    photos = sorted(glob.glob(os.path.join(here, "..", "corpus", "photos", "*.jpg")))
    os.makedirs(os.path.join(out, "src"), exist_ok=True)
    n = 0
    for p in photos:
        name = os.path.splitext(os.path.basename(p))[0]
        try:
            im = Image.open(p)
            rgba = np.asarray(im.convert("RGBA"))
        except Exception as e:  # 12-bit and broken JPEGs: skipped, like the worker rejects them
            print(f"skip {name}: {e}", file=sys.stderr)
            continue
        write_raw(os.path.join(out, "src", name + ".rgba"), rgba)
        n += 1
    print(f"prepared {n} images in {out}/src")


def score_all(out, k=5):
    names = sorted(os.path.splitext(os.path.basename(p))[0] for p in glob.glob(os.path.join(out, "128", "*.rgba")))
    images = {n: read_raw(os.path.join(out, "128", n + ".rgba")) for n in names}
    with open(os.path.join(out, "swift.json")) as f:
        swift = json.load(f)
    results = {"swift": (swift["msPerImage"], swift["palettes"])}
    peers = [("colorthief", colorthief_palette), ("sklearn-kmeans-lab", sklearn_palette)]
    if os.environ.get("PALETTE_PEERS") == "0":  # quick tuning runs: score the Swift palettes only
        peers = []
    for label, fn in peers:
        pals = {}
        t0 = time.perf_counter()
        for n in names:
            pals[n] = fn(images[n], k)
        ms = (time.perf_counter() - t0) * 1000 / len(names)
        results[label] = (ms, pals)
    print(f"{len(names)} images, k={k}, metric: mean CIEDE2000 pixel -> nearest palette colour (128-px)")
    print(f"{'method':22} {'mean dE2000':>12} {'ms/image':>10}")
    table = {}
    for label, (ms, pals) in results.items():
        scores = [score(images[n], pals[n]) for n in names]
        table[label] = (float(np.mean(scores)), ms)
        print(f"{label:22} {table[label][0]:12.3f} {ms:10.2f}")
    s = table["swift"]
    for label, _ in peers:
        p = table[label]
        print(f"swift vs {label}: quality {p[0] / s[0]:.2f}x lower error, speed {p[1] / s[1]:.1f}x faster")
    if os.environ.get("PALETTE_PER_IMAGE"):
        for n in names:
            print(n, " ".join(f"{score(images[n], results[l][1][n]):.2f}" for l in results))


if __name__ == "__main__":
    cmd, out = sys.argv[1], sys.argv[2]
    if cmd == "prepare":
        prepare(out)
    elif cmd == "score":
        score_all(out, int(sys.argv[3]) if len(sys.argv) > 3 else 5)
    else:
        sys.exit(__doc__)
