#!/usr/bin/env python3
"""The formats of issue #28 measured against their peers, in the same run (bench/README.md has the figures).

  bash bench/setup.sh        # once: vipsthumbnail, Pillow + pillow-heif in .build/bench-venv
  swift build -c release --product photoworker && swift build -c release --product photobench
  .build/bench-venv/bin/python3 bench/formats_bench.py [--suite decode,heic] [--rounds 5]

decode: one 2048x1536 picture (a mosaic of corpus photos) as JPEG q90, PNG, lossy and lossless WebP, GIF, HEIC
        (heif-enc -q 50) and AVIF (avifenc), plus the 6000x4000 mosaic converted to Adobe RGB with its profile
        embedded (jpgicc). `photobench decode --files` decodes each in process, one thread, best of N, and runs
        bench/decode_pillow.py (Pillow, pillow-heif) on the same files; the Adobe RGB file is also decoded as
        stored (mode "raw"), so the colour conversion's share of a 24 MP decode shows.
heic-full: the same photos encoded without a thumbnail (--suite heic-full), so every tool decodes them whole.
heic:   8 x 4032x3024 HEIC as a phone takes them (heif-enc -q 50 with a 320x240 thumbnail, as iPhones store),
        -> 256 px JPEG. PhotoWorker: one worker, 8 image.thumbnail requests in flight, `cache.clear` before each
        round; vipsthumbnail: one invocation over the 8 files. Quality (untimed, PNG outputs): PSNR against
        pillow-heif's full decode + LANCZOS to the same size.
"""
import argparse, os, pathlib, shutil, statistics, subprocess, sys, time

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUT = ROOT / "bench/out/formats"
sys.path.insert(0, str(ROOT / "bench"))
from worker_bench import Worker, large_inputs, stats  # noqa: E402
from thumbnail_peers import psnr  # noqa: E402


# Debian's ImageMagick 6 by its own name first: a `convert` earlier on PATH may be something else.
CONVERT = shutil.which("convert-im6.q16") or shutil.which("magick") or "convert"


def run(*cmd):
    cmd = [CONVERT if c == "convert" else str(c) for c in cmd]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def decode_inputs():
    from PIL import Image
    OUT.mkdir(parents=True, exist_ok=True)
    mosaic = large_inputs()[0]
    base = OUT / "base-2048x1536.png"
    if not base.exists():
        im = Image.open(mosaic).convert("RGB")
        im.crop((0, 0, 5332, 3999)).resize((2048, 1536), Image.LANCZOS).save(base)
    files = {
        "jpeg": OUT / "pic.jpg", "png": OUT / "pic.png", "webp-lossy": OUT / "pic-lossy.webp",
        "webp-lossless": OUT / "pic-lossless.webp", "gif": OUT / "pic.gif", "heic": OUT / "pic.heic",
        "avif": OUT / "pic.avif", "adobergb-24mp": OUT / "mosaic-adobergb.jpg",
    }
    if not files["jpeg"].exists():
        Image.open(base).save(files["jpeg"], quality=90)
    if not files["png"].exists():
        shutil.copy(base, files["png"])
    if not files["webp-lossy"].exists():
        run("cwebp", "-quiet", "-q", "80", base, "-o", files["webp-lossy"])
    if not files["webp-lossless"].exists():
        run("cwebp", "-quiet", "-lossless", base, "-o", files["webp-lossless"])
    if not files["gif"].exists():
        run("convert", base, "-colors", "256", files["gif"])
    if not files["heic"].exists():
        run("heif-enc", "-q", "50", base, "-o", files["heic"])
    if not files["avif"].exists():
        run("avifenc", "--min", "24", "--max", "32", "-s", "6", base, files["avif"])
    if not files["adobergb-24mp"].exists():
        run("jpgicc", "-q90", "-o/usr/share/color/icc/colord/AdobeRGB1998.icc", "-e", mosaic, files["adobergb-24mp"])
    return files


