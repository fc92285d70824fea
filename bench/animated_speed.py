#!/usr/bin/env python3
"""Issue #44's speed and memory goals through the worker, beside a rembg-style pipeline in the same run.

  bash bench/setup.sh            # onnxruntime and the U²-Netp model in .build/bench-venv (and Debian's ffmpeg)
  swift build -c release --product photoworker
  .build/bench-venv/bin/python3 bench/animated_speed.py [--bin .build/release/photoworker] [--rounds 3] [--4k]

Speed: a 3 s 1080p 30 fps H.264 clip (corpus/photos/animal-1.jpg panned, made here with ffmpeg) to a Telegram
sticker: `image.animatedSticker` with `"target": "telegram"`, wall time from the request to the reply and the
worker's peak RSS, alternating with the peer: ffmpeg decodes the frames at 512 px, onnxruntime's U²-Netp (two
threads, rembg's pre- and post-processing) masks every frame, ffmpeg encodes VP9 with alpha at the worker's first
setting (crf 23, cpu-used 4, row-mt, yuva420p). Goals: at most 2x real time (6 s), at least 2x faster than the peer.

--4k: a 10 s 4K (3840x2160) HEVC clip, 30 fps (made here with libx265, ultrafast), to a Telegram sticker (its first
3 s, Telegram's longest): the worker's peak RSS. Goal: at most 300 MiB.

--4k --cancel N: the same 4K clip to a Telegram sticker cancelled N times, each after a delay drawn evenly over the
job's length (measured first), so every stage is hit: decoding and scaling 4K frames, the key frames' cuts, the
frames carried between them, the encoder. Prints the time from writing `$/cancelRequest` to reading -32800 (p50,
p90, max), files left in the output folder and the worker's threads before and after. Goal: within 100 ms.
"""
import argparse, json, os, pathlib, subprocess, sys, tempfile, time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))


def ff(*args):
    subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-y", *args], check=True)


def worker(binary, clip, out):
    """Wall seconds, peak RSS in MiB and the result of one Telegram sticker, in a fresh worker."""
    params = {"source": {"path": clip}, "output": {"path": out, "overwrite": True}, "target": "telegram"}
    proc = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True)
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "image.info",
                                 "params": {"source": {"path": clip}}}) + "\n")
    proc.stdin.flush()
    json.loads(proc.stdout.readline())  # started and the model's file opened: not counted
    start = time.monotonic()
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "image.animatedSticker", "params": params}) + "\n")
    proc.stdin.flush()
    while True:
        m = json.loads(proc.stdout.readline())
        if m.get("id") == 1 and "method" not in m:
            break
    wall = time.monotonic() - start
    # The worker's own high-water mark (a forked child's ru_maxrss counts this Python process's pages before exec).
    status = open(f"/proc/{proc.pid}/status").read()
    peak = int(next(l for l in status.splitlines() if l.startswith("VmHWM")).split()[1]) / 1024
    proc.stdin.close()
    proc.wait()
    if "error" in m:
        raise SystemExit(f"worker: {m['error']}")
    return wall, peak, m["result"]


def peer(clip, out, session):
    """The rembg-style pipeline: wall seconds."""
    from PIL import Image
    mean, std = np.array((0.485, 0.456, 0.406), np.float32), np.array((0.229, 0.224, 0.225), np.float32)
    start = time.monotonic()
    probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height",
                            "-of", "csv=p=0", clip], check=True, capture_output=True, text=True).stdout.strip()
    w, h = map(int, probe.split(","))
    tw, th = (512, round(512 * h / w / 2) * 2) if w >= h else (round(512 * w / h / 2) * 2, 512)
    decode = subprocess.Popen(["ffmpeg", "-v", "error", "-i", clip, "-t", "3", "-vf", f"scale={tw}:{th}",
                               "-f", "rawvideo", "-pix_fmt", "rgb24", "-"], stdout=subprocess.PIPE)
    encode = subprocess.Popen(["ffmpeg", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgba", "-s", f"{tw}x{th}",
                               "-r", "30", "-i", "-", "-pix_fmt", "yuva420p", "-c:v", "libvpx-vp9", "-crf", "23",
                               "-b:v", "0", "-deadline", "good", "-cpu-used", "4", "-row-mt", "1", "-an", out],
                              stdin=subprocess.PIPE)
    size = tw * th * 3
    frames = 0
    while True:
        raw = decode.stdout.read(size)
        if len(raw) < size:
            break
        img = Image.frombytes("RGB", (tw, th), raw)
        x = np.asarray(img.resize((320, 320), Image.LANCZOS), dtype=np.float32)
        x = ((x / max(1.0, float(x.max())) - mean) / std).transpose(2, 0, 1)[None].astype(np.float32)
        m = session.run(["1959"], {"input.1": x})[0][0, 0]
        mask = Image.fromarray((np.clip(m, 0, 1) * 255).astype(np.uint8)).resize((tw, th), Image.LANCZOS)
        rgba = img.convert("RGBA")
        rgba.putalpha(mask)
        encode.stdin.write(rgba.tobytes())
        frames += 1
    encode.stdin.close()
    decode.wait()
    encode.wait()
    return time.monotonic() - start, frames


