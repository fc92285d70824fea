#!/usr/bin/env python3
"""Animated stickers against per-frame still stickers on dev clips of every kind of motion (issue 64), each frame's
true mask known, on both halves of sticker-dev.

  .build/bench-venv/bin/python3 bench/animated_motion.py [--bin .build/release/photoworker] [--per-half 3]
      [--kinds still,pushin,pullout,roll,walk,wave,turn] [--halves tuning,held-out] [--formats mp4,gif,webp]
      [--intervals 0.5] [--target whatsapp|telegram|signal] [--frames N] [--source-stills] [--json FILE] [-v]

The clips are bench/make_motion_clips.py's (made there, or taken from its cache in bench/out/motion-clips): 480x320,
30 fps, 2 s; still, push-in, pull-out, roll, hand-held walk, a waving part, a turn. Per clip, through one worker:
  - still: image.sticker on every decoded frame of the MP4 (maskOutput), as per-frame still stickers would be. Their
    masks are cached beside the clip, keyed by the binary's sha256 (still-SHA.npz), so runs that compare animated
    settings of one binary, or another binary's animated code against them, cost only the animated calls;
    With --source-stills, a GIF's or WebP's animated sticker is compared with the stills of that file's own frames
    (its palette and dither, its lossy coding), cached per format;
  - animated: image.animatedSticker on the clip (each of --formats) with "size" 480 (the clip's long side: the
    masks are at the frame's size) at each --intervals keyFrameInterval, maskOutput as APNG, decoded with ffmpeg;
    the mask shown at each source frame's time is scored (the same frame when all 60 come back).
Scores per clip: mean per-frame IoU against the true masks; flicker beyond the truth's own change
(animated_quality.py's flicker_over_truth: the change share of consecutive masks over the true masks' own, pair by
pair, never below 0), and animated over still; the stricter excess_flicker (animated_bench.py) in the JSON. With
--target the output sticker is decoded (WebM VP9 with alpha through libvpx-vp9, WebP and APNG through Pillow) and
its subject fill measured per frame: the long side of the alpha (>= 128) bounding box over the canvas's long side,
mean and minimum. --frames N scores the first N frames only (the still pass runs on those; the animated call still
cuts the whole clip), for a quicker run. Prints a table per kind and half and the goal per kind: animated IoU >=
still IoU (on the still kind equal within 0.005) and animated flicker <= 0.33x the still stickers'.
"""
import argparse, hashlib, json, pathlib, subprocess, tempfile, time
import numpy as np
from PIL import Image, ImageSequence

import make_motion_clips as mc
from animated_bench import excess_flicker
from animated_quality import Worker, flicker_over_truth, gray_frames, iou

ROOT = pathlib.Path(__file__).resolve().parents[1]
TARGET_FORMAT = {"telegram": "webm", "whatsapp": "webp", "signal": "apng"}
IOU_STILL_TOLERANCE, FLICKER_RATIO_GOAL = 0.005, 0.33


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def try_call(worker, method, params):
    """The result, or None and the error's text (the worker's error, not a crash of this script)."""
    try:
        return worker.call(method, params), None
    except SystemExit as e:
        return None, str(e)


def mask_png(path):
    return np.asarray(Image.open(path).convert("L")) >= 128


def still_masks(worker, clip, n, binary_sha, tmp, fmt=None):
    """The still stickers' masks of the clip's first n frames and the seconds a frame took, from the cache beside
    the clip (keyed by the binary's sha256) or made and added to it. With `fmt` (gif, webp), of that file's own frames
    (a GIF's palette and dither, a WebP's lossy coding): the stills an animated sticker from that file is fairly
    compared with, cached per format."""
    cache = clip.dir / (f"still-{fmt}-{binary_sha[:16]}.npz" if fmt else f"still-{binary_sha[:16]}.npz")
    masks, seconds = np.zeros((0, mc.H, mc.W), bool), 0.0
    if cache.exists():
        z = np.load(cache)
        masks, seconds = np.unpackbits(z["bits"], axis=-1, count=mc.W).astype(bool), float(z["seconds"])
    if len(masks) < n:
        start, new = time.monotonic(), []
        for k in range(len(masks), n):
            if fmt:
                with Image.open(clip.path(fmt)) as im:
                    im.seek(k)
                    im.convert("RGBA").save(tmp / "f.png")
            source = tmp / "f.png" if fmt else clip.frame(k)
            _, error = try_call(worker, "image.sticker", {
                "source": {"path": str(source)}, "output": {"path": str(tmp / "s.png"), "overwrite": True},
                "maskOutput": {"path": str(tmp / "m.png"), "overwrite": True}})
            new.append(np.zeros((mc.H, mc.W), bool) if error else mask_png(tmp / "m.png"))
        masks, seconds = np.concatenate([masks, np.stack(new)]), seconds + time.monotonic() - start
        np.savez(cache, bits=np.packbits(masks, axis=-1), seconds=seconds)
    return masks[:n], seconds / len(masks)


