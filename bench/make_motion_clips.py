#!/usr/bin/env python3
"""Dev clips of every kind of motion people film, each with its exact true mask in every frame (issue 64).

  .build/bench-venv/bin/python3 bench/make_motion_clips.py [--kinds still,pushin,...] [--halves tuning,held-out]
      [--per-half N] [--formats mp4,gif,webp] [--out bench/out/motion-clips] [--preview FILE.png]

Made from the sticker-dev photos and their human masks: one transform per frame is applied to the photo
(bilinear) and to its mask (bilinear, then thresholded at 128), so the true mask of every frame is exact. Kinds:
  still    the photo, not moving at all (the 60 frames are identical before encoding);
  pushin   a camera pushing in over the whole photo (the photo is the frame, as a phone films a print or a scene):
           zoom 1.0x -> 1.3x over 2 s, roll 0 -> 3 degrees, the centre drifting 4% of the frame (seeded direction);
  pullout  the push-in's frames in reverse order (1.3x -> 1.0x);
  roll     rotation 6 degrees * sin(2 pi 0.5 Hz t) at a fixed zoom of 1.16x (1.1x shows the corners at 6 degrees);
  walk     hand-held walking at 1.15x: a smooth pan of 6% of the width, a step bob (2 Hz, 3 px up and down, 1 Hz
           2 px sideways), a seeded random-walk shake (0.7 px a frame), roll jitter (random walk, within 1.5
           degrees) and scale jitter (within 2%);
  wave     non-rigid: the subject cut out (photo under its mask, its box fitted to 80% of the height and 60% of
           the width, at most 1.5x) over another corpus photo (blurred, static); the mask's pixels in the outer
           third of its box's upper half (left or right: the side with more of them) turn by 15 degrees *
           sin(2 pi 1 Hz t) about a pivot at the part's inner edge, like an arm waving; the background shows where
           the part was; truth = the moved part and the rest;
  turn     non-rigid: the cut-out subject over a blurred corpus photo panning 1 px a frame, its horizontal scale
           1.0 -> 0.65 -> 1.0 about its box's centre (as if turning), drifting 40 px right and 8 px down.
Geometry: 480x320, 30 fps, 2 s (60 frames). Landscape photos (481x321) cover the frame; portrait photos (321x481)
are letterboxed: scaled to 320 high and centred on a dark grey canvas (a print on a table; the whole subject and
its mask are kept), and the camera moves over that canvas. Each clip is H.264 MP4 (yuv420p, crf 18), and with
--formats also a GIF (palettegen/paletteuse) and an animated WebP (every frame lossy at quality 80, 33-34 ms).
Beside it: truth.npy (frames x H x W bool, 9 MB), frames/NN.png (the MP4 decoded back, for per-frame still
stickers) and meta.json: about 13 MB a clip with the MP4 alone, 21 MB with GIF and WebP. Outputs are cached under
--out as KIND/NAME/ (made again only when missing or made by another VERSION), so reruns are instant.
The halves are sticker-dev's: tuning = the first 30 sorted names, held-out = the last 30; --per-half takes the
first N of each.
"""
import argparse, dataclasses, hashlib, io, json, math, pathlib, shutil, struct, subprocess
import numpy as np
from PIL import Image, ImageFilter

ROOT = pathlib.Path(__file__).resolve().parents[1]
DEV = ROOT / "corpus/sticker-dev"
OUT = ROOT / "bench/out/motion-clips"
W, H, FPS, SECONDS = 480, 320, 30, 2
FRAMES = FPS * SECONDS
VERSION = 2  # bump when a rendering changes: clips cached by another version are made again
KINDS = ["still", "pushin", "pullout", "roll", "walk", "wave", "turn"]
FORMATS = ["mp4", "gif", "webp"]
BACKGROUNDS = ["coffee.png", "animal-1.jpg", "girl-1.jpg"]  # as animated_quality.py's
CANVAS_FILL = (40, 40, 40)


@dataclasses.dataclass
class Clip:
    kind: str
    name: str
    half: str
    dir: pathlib.Path

    def path(self, fmt):
        return self.dir / f"clip.{fmt}"

    def frame(self, k):
        return self.dir / f"frames/{k:02d}.png"

    def truth(self):
        return np.load(self.dir / "truth.npy")