def cancel_midway(binary, clip, count, tmp):
    """`count` Telegram stickers of `clip`, each cancelled after a delay spread over the job's length."""
    out = os.path.join(tmp, "cancelled")
    os.mkdir(out)
    proc = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True)

    def send(message):
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
        proc.stdin.flush()

    def reply(id):
        while True:
            m = json.loads(proc.stdout.readline())
            if m.get("id") == id and "method" not in m:
                return m

    def threads():
        return len(os.listdir(f"/proc/{proc.pid}/task"))

    send({"id": 0, "method": "image.info", "params": {"source": {"path": clip}}})
    reply(0)
    before = threads()
    start = time.monotonic()
    send({"id": 1, "method": "image.animatedSticker",
          "params": {"source": {"path": clip}, "output": {"path": os.path.join(tmp, "whole.webm")}, "target": "telegram"}})
    reply(1)
    length = time.monotonic() - start
    latencies, finished = [], 0
    for i in range(count):
        id = 10 + i
        send({"id": id, "method": "image.animatedSticker", "params": {
            "source": {"path": clip}, "output": {"path": os.path.join(out, f"c{i}.webm")}, "target": "telegram"}})
        time.sleep(length * (i + 0.5) / count)
        sent = time.monotonic()
        send({"method": "$/cancelRequest", "params": {"id": id}})
        m = reply(id)
        if m.get("error", {}).get("code") == -32800:
            latencies.append((time.monotonic() - sent) * 1000)
        else:
            finished += 1
    after = threads()
    proc.stdin.close()
    proc.wait()
    lat = np.array(latencies)
    print(f"4K HEVC -> telegram, {length:.2f} s a job, {len(lat)} cancelled ({finished} finished first): "
          f"p50 {np.percentile(lat, 50):.1f} ms, p90 {np.percentile(lat, 90):.1f} ms, max {lat.max():.1f} ms; "
          f"files left {sorted(os.listdir(out))}; threads {before} before, {after} after")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=str(ROOT / ".build/release/photoworker"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--4k", dest="four_k", action="store_true")
    ap.add_argument("--cancel", type=int, default=0, help="with --4k: cancel the job this many times")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if args.four_k:
            clip = os.path.join(tmp, "pan4k.mov")
            ff("-loop", "1", "-i", str(ROOT / "corpus/photos/animal-1.jpg"), "-vf",
               "scale=4800:-2,crop=3840:2160:x='t*60':y=0,format=yuv420p", "-t", "10", "-r", "30", "-c:v", "libx265",
               "-preset", "ultrafast", "-x265-params", "log-level=error", "-crf", "28", "-tag:v", "hvc1", clip)
            if args.cancel:
                cancel_midway(args.bin, clip, args.cancel, tmp)
                return
            for _ in range(args.rounds):
                wall, rss, r = worker(args.bin, clip, os.path.join(tmp, "t.webm"))
                print(f"4K HEVC 10 s -> telegram: {wall:.2f} s, peak RSS {rss:.0f} MiB, {r['frames']} frames, "
                      f"{r['keyFrames']} key frames, {r['output']['bytes']} bytes", flush=True)
            return
        import onnxruntime as ort
        from u2net_peers import model_bytes
        clip = os.path.join(tmp, "pan1080.mp4")
        ff("-loop", "1", "-i", str(ROOT / "corpus/photos/animal-1.jpg"), "-vf",
           "scale=2400:-2,crop=1920:1080:x='t*100':y=0", "-t", "3", "-r", "30", "-pix_fmt", "yuv420p",
           "-c:v", "libx264", "-crf", "20", clip)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads, opts.inter_op_num_threads = 2, 1
        session = ort.InferenceSession(model_bytes(), opts, providers=["CPUExecutionProvider"])
        ours, theirs = [], []
        for _ in range(args.rounds):
            wall, rss, r = worker(args.bin, clip, os.path.join(tmp, "t.webm"))
            ours.append(wall)
            print(f"worker: {wall:.2f} s, peak RSS {rss:.0f} MiB, {r['frames']} frames, {r['keyFrames']} key frames, "
                  f"{r['target']['encoding']}", flush=True)
            wall, frames = peer(clip, os.path.join(tmp, "p.webm"), session)
            theirs.append(wall)
            print(f"peer:   {wall:.2f} s, {frames} frames, {os.path.getsize(os.path.join(tmp, 'p.webm'))} bytes",
                  flush=True)
        print(f"median: worker {np.median(ours):.2f} s, peer {np.median(theirs):.2f} s: "
              f"{np.median(theirs) / np.median(ours):.2f}x faster")


if __name__ == "__main__":
    main()
