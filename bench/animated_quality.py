#!/usr/bin/env python3
"""Animated stickers against per-frame still stickers on clips whose every true mask is known (issue #44's quality
goals), on both halves of sticker-dev.

  .build/bench-venv/bin/python3 bench/animated_quality.py [--bin .build/release/photoworker] [--per-half 8]
      [--intervals 0.25] [--half tuning|held-out|both] [--steady | --noisy] [--still-cache DIR]
      [--background-offset 1|2] [-v]

Each clip (made here with ffmpeg, 384x256, 15 fps, 2 s, H.264 crf 18): a sticker-dev subject (its photo under its
human mask, 200 px high) drifting right and down over a corpus photo, out of focus, that pans the other way, so its true mask in
every frame is the mask moved. The halves are sticker-dev's (tuning = the first 30 names, held-out = the last 30),
the first --per-half of each. With --steady nothing moves and ffmpeg's noise filter puts fresh sensor-like noise in
every frame: the true mask never changes, so every change of a mask is flicker. With --noisy the clips move as
without it and have that noise too, as a camera's frames do. Per clip, through one worker:
  - still: image.sticker on every decoded frame (maskOutput), as per-frame still stickers would be;
  - animated: image.animatedSticker (maskOutput at the clip's size) at each --intervals keyFrameInterval.
Scores: mean per-frame IoU against the true masks, and flicker beyond the truth's own change two ways: the change
share (pixels that change side between consecutive frames, as a share of the pixels inside either) over the true
masks' change share, pair by pair (never below 0); and, stricter, the pixels whose change differs from the true
masks' change (as a share of the subject pixels of the four masks), which also counts an error of the mask that
merely moves with the subject; and that same count after moving each frame's masks (and true masks) by the subject's
own motion to the next frame (4 px right, 1 down; none on steady clips, where it equals the strict measure): the
change the subject's motion does not explain, so a mask error that moves with the subject is not counted, a mask
that shimmers or jumps is. The goal: animated IoU >= still IoU - 0.02, flicker <= a third of the still stickers'.
"""
import argparse, json, os, pathlib, subprocess, sys, tempfile, time
import numpy as np

from animated_bench import excess_flicker  # the stricter measure, shared with the cutout clip's bench

ROOT = pathlib.Path(__file__).resolve().parents[1]
W, H, FPS, SECONDS = 384, 256, 15, 2
FRAMES = FPS * SECONDS
BACKGROUNDS = ["coffee.png", "animal-1.jpg", "girl-1.jpg"]


def ff(*args):
    subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-y", *args], check=True)


def gray_frames(path, w, h, decoder=()):
    raw = subprocess.run(["ffmpeg", "-v", "error", *decoder, "-i", str(path), "-vsync", "passthrough", "-f", "rawvideo",
                          "-pix_fmt", "gray", "-"], check=True, capture_output=True).stdout
    return np.frombuffer(raw, np.uint8).reshape(-1, h, w) >= 128