def halves():
    names = sorted(p.stem for p in (DEV / "images").glob("*.jpg"))
    return {"tuning": names[:30], "held-out": names[30:]}


def rng(name, kind):
    """A generator seeded by the photo and the kind only: the same clip on every run."""
    return np.random.default_rng(int.from_bytes(hashlib.sha256(f"{name}/{kind}".encode()).digest()[:8], "little"))


def load(name):
    photo = Image.open(DEV / f"images/{name}.jpg").convert("RGB")
    mask = Image.open(DEV / f"masks/{name}.png").convert("L")
    assert photo.size == mask.size, name
    return photo, mask


# Affine maps are 3x3 matrices on continuous pixel coordinates (a pixel's centre at +0.5), as Pillow's AFFINE uses
# them: each maps an output frame's point to the source's point that is shown there.

def translate(dx, dy):
    return np.array([[1, 0, dx], [0, 1, dy], [0, 0, 1]], float)


def scale(sx, sy=None):
    return np.diag([sx, sx if sy is None else sy, 1.0])


def rotate(degrees):
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]], float)


def about(m, x, y):
    """The map m applied about the point (x, y) instead of the origin."""
    return translate(x, y) @ m @ translate(-x, -y)


def warp(image, m, fill=0):
    """The image seen through the map m (output -> source) at the frame's size, bilinear."""
    return image.transform((W, H), Image.Transform.AFFINE, tuple(m[:2].ravel()), resample=Image.Resampling.BILINEAR,
                           fillcolor=fill)


def canvas_to_photo(size):
    """Frame (canvas) coordinates to the photo's: a landscape photo covers the frame, a portrait one is letterboxed."""
    pw, ph = size
    s = max(W / pw, H / ph) if pw >= ph else min(W / pw, H / ph)
    return scale(1 / s) @ translate(-(W - pw * s) / 2, -(H - ph * s) / 2)


def cover_zoom(degrees):
    """The least zoom at which a frame rolled by `degrees` shows no border."""
    c, s = math.cos(math.radians(abs(degrees))), math.sin(math.radians(abs(degrees)))
    return max(c + H / W * s, W / H * s + c)


def camera(zoom, degrees, dx, dy):
    """The frame -> canvas map of a camera zoomed by `zoom`, rolled by `degrees`, its centre moved by (dx, dy) px;
    the centre is held where the frame's corners stay on the canvas, so no border shows."""
    corners = rotate(degrees)[:2, :2] @ (np.array([[-W, -H], [W, -H], [W, H], [-W, H]], float).T / 2) / zoom
    ex, ey = np.abs(corners).max(axis=1)
    assert ex <= W / 2 + 1e-6 and ey <= H / 2 + 1e-6, (zoom, degrees)
    cx = np.clip(W / 2 + dx, ex, W - ex)
    cy = np.clip(H / 2 + dy, ey, H - ey)
    return translate(cx, cy) @ rotate(degrees) @ scale(1 / zoom) @ translate(-W / 2, -H / 2)


# The camera kinds: per frame (zoom, roll in degrees, centre offset x, y in px).

def still_path(name):
    return [(1.0, 0.0, 0.0, 0.0)] * FRAMES


def pushin_path(name):
    phi = rng(name, "pushin").uniform(0, 2 * math.pi)
    out = []
    for k in range(FRAMES):
        p = k / (FRAMES - 1)
        out.append((1 + 0.3 * p, 3.0 * p, 0.04 * W * p * math.cos(phi), 0.04 * H * p * math.sin(phi)))
    return out


def pullout_path(name):
    return pushin_path(name)[::-1]


def roll_path(name):
    zoom = math.ceil(cover_zoom(6) * 100) / 100  # 1.16
    return [(zoom, 6 * math.sin(2 * math.pi * 0.5 * k / FPS), 0.0, 0.0) for k in range(FRAMES)]


def random_walk(g, step, limit):
    """A seeded random walk of FRAMES steps of sd `step`, held within +-limit."""
    out, v = [], 0.0
    for _ in range(FRAMES):
        v = float(np.clip(v + g.normal(0, step), -limit, limit))
        out.append(v)
    return np.array(out)


