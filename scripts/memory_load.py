"""The memory-limit test's and benchmark's shared parts (issue 63): a worker over pipes, the inputs made from the
corpus, the mixed load, and a cgroup (v1 or v2) with a memory limit to run the worker in.

Inputs (made once into the given folder, from corpus/ with the worker itself and Debian's ffmpeg):
  large-N.jpg   6000x4000 (24 MP) JPEGs: corpus photos scaled up by ffmpeg
  clip-4k.mp4   3840x2160, 10 s, 24 fps H.264 (ultrafast): a pan across a corpus photo scaled to 7680 wide
  large-0.{png,webp,heic,avif}  large-0.jpg in the other formats (ffmpeg, libheif's heif-enc), for the benchmark
  photos        corpus/photos/*.jpg, formats: a few of corpus/formats (HEIC, AVIF, WebP, PNG, GIF)
"""
import json, os, pathlib, select, shutil, signal, subprocess, tempfile, time

ROOT = pathlib.Path(__file__).resolve().parents[1]


class Worker:
    """A worker over pipes, NDJSON; replies are read as they come and kept by id."""

    def __init__(self, binary, *args, preexec_fn=None, stderr=subprocess.DEVNULL):
        self.p = subprocess.Popen([binary, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                                  bufsize=0, preexec_fn=preexec_fn)
        self.pid = self.p.pid
        self.next_id = 0
        self.buffer = b""
        self.replies = {}
        self.notifications = []

    def send(self, method, params=None):
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            msg["params"] = params
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        return self.next_id

    def notify(self, method, params):
        self.p.stdin.write((json.dumps({"jsonrpc": "2.0", "method": method, "params": params}) + "\n").encode())

    def _read(self, timeout):
        """Reads what stdout has within `timeout` s; False at end of file."""
        r, _, _ = select.select([self.p.stdout], [], [], timeout)
        if not r:
            return True
        chunk = os.read(self.p.stdout.fileno(), 1 << 20)
        if not chunk:
            return False
        self.buffer += chunk
        *lines, self.buffer = self.buffer.split(b"\n")
        for line in lines:
            if not line.strip():
                continue
            m = json.loads(line)
            if "id" in m and ("result" in m or "error" in m):
                self.replies[m["id"]] = m
            else:
                self.notifications.append(m)
        return True

    def poll(self, rid, timeout=0.0):
        """The reply to `rid` if it came within `timeout` s, else None."""
        deadline = time.monotonic() + timeout
        while rid not in self.replies:
            left = deadline - time.monotonic()
            if left <= 0 or not self._read(left):
                break
        return self.replies.pop(rid, None)

    def wait(self, rid, timeout=600):
        reply = self.poll(rid, timeout)
        if reply is None:
            raise TimeoutError(f"no reply to {rid} in {timeout} s (worker exit code {self.p.poll()})")
        return reply

    def call(self, method, params=None, timeout=60):
        reply = self.wait(self.send(method, params), timeout)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply["result"]

    def close(self, timeout=60):
        try:
            self.p.stdin.close()
        except BrokenPipeError:
            pass
        try:
            return self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            return self.p.wait()


def make_inputs(work, quick=False, large_formats=False):
    """The load's inputs, made into `work` once (kept between runs); with `large_formats`, the 24 MP photo in the
    other formats too (the benchmark's)."""
    work = work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    seeds = ["girl-1.jpg", "animal-1.jpg", "car-1.jpg", "anime-girl-1.jpg"]
    large = [work / f"large-{i}.jpg" for i in range(len(seeds))]
    for seed, path in zip(seeds, large):
        if not path.exists():
            subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", str(ROOT / "corpus/photos" / seed),
                            "-vf", "scale=6000:4000,format=yuvj420p", "-q:v", "3", str(path)], check=True)
    clip = work / "clip-4k.mp4"
    if not clip.exists():
        tmp = work / "clip-4k.tmp.mp4"
        subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-loop", "1", "-framerate", "24",
                        "-i", str(ROOT / "corpus/photos/girl-2.jpg"), "-t", "10",
                        "-vf", "scale=7680:4320,crop=3840:2160:x='t*300':y='t*150',format=yuv420p",
                        "-c:v", "libx264", "-preset", "ultrafast", "-crf", "28", str(tmp)], check=True)
        tmp.rename(clip)
    # The benchmark's 24 MP photo in the other still formats (each made from large-0.jpg, where the tool is there).
    other_formats = []
    for ext, command in [("png", ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", "{src}", "{dst}"]),
                         ("webp", ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", "{src}", "-quality", "80", "{dst}"]),
                         ("heic", ["heif-enc", "-q", "60", "-o", "{dst}", "{src}"]),
                         ("avif", ["heif-enc", "--avif", "-q", "60", "-o", "{dst}", "{src}"])]:
        dst = work / f"large-0.{ext}"
        if not large_formats:
            break
        if not dst.exists() and shutil.which(command[0]) and not quick:
            subprocess.run([a.format(src=large[0], dst=dst) for a in command], check=False,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if dst.exists():
            other_formats.append(str(dst))
    photos = sorted(str(p) for p in (ROOT / "corpus/photos").glob("*.jpg"))
    formats = [str(ROOT / "corpus/formats" / n) for n in
               ["girl.heic", "girl.avif", "girl-lossy.webp", "coffee-adobergb.png", "girl.gif", "coffee-10bit.heic"]]
    clips = [str(clip), str(ROOT / "corpus/motion/cutout.mp4"), str(ROOT / "corpus/motion/cutout.gif")]
    return {"photos": photos, "formats": formats, "large": [str(p) for p in large], "large_formats": other_formats,
            "clips": clips}


def heldout_inputs(work):
    """Sources the estimates were not fitted on (bench/memory_bench.py --set heldout): every third sticker-dev photo,
    the formats set's other files, 12 MP photos made from a corpus photo the tuning set does not use (JPEG, progressive
    JPEG, PNG, WebP, HEIC), and clips of other codecs and sizes."""
    work = work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    seed = str(ROOT / "corpus/photos/car-2.jpg")
    made = []
    for name, command in [
        ("mid.jpg", ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", seed, "-vf", "scale=4240:2832,format=yuvj420p", "-q:v", "3", "{dst}"]),
        ("mid-progressive.jpg", ["jpegtran", "-progressive", "-outfile", "{dst}", "{mid}"]),
        ("mid.png", ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", "{mid}", "{dst}"]),
        ("mid.webp", ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", "{mid}", "-quality", "80", "{dst}"]),
        ("mid.heic", ["heif-enc", "-q", "60", "-o", "{dst}", "{mid}"]),
    ]:
        dst = work / name
        if not dst.exists() and shutil.which(command[0]):
            subprocess.run([a.format(dst=dst, mid=work / "mid.jpg") for a in command], check=False,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if dst.exists():
            made.append(str(dst))
    clip = work / "clip-1080-hevc.mp4"
    if not clip.exists() and shutil.which("ffmpeg"):
        subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-loop", "1", "-framerate", "30", "-i", seed, "-t", "4",
                        "-vf", "scale=3840:2160,crop=1920:1080:x='t*200':y='t*100',format=yuv420p",
                        "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error", "-tag:v", "hvc1",
                        str(clip)], check=False)
    tuning = {"girl.heic", "girl.avif", "girl-lossy.webp", "coffee-adobergb.png", "girl.gif", "coffee-10bit.heic"}
    formats = sorted(str(p) for p in (ROOT / "corpus/formats").iterdir() if p.is_file() and p.name not in tuning)
    dev = sorted(str(p) for p in (ROOT / "corpus/sticker-dev/images").iterdir())[::3]
    clips = [str(ROOT / "corpus/motion" / n) for n in ["pan.mp4", "zoom-hevc-rot90.mov", "cutout.webp", "cutout.webm"]]
    if clip.exists():
        clips.append(str(clip))
    return {"photos": dev, "formats": formats, "large": made, "large_formats": [], "clips": clips}


def mixed_load(w, inputs, out, cancels=True):
    """Sends the issue's mix at once and waits for every answer: 8 stickers of 24 MP photos, the 4K clip to
    Telegram, a 20-photo photos.process, 20 thumbnails of 24 MP photos, and cancels of two stickers and a thumbnail.
    Returns (sent ids, replies by id)."""
    large = inputs["large"]
    ids = []
    for i in range(8):
        ids.append(w.send("image.sticker", {"source": {"path": large[i % len(large)]}, "outline": {"width": 8},
                                            "output": {"path": f"{out}/sticker-{i}.png", "overwrite": True}}))
    ids.append(w.send("image.animatedSticker", {"source": {"path": inputs["clips"][0]}, "target": "telegram",
                                                "output": {"path": f"{out}/clip.webm", "overwrite": True}}))
    ids.append(w.send("photos.process", {"sources": [{"path": p} for p in inputs["photos"][:20]],
                                         "output": {"dir": f"{out}/batch", "overwrite": True}}))
    for i in range(20):
        ids.append(w.send("image.thumbnail", {"source": {"path": large[i % len(large)]}, "size": 256,
                                              "output": {"path": f"{out}/thumb-{i}.jpg", "overwrite": True}}))
    if cancels:
        for rid in (ids[3], ids[7], ids[-1]):
            w.notify("$/cancelRequest", {"id": rid})
    replies = {}
    for rid in ids:
        try:
            replies[rid] = w.wait(rid, timeout=900)
        except (TimeoutError, OSError):
            break
    return ids, replies


def cgroup_root():
    """('v2', path) or ('v1', path) of a writable memory cgroup hierarchy, or None."""
    if os.path.exists("/sys/fs/cgroup/cgroup.controllers"):
        with open("/sys/fs/cgroup/cgroup.controllers") as f:
            if "memory" in f.read().split():
                return ("v2", "/sys/fs/cgroup")
    if os.path.isdir("/sys/fs/cgroup/memory"):
        return ("v1", "/sys/fs/cgroup/memory")
    return None


def parse_size(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(float(text[:-1]) * units[text[-1].upper()]) if text[-1].upper() in units else int(text)


def run_in_cgroup(binary, flags, limit, load):
    """Runs the worker with `flags` in a new cgroup limited to `limit` (e.g. 768M), drives it with
    `load(worker, out)`, and returns what happened: sent and answered counts, seconds, the worker's peak RSS, whether
    it was killed, and the cgroup's OOM kills."""
    kind, root = cgroup_root()
    group = pathlib.Path(root) / f"photoworker-memtest-{os.getpid()}-{time.monotonic_ns()}"
    group.mkdir()
    try:
        limit_bytes = parse_size(limit)
        if kind == "v2":
            (group / "memory.max").write_text(str(limit_bytes))
            (group / "memory.swap.max").write_text("0") if (group / "memory.swap.max").exists() else None
        else:
            (group / "memory.limit_in_bytes").write_text(str(limit_bytes))
            sw = group / "memory.memsw.limit_in_bytes"
            if sw.exists():
                try:
                    sw.write_text(str(limit_bytes))
                except OSError:
                    pass
        procs = str(group / "cgroup.procs")

        def enter():
            with open(procs, "w") as f:
                f.write(str(os.getpid()))

        with tempfile.TemporaryDirectory() as out:
            w = Worker(binary, *flags, preexec_fn=enter, stderr=subprocess.PIPE)
            stderr_chunks = []
            drain = __import__("threading").Thread(target=lambda: stderr_chunks.append(w.p.stderr.read()), daemon=True)
            drain.start()
            start = time.monotonic()
            peak = 0
            try:
                init = w.call("initialize", {}, timeout=60)
                ids, replies = load(w, out)
                try:
                    stats = w.call("worker.stats", timeout=30)
                    peak = stats["peakRSSBytes"]
                except (TimeoutError, RuntimeError, OSError):
                    stats = None
            except (TimeoutError, OSError, BrokenPipeError):
                init, ids, replies, stats = None, [], {}, None
            seconds = time.monotonic() - start
            code = w.close()
            drain.join(5)
        events = {}
        for name in ("memory.events", "memory.oom_control"):
            p = group / name
            if p.exists():
                for line in p.read_text().split("\n"):
                    if line.strip():
                        k, v = line.split()
                        events[k] = int(v)
        return {"sent": len(ids), "answered": len(replies), "replies": replies, "ids": ids, "seconds": seconds,
                "peak": peak, "killed": code == -signal.SIGKILL, "exit": code, "oom_kills": events.get("oom_kill", 0),
                "limits": init and init.get("limits"), "stats": stats, "stderr": b"".join(stderr_chunks).decode(errors="replace")}
    finally:
        for _ in range(50):
            try:
                group.rmdir()
                break
            except OSError:
                time.sleep(0.1)