def make_clip(name, index, tmp, steady=False, noisy=False, offset=0):
    """The clip, its frames as PNGs and the true masks (bool array frames x H x W). `steady`: nothing moves, and
    fresh sensor-like noise in every frame is all that changes (every change of a mask is flicker). `noisy`: the
    moving clip with that noise."""
    image, mask = ROOT / f"corpus/sticker-dev/images/{name}.jpg", ROOT / f"corpus/sticker-dev/masks/{name}.png"
    bg = ROOT / "corpus/photos" / BACKGROUNDS[(index + offset) % len(BACKGROUNDS)]
    d = pathlib.Path(tmp) / (name + ("-steady" if steady else "-noisy" if noisy else "") + (f"-bg{offset}" if offset else ""))
    (d / "frames").mkdir(parents=True)
    # The mask thresholded after scaling: the overlay's alpha and the truth are the same 0/255 mask.
    ff("-i", str(mask), "-vf", "scale=-2:200,format=gray,lut=y='if(gte(val,128),255,0)'", str(d / "m.png"))
    ff("-i", str(image), "-i", str(d / "m.png"), "-filter_complex",
       "[0]scale=-2:200,format=rgb24[p];[p][1]alphamerge,format=rgba", str(d / "cut.png"))
    # The background out of focus, as behind a subject someone films: the subject is the one a person means.
    ff("-i", str(bg), "-vf", f"scale={W * 2}:-2,crop={W * 2}:{H}:0:(ih-{H})/2,gblur=sigma=6,format=rgb24",
       str(d / "bg.png"))
    pos = "x=90:y=35" if steady else "x='30+n*4':y='20+n'"
    pan = "(iw-ow)/2" if steady else f"{W}-n*6"
    noise = ",noise=alls=12:allf=t+u" if steady or noisy else ""
    ff("-loop", "1", "-framerate", str(FPS), "-i", str(d / "bg.png"), "-loop", "1", "-framerate", str(FPS),
       "-i", str(d / "cut.png"), "-filter_complex",
       f"[0]crop={W}:{H}:x='{pan}':y=0[bg];[bg][1]overlay={pos}:eval=frame:format=rgb{noise},format=yuv420p",
       "-frames:v", str(FRAMES), "-c:v", "libx264", "-crf", "18", "-r", str(FPS), str(d / "clip.mp4"))
    ff("-f", "lavfi", "-i", f"color=black:size={W}x{H}:rate={FPS},format=rgb24", "-loop", "1", "-framerate", str(FPS),
       "-i", str(d / "m.png"), "-filter_complex", f"[0][1]overlay={pos}:eval=frame:format=rgb,format=gray",
       "-frames:v", str(FRAMES), "-f", "rawvideo", "-pix_fmt", "gray", str(d / "truth.raw"))
    ff("-i", str(d / "clip.mp4"), "-start_number", "0", str(d / "frames/%02d.png"))
    truth = np.fromfile(d / "truth.raw", np.uint8).reshape(-1, H, W) >= 128
    return d, truth


def iou(masks, truth):
    return float(np.mean([np.logical_and(m, t).sum() / max(1, np.logical_or(m, t).sum()) for m, t in zip(masks, truth)]))


def change_share(masks):
    """Per consecutive pair, the pixels that change side as a share of the pixels inside either."""
    out = []
    for a, b in zip(masks, masks[1:]):
        inside = np.logical_or(a, b).sum()
        out.append(np.logical_xor(a, b).sum() / inside if inside else 0)
    return np.array(out)


def shifted(mask, dx, dy):
    """The mask moved right by dx and down by dy (dx, dy >= 0), what leaves the frame dropped."""
    out = np.zeros_like(mask)
    out[dy:, dx:] = mask[:mask.shape[0] - dy, :mask.shape[1] - dx]
    return out


def compensated_flicker(masks, truth, motion):
    """The strict measure after moving each frame's masks by the subject's own motion to the next frame."""
    dx, dy = motion
    return float(np.mean([excess_flicker([shifted(a, dx, dy), b], [shifted(ta, dx, dy), tb])
                          for (a, b), (ta, tb) in zip(zip(masks, masks[1:]), zip(truth, truth[1:]))]))


def flicker_over_truth(masks, truth):
    """The masks' change share beyond the true masks' own, pair by pair (never below 0), averaged."""
    return float(np.mean(np.maximum(0, change_share(masks) - change_share(truth))))