def walk_path(name):
    g = rng(name, "walk")
    direction = g.choice([-1, 1])
    shake_x, shake_y = random_walk(g, 0.7, 8), random_walk(g, 0.7, 6)
    rolls, zooms = random_walk(g, 0.15, 1.5), random_walk(g, 0.003, 0.02)
    out = []
    for k in range(FRAMES):
        t, p = k / FPS, k / (FRAMES - 1)
        dx = direction * 0.06 * W * (p - 0.5) + 2 * math.sin(2 * math.pi * 1 * t) + shake_x[k]
        dy = 3 * math.sin(2 * math.pi * 2 * t) + shake_y[k]
        out.append((1.15 * (1 + zooms[k]), rolls[k], dx, dy))
    return out


CAMERA_PATHS = {"still": still_path, "pushin": pushin_path, "pullout": pullout_path, "roll": roll_path,
                "walk": walk_path}


def render_camera(kind, name):
    """Frames (uint8 F x H x W x 3) and true masks (bool F x H x W) of a camera kind: the whole photo moved."""
    photo, mask = load(name)
    to_photo = canvas_to_photo(photo.size)
    frames, truth = [], []
    for zoom, degrees, dx, dy in CAMERA_PATHS[kind](name):
        m = to_photo @ camera(zoom, degrees, dx, dy)
        frames.append(np.asarray(warp(photo, m, CANVAS_FILL)))
        truth.append(np.asarray(warp(mask, m)) >= 128)
    return np.stack(frames), np.stack(truth)


# The non-rigid kinds: the cut-out subject over a blurred background.

def background(index, width):
    """A corpus photo (BACKGROUNDS, by the photo's index) covering width x H, out of focus."""
    bg = Image.open(ROOT / "corpus/photos" / BACKGROUNDS[index % len(BACKGROUNDS)]).convert("RGB")
    s = max(width / bg.width, H / bg.height)
    bg = bg.resize((math.ceil(bg.width * s), math.ceil(bg.height * s)), Image.Resampling.LANCZOS)
    left, top = (bg.width - width) // 2, (bg.height - H) // 2
    return np.asarray(bg.crop((left, top, left + width, top + H)).filter(ImageFilter.GaussianBlur(6)), np.float32)


def mask_box(mask):
    a = np.asarray(mask) >= 128
    ys, xs = np.nonzero(a)
    return xs.min(), ys.min(), xs.max() + 1, ys.max() + 1


def placement(mask, cx, cy):
    """The frame -> photo map that puts the mask's box centre at (cx, cy), the box within 80% of the frame's
    height and 60% of its width (enlarged at most 1.5x)."""
    x0, y0, x1, y1 = mask_box(mask)
    s = min(0.8 * H / (y1 - y0), 0.6 * W / (x1 - x0), 1.5)
    return translate((x0 + x1) / 2, (y0 + y1) / 2) @ scale(1 / s) @ translate(-cx, -cy)


def composite(bg, layers):
    """bg (float H x W x 3) under each (photo, mask, map) layer in turn, the mask's bilinear alpha blending the
    photo's pixels; the truth is every layer's alpha >= 128."""
    out, truth = bg.copy(), np.zeros((H, W), bool)
    for photo, mask, m in layers:
        alpha = np.asarray(warp(mask, m), np.float32)[..., None] / 255
        out = out * (1 - alpha) + np.asarray(warp(photo, m), np.float32) * alpha
        truth |= alpha[..., 0] >= 128 / 255
    return np.clip(out + 0.5, 0, 255).astype(np.uint8), truth


def arm(mask):
    """The moving part: the mask's pixels in the outer third of its box's upper half, on the side with more of
    them (widened 3 px inward so no seam opens where it meets the rest at rest), the rest, and the pivot (the
    part's inner edge, at its pixels' mean height)."""
    a = np.asarray(mask) >= 128
    x0, y0, x1, y1 = mask_box(mask)
    third, mid = (x1 - x0) / 3, (y0 + y1) // 2
    cols = np.arange(a.shape[1])
    sides = {"left": (cols < x0 + third, x0 + third, cols < x0 + third + 3),
             "right": (cols >= x1 - third, x1 - third, cols >= x1 - third - 3)}
    counts = {k: a[:mid, v[0]].sum() for k, v in sides.items()}
    region, inner, wide = sides[max(counts, key=lambda k: (counts[k], k == "left"))]
    part, rest = np.zeros_like(a), a.copy()
    part[:mid, wide] = a[:mid, wide]
    rest[:mid, region] = False
    ys = np.nonzero(part)[0]
    pivot = (inner, float(ys.mean()) if len(ys) else (y0 + mid) / 2)
    as_image = lambda b: Image.fromarray(b.astype(np.uint8) * 255)
    return as_image(part), as_image(rest), pivot