def frame_times(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "frame=pts_time", "-of", "csv=p=0", str(path)],
                         check=True, capture_output=True, text=True).stdout
    return [float(x) for x in out.split()]


def aligned(masks, path, n):
    """The mask shown at each of the first n source frames' times: the masks themselves when every frame came
    back, else the last mask whose time is at most the frame's (a sticker fitted to fewer frames per second)."""
    if len(masks) == mc.FRAMES:
        return masks[:n]
    times = np.array(frame_times(path))
    shown = [max(0, int(np.searchsorted(times, k / mc.FPS + 1e-4, side="right")) - 1) for k in range(n)]
    return masks[np.minimum(shown, len(masks) - 1)]


def sticker_frames(path, fmt, width, height):
    """The output sticker's frames as RGBA arrays (WebM's alpha through the libvpx-vp9 decoder)."""
    if fmt == "webm":
        raw = subprocess.run(["ffmpeg", "-v", "error", "-c:v", "libvpx-vp9", "-i", str(path), "-vsync", "passthrough",
                              "-f", "rawvideo", "-pix_fmt", "rgba", "-"], check=True, capture_output=True).stdout
        return np.frombuffer(raw, np.uint8).reshape(-1, height, width, 4)
    with Image.open(path) as im:
        return np.stack([np.asarray(f.convert("RGBA")) for f in ImageSequence.Iterator(im)])


def fill(frames):
    """Per frame, the alpha (>= 128) bounding box's long side over the canvas's long side: (mean, minimum)."""
    shares = []
    for f in frames:
        ys, xs = np.nonzero(f[..., 3] >= 128)
        box = max(xs.max() - xs.min() + 1, ys.max() - ys.min() + 1) if len(xs) else 0
        shares.append(box / max(f.shape[:2]))
    return float(np.mean(shares)), float(np.min(shares))


def animated(worker, clip, fmt, interval, target, truth, tmp):
    """image.animatedSticker on the clip's `fmt` file: its scores against the truth (None and the error if the
    worker refused it)."""
    out_fmt = TARGET_FORMAT.get(target, "webm")
    out, mask = tmp / f"a.{out_fmt}", tmp / "am.png"
    params = {"source": {"path": str(clip.path(fmt))}, "size": mc.W, "keyFrameInterval": interval,
              "output": {"path": str(out), "overwrite": True}, "maskOutput": {"path": str(mask), "overwrite": True}}
    if target:
        params["target"] = target
    start = time.monotonic()
    r, error = try_call(worker, "image.animatedSticker", params)
    wall = time.monotonic() - start
    if error:
        return {"error": error, "seconds": wall}
    raw = gray_frames(mask, mc.W, mc.H)
    masks = aligned(raw, mask, len(truth))
    row = {"iou": iou(masks, truth), "flicker": flicker_over_truth(masks, truth),
           "excess": excess_flicker(masks, truth), "keyFrames": r["keyFrames"], "seconds": wall,
           "maskFrames": len(raw)}
    if target:
        row["fillMean"], row["fillMin"] = fill(sticker_frames(out, out_fmt, r["output"]["width"],
                                                              r["output"]["height"]))
        row["encoding"] = r["target"]["encoding"]
    return row