class Worker:
    def __init__(self, binary):
        self.proc = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)
        self.next_id = 0

    def call(self, method, params):
        self.next_id += 1
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method,
                                          "params": params}) + "\n")
        self.proc.stdin.flush()
        while True:
            m = json.loads(self.proc.stdout.readline())
            if m.get("id") == self.next_id and "method" not in m:
                if "error" in m:
                    raise SystemExit(f"{method}: {m['error']}")
                return m["result"]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=str(ROOT / ".build/release/photoworker"))
    ap.add_argument("--per-half", type=int, default=8)
    ap.add_argument("--half", choices=["tuning", "held-out", "both"], default="both")
    ap.add_argument("--intervals", default="0.25")
    ap.add_argument("--steady", action="store_true", help="still scenes with fresh noise in every frame")
    ap.add_argument("--noisy", action="store_true", help="moving scenes with fresh noise in every frame")
    ap.add_argument("--still-cache", help="a folder keeping the still stickers' scores per clip (they depend on the "
                    "clip and image.sticker only), for runs that compare animated settings")
    ap.add_argument("--background-offset", type=int, default=0, help="each clip over the next background of the "
                    "three (1 or 2): the same subjects over other scenes, more clips for tuning")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    names = sorted(p.stem for p in (ROOT / "corpus/sticker-dev/images").glob("*.jpg"))
    halves = {"tuning": names[:30][:args.per_half], "held-out": names[30:][:args.per_half]}
    intervals = [float(x) for x in args.intervals.split(",")]
    worker = Worker(args.bin)
    with tempfile.TemporaryDirectory() as tmp:
        for half, chosen in halves.items():
            if args.half not in ("both", half):
                continue
            rows = []
            for i, name in enumerate(chosen):
                d, truth = make_clip(name, i, tmp, steady=args.steady, noisy=args.noisy, offset=args.background_offset)
                motion = (0, 0) if args.steady else (4, 1)  # make_clip's overlay position per frame
                cached = None
                if args.still_cache:
                    cache = pathlib.Path(args.still_cache) / f"{d.name}.json"
                    cached = json.loads(cache.read_text()) if cache.exists() else None
                if cached is None:
                    still = []
                    for k in range(FRAMES):
                        out = d / f"still{k:02d}.png"
                        worker.call("image.sticker", {"source": {"path": str(d / f"frames/{k:02d}.png")},
                                                      "output": {"path": str(d / "s.png"), "overwrite": True},
                                                      "maskOutput": {"path": str(out), "overwrite": True}})
                        still.append(gray_frames(out, W, H)[0])
                    cached = [iou(still, truth), excess_flicker(still, truth), flicker_over_truth(still, truth),
                              compensated_flicker(still, truth, motion)]
                    if args.still_cache:
                        cache.parent.mkdir(parents=True, exist_ok=True)
                        cache.write_text(json.dumps(cached))
                row = {"name": name, "still": tuple(cached)}
                for interval in intervals:
                    mask = d / f"anim{interval}.png"
                    start = time.monotonic()
                    r = worker.call("image.animatedSticker", {
                        "source": {"path": str(d / "clip.mp4")}, "size": W, "keyFrameInterval": interval,
                        "output": {"path": str(d / "a.webm"), "overwrite": True},
                        "maskOutput": {"path": str(mask), "overwrite": True}})
                    wall = time.monotonic() - start
                    masks = gray_frames(mask, W, H)
                    row[interval] = (iou(masks, truth), excess_flicker(masks, truth), r["keyFrames"], wall,
                                     flicker_over_truth(masks, truth), compensated_flicker(masks, truth, motion))
                rows.append(row)
                if args.verbose:
                    print(f"  {half} {name}: still IoU {row['still'][0]:.3f} over {row['still'][2]:.4f} unlike "
                          f"{row['still'][1]:.4f}; " + "; ".join(f"{iv} s: IoU {row[iv][0]:.3f} over {row[iv][4]:.4f} "
                                                                 f"unlike {row[iv][1]:.4f}" for iv in intervals), flush=True)
            s_iou = np.mean([r["still"][0] for r in rows]); s_fl = np.mean([r["still"][1] for r in rows])
            s_ov = np.mean([r["still"][2] for r in rows]); s_mc = np.mean([r["still"][3] for r in rows])
            print(f"{half} ({len(rows)} {'steady' if args.steady else 'moving, noisy' if args.noisy else 'moving'} clips): still stickers per frame: IoU {s_iou:.3f}, change share over the "
                  f"truth's {s_ov:.4f}, changes unlike the truth's {s_fl:.4f}, after the subject's motion {s_mc:.4f}")
            for interval in intervals:
                a_iou = np.mean([r[interval][0] for r in rows]); a_fl = np.mean([r[interval][1] for r in rows])
                a_ov = np.mean([r[interval][4] for r in rows]); a_mc = np.mean([r[interval][5] for r in rows])
                print(f"  keyFrameInterval {interval}: IoU {a_iou:.3f} ({a_iou - s_iou:+.3f}), change share over the "
                      f"truth's {a_ov:.4f} ({a_ov / max(s_ov, 1e-9):.2f}x), changes unlike the truth's {a_fl:.4f} "
                      f"({a_fl / max(s_fl, 1e-9):.2f}x), after the subject's motion {a_mc:.4f} "
                      f"({a_mc / max(s_mc, 1e-9):.2f}x), key frames {np.mean([r[interval][2] for r in rows]):.0f}, "
                      f"{np.mean([r[interval][3] for r in rows]):.2f} s a clip", flush=True)
    worker.close()


if __name__ == "__main__":
    main()
