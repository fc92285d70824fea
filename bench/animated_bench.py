#!/usr/bin/env python3
"""image.animatedSticker through the worker: mask quality and flicker of key-frame masks against per-frame cuts.

  python3 bench/animated_bench.py [--bin .build/debug/photoworker] [--source corpus/motion/cutout.webm]

For each keyFrameInterval (0 = the network on every frame, as per-frame still stickers would be), the worker writes
the masks of every frame (maskOutput, APNG at the clip's own size); ffmpeg decodes them; they are scored against
corpus/motion/cutout-masks (the true masks): mean per-frame IoU; flicker = mean share of subject pixels that change
side between consecutive frames; and the changes unlike the true masks' (pixels whose change between two frames
differs from the truth's, as a share of the subject pixels of either). Also the wall time of each run, and the
cancel latency (cancel written -> -32800 read) of a Telegram sticker at 512 px cancelled after its 1st..6th frame.
Prints one line per run.
"""
import argparse, json, os, pathlib, subprocess, tempfile, time
import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]


def frames(path, w, h):
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", str(path), "-vsync", "passthrough", "-f", "rawvideo",
                          "-pix_fmt", "gray", "-"], check=True, capture_output=True).stdout
    return np.frombuffer(raw, np.uint8).reshape(-1, h, w) >= 128


def flicker(masks):
    shares = []
    for a, b in zip(masks, masks[1:]):
        inside = np.logical_or(a, b).sum()
        shares.append(np.logical_xor(a, b).sum() / inside if inside else 0)
    return float(np.mean(shares))


def excess_flicker(masks, truth):
    """The pixels whose change between consecutive frames differs from the true masks' change, as a share of the
    subject pixels of either frame: flicker the subject's own motion does not explain."""
    shares = []
    for (a, b), (ta, tb) in zip(zip(masks, masks[1:]), zip(truth, truth[1:])):
        inside = np.logical_or.reduce([a, b, ta, tb]).sum()
        wrong = np.logical_xor(np.logical_xor(a, b), np.logical_xor(ta, tb)).sum()
        shares.append(wrong / inside if inside else 0)
    return float(np.mean(shares))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=str(ROOT / ".build/debug/photoworker"))
    ap.add_argument("--source", default=str(ROOT / "corpus/motion/cutout.webm"))
    args = ap.parse_args()
    truth = np.stack([frames(p, 96, 64)[0] for p in sorted((ROOT / "corpus/motion/cutout-masks").glob("*.png"))])
    true_flicker = flicker(truth)
    print(f"true masks: {len(truth)} frames, their own flicker {true_flicker:.4f}")
    with tempfile.TemporaryDirectory() as tmp:
        for interval in [0, 0.1667, 0.25, 0.5]:
            out, mask = os.path.join(tmp, "s.webm"), os.path.join(tmp, "m.png")
            params = {"source": {"path": args.source}, "output": {"path": out, "overwrite": True}, "size": 96,
                      "keyFrameInterval": interval, "maskOutput": {"path": mask, "overwrite": True}}
            for f in (out, mask):
                if os.path.exists(f): os.remove(f)
            start = time.monotonic()
            r = subprocess.run([args.bin, "call", "image.animatedSticker", json.dumps(params)], check=True,
                               capture_output=True, text=True)
            wall = time.monotonic() - start
            result = json.loads(r.stdout.strip().splitlines()[-1])
            masks = frames(mask, 96, 64)
            iou = np.mean([np.logical_and(m, t).sum() / max(1, np.logical_or(m, t).sum()) for m, t in zip(masks, truth)])
            f = flicker(masks)
            print(f"keyFrameInterval {interval}: {result['keyFrames']} key frames, IoU {iou:.3f}, flicker {f:.4f}, "
                  f"changes unlike the true masks' {excess_flicker(masks, truth):.4f}, {wall:.2f} s")