def bench_decode(rounds):
    files = decode_inputs()
    bench = ROOT / ".build/release/photobench"
    print(f"decode: in process, one thread, best of {rounds} (photobench decode --files; Pillow via decode_pillow.py)")
    env = dict(os.environ, PATH=f"{pathlib.Path(sys.executable).parent}:{os.environ['PATH']}")
    subprocess.run([bench, "decode", "--iterations", str(rounds), "--files", *map(str, files.values())], check=True, env=env)


def heic_inputs(count=8, thumbnail=True):
    from PIL import Image
    d = OUT / ("heic" if thumbnail else "heic-no-thumbnail")
    d.mkdir(parents=True, exist_ok=True)
    out = [d / f"phone-{i}.heic" for i in range(count)]
    for i, (src, dst) in enumerate(zip(large_inputs(), out)):
        if dst.exists():
            continue
        png = d / f"phone-{i}.png"
        Image.open(src).convert("RGB").crop((0, 0, 5333, 4000)).resize((4032, 3024), Image.LANCZOS).save(png)
        run("heif-enc", "-q", "50", *(["-t", "320"] if thumbnail else []), png, "-o", dst)
        png.unlink()
    return out


def bench_heic(binary, rounds, size=256, thumbnail=True):
    from PIL import Image
    import pillow_heif
    pillow_heif.register_heif_opener()
    inputs = heic_inputs(thumbnail=thumbnail)
    dirs = {t: OUT / "thumb" / t for t in ("photoworker", "vipsthumbnail")}
    for d in dirs.values():
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
    w = Worker(binary)
    reqs = [("image.thumbnail", {"source": {"path": str(f)}, "size": size,
                                 "output": {"path": str(dirs["photoworker"] / f"{f.stem}.jpg")}}) for f in inputs]
    vips = ["vipsthumbnail", "-s", str(size), "-o", str(dirs["vipsthumbnail"] / "%s.jpg[Q=90]")] + [str(f) for f in inputs]
    times = {t: [] for t in dirs}
    w.replies(w.send_many(reqs))
    for _ in range(rounds):
        w.call("cache.clear")
        t0 = time.perf_counter()
        results = w.replies(w.send_many(reqs))
        times["photoworker"].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        subprocess.run(vips, check=True)
        times["vipsthumbnail"].append(time.perf_counter() - t0)
    w.replies(w.send_many([("image.thumbnail", {"source": {"path": str(f)}, "size": size, "output": {
        "path": str(dirs["photoworker"] / f"{f.stem}.png")}}) for f in inputs]))
    subprocess.run(vips[:3] + ["-o", str(dirs["vipsthumbnail"] / "%s.png")] + vips[5:], check=True)
    w.close()
    refs = {}
    for f in inputs:
        im = Image.open(f).convert("RGB")
        s = size / max(im.size)
        refs[f.stem] = im.resize((round(im.width * s), round(im.height * s)), Image.LANCZOS)
    inside = "320x240 thumbnail inside" if thumbnail else "no thumbnail inside: full decodes"
    print(f"heic: {len(inputs)} x 4032x3024 HEIC ({inside}) -> {size} px JPEG, 8 in flight, "
          f"{rounds} rounds; PhotoWorker shrinkOnLoad {sorted({r['shrinkOnLoad'] for r in results})}")
    print(f"  {'tool':14} {'best s':>7} {'median s':>9} {'PhotoWorker faster by':>22} {'PSNR dB (PNG)':>14}")
    ours = stats(times["photoworker"])[1]
    for tool, d in dirs.items():
        q = statistics.mean(psnr(Image.open(d / f"{f.stem}.png").convert("RGB"), refs[f.stem]) for f in inputs)
        best, med = stats(times[tool])
        print(f"  {tool:14} {best:7.3f} {med:9.3f} {med / ours:21.2f}x {q:14.2f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=str(ROOT / ".build/release/photoworker"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--suite", default="decode,heic")
    a = ap.parse_args()
    suites = a.suite.split(",")
    if "decode" in suites:
        bench_decode(a.rounds)
    if "heic" in suites:
        bench_heic(a.bin, a.rounds)
    if "heic-full" in suites:
        bench_heic(a.bin, a.rounds, thumbnail=False)


if __name__ == "__main__":
    main()