def score_clip(worker, clip, args, binary_sha, tmp, still_worker=None):
    truth = clip.truth()[:args.frames]
    still, per_frame = still_masks(still_worker or worker, clip, len(truth), binary_sha, tmp)
    row = {"kind": clip.kind, "half": clip.half, "name": clip.name,
           "still": {"iou": iou(still, truth), "flicker": flicker_over_truth(still, truth),
                     "excess": excess_flicker(still, truth), "secondsPerFrame": per_frame}, "animated": {}}
    for fmt in args.formats:
        if args.source_stills and fmt != "mp4":
            own, per = still_masks(still_worker or worker, clip, len(truth), binary_sha, tmp, fmt)
            own = own[:len(truth)]
            row.setdefault("stillOf", {})[fmt] = {
                "iou": iou(own, truth[:len(own)]), "flicker": flicker_over_truth(own, truth[:len(own)]),
                "excess": excess_flicker(own, truth[:len(own)]), "secondsPerFrame": per}
        for interval in args.intervals:
            row["animated"][f"{fmt} {interval}"] = animated(worker, clip, fmt, interval, args.target, truth, tmp)
    return row


def ratio(a, b):
    return a / b if b > 0 else (0.0 if a == 0 else float("inf"))


def verdict(kind, s_iou, a_iou, s_fl, a_fl):
    iou_ok = abs(a_iou - s_iou) <= IOU_STILL_TOLERANCE if kind == "still" else a_iou >= s_iou
    return iou_ok, ratio(a_fl, s_fl) <= FLICKER_RATIO_GOAL


def summarize(rows, kind, half, setting):
    """Means over the clips of one kind (and half, None for both) at one animated setting."""
    chosen = [r for r in rows if r["kind"] == kind and half in (None, r["half"])]
    fmt = setting.split()[0]
    # With --source-stills, a GIF's or WebP's animated sticker against the stills of that file's own frames.
    chosen = [dict(r, still=r.get("stillOf", {}).get(fmt, r["still"])) for r in chosen]
    good = [r for r in chosen if "error" not in r["animated"][setting]]
    mean = lambda f: float(np.mean([f(r) for r in good])) if good else float("nan")
    s = {"kind": kind, "half": half or "both", "setting": setting, "clips": len(chosen),
         "errors": len(chosen) - len(good),
         "stillIoU": mean(lambda r: r["still"]["iou"]), "animatedIoU": mean(lambda r: r["animated"][setting]["iou"]),
         "stillFlicker": mean(lambda r: r["still"]["flicker"]),
         "animatedFlicker": mean(lambda r: r["animated"][setting]["flicker"]),
         "stillSeconds": mean(lambda r: r["still"]["secondsPerFrame"] * mc.FRAMES),
         "animatedSeconds": mean(lambda r: r["animated"][setting]["seconds"])}
    if good and "fillMean" in good[0]["animated"][setting]:
        s["fillMean"] = mean(lambda r: r["animated"][setting]["fillMean"])
        s["fillMin"] = float(min(r["animated"][setting]["fillMin"] for r in good))
    s["flickerRatio"] = ratio(s["animatedFlicker"], s["stillFlicker"])
    s["iouGoal"], s["flickerGoal"] = verdict(kind, s["stillIoU"], s["animatedIoU"], s["stillFlicker"],
                                             s["animatedFlicker"])
    return s


def table(summaries, target):
    head = ("| kind | half | clips | still IoU | animated IoU (delta) | still flicker | animated flicker (ratio) | "
            "animated s/clip | still s/clip |" + (" fill mean / min |" if target else "") + " goal |")
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for s in summaries:
        goal = ("IoU ok" if s["iouGoal"] else "IoU NO") + ", " + ("flicker ok" if s["flickerGoal"] else "flicker NO")
        failed = f" ({s['errors']} failed)" if s["errors"] else ""
        print(f"| {s['kind']} | {s['half']} | {s['clips']}{failed} "
              f"| {s['stillIoU']:.3f} | {s['animatedIoU']:.3f} ({s['animatedIoU'] - s['stillIoU']:+.3f}) "
              f"| {s['stillFlicker']:.4f} | {s['animatedFlicker']:.4f} ({s['flickerRatio']:.2f}x) "
              f"| {s['animatedSeconds']:.1f} | {s['stillSeconds']:.1f} |"
              + (f" {s.get('fillMean', float('nan')):.3f} / {s.get('fillMin', float('nan')):.3f} |" if target else "")
              + f" {goal} |")