def steady_flicker(binary):
    """A still photo with fresh sensor-like noise in every frame (ffmpeg's noise filter), 2 s at 12 fps: its true
    mask never moves, so every change between consecutive masks is flicker."""
    with tempfile.TemporaryDirectory() as tmp:
        clip = os.path.join(tmp, "steady.mp4")
        subprocess.run(["ffmpeg", "-v", "error", "-loop", "1", "-i", str(ROOT / "corpus/photos/animal-1.jpg"), "-vf",
                        "scale=320:-2,noise=alls=14:allf=t+u", "-t", "2", "-r", "12", "-pix_fmt", "yuv420p",
                        "-c:v", "libx264", "-crf", "18", clip], check=True)
        for interval in [0, 0.25, 0.5]:
            mask = os.path.join(tmp, f"m{interval}.png")
            params = {"source": {"path": clip}, "output": {"path": os.path.join(tmp, f"s{interval}.webm")},
                      "keyFrameInterval": interval, "size": 320, "maskOutput": {"path": mask}}
            start = time.monotonic()
            r = subprocess.run([binary, "call", "image.animatedSticker", json.dumps(params)], check=True,
                               capture_output=True, text=True)
            wall = time.monotonic() - start
            result = json.loads(r.stdout.strip().splitlines()[-1])
            masks = frames(mask, result["mask"]["width"], result["mask"]["height"])
            print(f"steady clip, keyFrameInterval {interval}: {result['keyFrames']} key frames, flicker {flicker(masks):.4f}, "
                  f"{wall:.2f} s")


def speed_1080p(binary):
    """A 3 s 1080p 30 fps H.264 clip (a corpus photo panned) to a Telegram sticker: wall time and peak RSS."""
    with tempfile.TemporaryDirectory() as tmp:
        clip = os.path.join(tmp, "pan1080.mp4")
        subprocess.run(["ffmpeg", "-v", "error", "-loop", "1", "-i", str(ROOT / "corpus/photos/animal-1.jpg"), "-vf",
                        "scale=2400:-2,crop=1920:1080:x='t*100':y=0", "-t", "3", "-r", "30", "-pix_fmt", "yuv420p",
                        "-c:v", "libx264", "-crf", "20", clip], check=True)
        params = {"source": {"path": clip}, "output": {"path": os.path.join(tmp, "t.webm")}, "target": "telegram"}
        start = time.monotonic()
        proc = subprocess.Popen([binary, "call", "image.animatedSticker", json.dumps(params)],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        out = proc.stdout.read()
        _, status, usage = os.wait4(proc.pid, 0)  # the worker's own peak, not ffmpeg's
        wall = time.monotonic() - start
        assert status == 0, out
        peak = usage.ru_maxrss / 1024
        result = json.loads(out.strip().splitlines()[-1])
        print(f"1080p 3 s 30 fps -> telegram: {wall:.2f} s wall, {result['frames']} frames, {result['keyFrames']} key "
              f"frames, {result['output']['bytes']} bytes ({result['target']['encoding']}), peak RSS {peak:.0f} MiB")


def cancel_latency(binary, source, runs=6):
    """Cancels image.animatedSticker after its n-th progress message (n = 1..runs) and times the cancel written ->
    -32800 read; checks nothing was written."""
    import select
    latencies = []
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        for run in range(1, runs + 1):
            params = {"source": {"path": source}, "output": {"path": os.path.join(tmp, f"c{run}.webm")},
                      "size": 512, "keyFrameInterval": 0.25, "target": "telegram"}
            proc.stdin.write((json.dumps({"jsonrpc": "2.0", "id": run, "method": "image.animatedSticker",
                                          "params": params}) + "\n").encode())
            proc.stdin.flush()
            seen = 0
            while True:
                m = json.loads(proc.stdout.readline())
                if m.get("method") == "$/progress" and m["params"].get("id") == run:
                    seen += 1
                    if seen == run:
                        break
                elif m.get("id") == run:
                    raise SystemExit(f"run {run} finished before its cancel: {m}")
            start = time.monotonic()
            proc.stdin.write((json.dumps({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": run}}) + "\n").encode())
            proc.stdin.flush()
            while True:
                m = json.loads(proc.stdout.readline())
                if m.get("id") == run and "method" not in m:
                    latencies.append((time.monotonic() - start) * 1000)
                    assert m.get("error", {}).get("code") == -32800, m
                    break
        proc.stdin.close()
        proc.wait()
        left = os.listdir(tmp)
    print(f"cancel after progress 1..{runs}: " + ", ".join(f"{l:.1f}" for l in latencies)
          + f" ms (max {max(latencies):.1f}); files left: {left}")


if __name__ == "__main__":
    main()
    steady_flicker(str(ROOT / ".build/debug/photoworker"))
    speed_1080p(str(ROOT / ".build/debug/photoworker"))
    cancel_latency(str(ROOT / ".build/debug/photoworker"), str(ROOT / "corpus/motion/cutout.mp4"))