def render_wave(name, index):
    photo, mask = load(name)
    bg = background(index, W)
    to_photo = placement(mask, W / 2, H / 2)
    part, rest, (px, py) = arm(mask)
    frames, truth = [], []
    for k in range(FRAMES):
        degrees = 15 * math.sin(2 * math.pi * 1.0 * k / FPS)
        moved = about(rotate(-degrees), px, py) @ to_photo  # the part turned by `degrees` about the pivot
        f, t = composite(bg, [(photo, rest, to_photo), (photo, part, moved)])
        frames.append(f)
        truth.append(t)
    return np.stack(frames), np.stack(truth)


def render_turn(name, index):
    photo, mask = load(name)
    bg = background(index, W + FRAMES)
    x0, y0, x1, y1 = mask_box(mask)
    frames, truth = [], []
    for k in range(FRAMES):
        p = k / (FRAMES - 1)
        sx = 1 - 0.35 * (1 - math.cos(2 * math.pi * p)) / 2
        m = about(scale(1 / sx, 1), (x0 + x1) / 2, (y0 + y1) / 2) @ placement(mask, W / 2 - 20 + 40 * p,
                                                                              H / 2 - 4 + 8 * p)
        pan = FRAMES - k  # the background pans left as the subject drifts right
        f, t = composite(bg[:, pan:pan + W], [(photo, mask, m)])
        frames.append(f)
        truth.append(t)
    return np.stack(frames), np.stack(truth)


def render(kind, name, index):
    if kind == "wave":
        return render_wave(name, index)
    if kind == "turn":
        return render_turn(name, index)
    return render_camera(kind, name)


def ffmpeg(*args, input=None):
    subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-y", *args], check=True, input=input)


def raw_input():
    return ["-f", "rawvideo", "-pix_fmt", "rgb24", "-s", f"{W}x{H}", "-r", str(FPS), "-i", "-"]


def encode(frames, fmt, path):
    raw = frames.tobytes()
    if fmt == "mp4":
        ffmpeg(*raw_input(), "-c:v", "libx264", "-crf", "18", "-pix_fmt", "yuv420p", "-movflags", "+faststart",
               str(path), input=raw)
    elif fmt == "gif":
        ffmpeg(*raw_input(), "-filter_complex", "split[a][b];[a]palettegen[p];[b][p]paletteuse", "-loop", "0",
               str(path), input=raw)
    elif fmt == "webp":
        path.write_bytes(animated_webp(frames))
    else:
        raise ValueError(fmt)


def chunk(tag, data):
    return tag + struct.pack("<I", len(data)) + data + b"\0" * (len(data) & 1)


def animated_webp(frames, quality=80):
    """An animated WebP of every frame, each a lossy still (libwebp through Pillow) in its own ANMF chunk, shown
    for its share of the 30 fps timeline (33 or 34 ms). Written here, not by libwebp's animation encoder, which
    merges identical frames (the still kind would become one frame) and near-identical ones."""
    anmf = []
    for k, f in enumerate(frames):
        buf = io.BytesIO()
        Image.fromarray(f).save(buf, "WEBP", quality=quality, method=4)
        vp8 = buf.getvalue()[12:]  # the still's VP8 chunk, after RIFF size WEBP
        assert vp8[:4] == b"VP8 ", vp8[:4]
        ms = round((k + 1) * 1000 / FPS) - round(k * 1000 / FPS)
        head = (0).to_bytes(3, "little") * 2 + (W - 1).to_bytes(3, "little") + (H - 1).to_bytes(3, "little")
        anmf.append(chunk(b"ANMF", head + ms.to_bytes(3, "little") + bytes([0b10]) + vp8))  # no blending, no disposal
    vp8x = bytes([0b10, 0, 0, 0]) + (W - 1).to_bytes(3, "little") + (H - 1).to_bytes(3, "little")  # animation
    body = b"WEBP" + chunk(b"VP8X", vp8x) + chunk(b"ANIM", bytes(4) + struct.pack("<H", 0)) + b"".join(anmf)
    return b"RIFF" + struct.pack("<I", len(body)) + body