def print_clip(row):
    s = row["still"]
    parts = [f"{setting}: " + (a["error"] if "error" in a else
                               f"IoU {a['iou']:.3f} flicker {a['flicker']:.4f} key frames {a['keyFrames']} "
                               f"{a['seconds']:.1f} s" + (f" fill {a['fillMean']:.3f}/{a['fillMin']:.3f}"
                                                         if "fillMean" in a else ""))
             for setting, a in row["animated"].items()]
    print(f"  {row['kind']} {row['half']} {row['name']}: still IoU {s['iou']:.3f} flicker {s['flicker']:.4f}; "
          + "; ".join(parts), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=str(ROOT / ".build/release/photoworker"))
    ap.add_argument("--per-half", type=int, default=3)
    ap.add_argument("--kinds", default=",".join(mc.KINDS))
    ap.add_argument("--halves", default="tuning,held-out")
    ap.add_argument("--formats", default="mp4", help="the animated call's sources: mp4, gif, webp (comma-separated)")
    ap.add_argument("--intervals", default="0.5", help="keyFrameInterval values (comma-separated)")
    ap.add_argument("--target", choices=sorted(TARGET_FORMAT), help="fit a messenger and measure the subject fill")
    ap.add_argument("--frames", type=int, default=mc.FRAMES, help="score the first N frames only (quicker)")
    ap.add_argument("--clips-dir", default=str(mc.OUT))
    ap.add_argument("--still-bin", help="the worker whose image.sticker makes the still stickers (default --bin): "
                    "a change to the animated code only is compared against the still stickers already cached")
    ap.add_argument("--source-stills", action="store_true",
                    help="compare a GIF's or WebP's animated sticker with the stills of that file's own frames "
                    "(by default, with the MP4's)")
    ap.add_argument("--json", help="write every clip's scores and the summaries here")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    args.formats, args.intervals = args.formats.split(","), [float(x) for x in args.intervals.split(",")]
    kinds, halves = args.kinds.split(","), args.halves.split(",")
    started = time.monotonic()
    clips = mc.clips(kinds, halves, args.per_half, args.formats, args.clips_dir)
    print(f"{len(clips)} clips ready in {time.monotonic() - started:.0f} s; scoring {args.frames} frames of each",
          flush=True)
    binary_sha = sha256(args.still_bin or args.bin)
    worker, rows = Worker(args.bin), []
    still_worker = Worker(args.still_bin) if args.still_bin else worker
    with tempfile.TemporaryDirectory() as tmp:
        # The network loaded before anything is timed.
        try_call(worker, "image.sticker", {"source": {"path": str(clips[0].frame(0))},
                                           "output": {"path": str(pathlib.Path(tmp) / "s.png")}})
        for clip in clips:
            rows.append(score_clip(worker, clip, args, binary_sha, pathlib.Path(tmp), still_worker))
            if args.verbose:
                print_clip(rows[-1])
    worker.close()
    if still_worker is not worker:
        still_worker.close()
    settings = list(rows[0]["animated"])
    summaries = {}
    for setting in settings:
        print(f"\n{setting} (source format, keyFrameInterval){', target ' + args.target if args.target else ''}:")
        per_half = [summarize(rows, k, h, setting) for k in kinds for h in halves]
        pooled = [summarize(rows, k, None, setting) for k in kinds]
        table(per_half, args.target)
        print("goal per kind (both halves): " + "; ".join(
            f"{s['kind']} {'MET' if s['iouGoal'] and s['flickerGoal'] else 'not met'} "
            f"(IoU {s['animatedIoU'] - s['stillIoU']:+.3f}, flicker {s['flickerRatio']:.2f}x)" for s in pooled))
        summaries[setting] = {"perHalf": per_half, "perKind": pooled}
    elapsed = time.monotonic() - started
    print(f"\n{len(rows)} clips in {elapsed:.0f} s ({elapsed / len(rows):.1f} s a clip)")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(
            {"binary": args.bin, "binarySha256": binary_sha, "args": {k: v for k, v in vars(args).items()},
             "seconds": elapsed, "clips": rows, "summaries": summaries}, indent=1))


if __name__ == "__main__":
    main()