def decoded_frames(clip):
    """The MP4 decoded back to PNG frames, what a still sticker of each frame is made from."""
    (clip.dir / "frames").mkdir(exist_ok=True)
    ffmpeg("-i", str(clip.path("mp4")), "-vsync", "passthrough", "-start_number", "0",
           str(clip.dir / "frames/%02d.png"))
    assert clip.frame(FRAMES - 1).exists() and not clip.frame(FRAMES).exists(), clip.dir


def ready(clip, formats):
    meta = clip.dir / "meta.json"
    if not meta.exists() or json.loads(meta.read_text()).get("version") != VERSION:
        return False
    return all(clip.path(f).exists() for f in formats) and (clip.dir / "truth.npy").exists() and \
        clip.frame(FRAMES - 1).exists()


def make(kind, name, half, index, formats=("mp4",), out=OUT):
    """The clip of `kind` made from photo `name` (cached: made only when missing or of another VERSION)."""
    clip = Clip(kind, name, half, pathlib.Path(out) / kind / name)
    if ready(clip, formats):
        return clip
    meta = clip.dir / "meta.json"
    if meta.exists() and json.loads(meta.read_text()).get("version") != VERSION:
        shutil.rmtree(clip.dir)  # another version's clip, and the still stickers cached beside it
    clip.dir.mkdir(parents=True, exist_ok=True)
    frames, truth = render(kind, name, index)
    for fmt in set(formats) | {"mp4"}:
        if not clip.path(fmt).exists():
            encode(frames, fmt, clip.path(fmt))
    if not clip.frame(FRAMES - 1).exists():
        decoded_frames(clip)
    np.save(clip.dir / "truth.npy", truth)
    meta.write_text(json.dumps({"version": VERSION, "kind": kind, "name": name, "half": half, "width": W,
                                "height": H, "fps": FPS, "frames": FRAMES,
                                "background": BACKGROUNDS[index % len(BACKGROUNDS)] if kind in ("wave", "turn")
                                else None}, indent=1))
    return clip


def clips(kinds=KINDS, which=("tuning", "held-out"), per_half=None, formats=("mp4",), out=OUT, log=None):
    """Every clip asked for, made or taken from the cache: kinds x halves x the first `per_half` photos of each."""
    result = []
    for half in which:
        for index, name in enumerate(halves()[half][:per_half]):
            for kind in kinds:
                clip = make(kind, name, half, index, formats, out)
                if log:
                    log(f"{kind} {half} {name}: {clip.dir}")
                result.append(clip)
    return result


def preview(chosen, path):
    """A contact sheet: frames 0, 20, 40 and 59 of each clip (as encoded, from frames/), the true mask's edge red."""
    rows = []
    for clip in chosen:
        truth = clip.truth()
        cells = []
        for k in (0, 20, 40, FRAMES - 1):
            f = np.asarray(Image.open(clip.frame(k)).convert("RGB")).copy()
            t = truth[k]
            edge = t & ~(np.roll(t, 1, 0) & np.roll(t, -1, 0) & np.roll(t, 1, 1) & np.roll(t, -1, 1))
            f[edge] = (255, 0, 0)
            cells.append(f[::2, ::2])
        rows.append(np.concatenate(cells, axis=1))
    Image.fromarray(np.concatenate(rows, axis=0)).save(path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kinds", default=",".join(KINDS))
    ap.add_argument("--halves", default="tuning,held-out")
    ap.add_argument("--per-half", type=int, help="the first N photos of each half (default all 30)")
    ap.add_argument("--formats", default="mp4", help="mp4, gif, webp (comma-separated)")
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--preview", help="write a contact sheet of the clips (PNG)")
    args = ap.parse_args()
    kinds, formats = args.kinds.split(","), args.formats.split(",")
    assert set(kinds) <= set(KINDS) and set(formats) <= set(FORMATS), (kinds, formats)
    chosen = clips(kinds, args.halves.split(","), args.per_half, formats, args.out, log=print)
    if args.preview:
        preview(chosen, args.preview)


if __name__ == "__main__":
    main()
