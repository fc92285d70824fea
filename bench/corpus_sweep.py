#!/usr/bin/env python3
"""Drives one worker over every file under the given folders with image.info, image.thumbnail, image.palette and
image.sticker (classical), all in flight at once, and checks: exactly one reply per request, every error with a
code, a message and data, the worker alive at the end (a ping answered), and outputs that exist when a result names one.
Usage: python3 bench/corpus_sweep.py WORKER OUTDIR FOLDER...   (exit 1 on any problem)

An independent check, not a test: the folders are whatever set of images is at hand outside the repository (the
reference corpus kept beside the checkout, which the tests must not read), named on the command line."""
import json, os, subprocess, sys, time

if len(sys.argv) < 4 or sys.argv[1] in ("-h", "--help"):
    sys.exit(__doc__)
worker, outdir, folders = sys.argv[1], sys.argv[2], sys.argv[3:]
os.makedirs(outdir, exist_ok=True)
files = sorted(os.path.join(d, f) for folder in folders for d, _, fs in os.walk(folder) for f in fs)
p = subprocess.Popen([worker], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
reqs = {}
n = 0
def send(method, params):
    global n
    n += 1
    reqs[n] = (method, params)
    p.stdin.write((json.dumps({"jsonrpc": "2.0", "id": n, "method": method, "params": params}) + "\n").encode())
for i, f in enumerate(files):
    send("image.info", {"source": {"path": f}})
    send("image.thumbnail", {"source": {"path": f}, "size": 128, "output": {"path": f"{outdir}/t{i}.png"}})
    send("image.palette", {"source": {"path": f}, "count": 5})
    send("image.sticker", {"source": {"path": f}, "segmenter": "classical", "output": {"path": f"{outdir}/s{i}.png"}})
send("ping", {})
p.stdin.flush()
replies = {}
errors = {}
problems = []
t0 = time.time()
while len(replies) < n:
    line = p.stdout.readline()
    if not line:
        problems.append(f"stdout ended after {len(replies)} of {n} replies, exit {p.wait()}")
        break
    m = json.loads(line)
    if "id" not in m:
        continue
    i = m["id"]
    if i in replies:
        problems.append(f"second reply for {i}")
    replies[i] = m
    if "error" in m:
        e = m["error"]
        if not isinstance(e.get("code"), int) or not e.get("message") or "data" not in e:
            problems.append(f"thin error for {reqs[i]}: {e}")
        errors.setdefault((reqs[i][0], e["code"], e["message"]), []).append(os.path.basename(reqs[i][1].get("source", {}).get("path", "")))
    else:
        out = (reqs[i][1].get("output") or {}).get("path")
        if out and not os.path.exists(out):
            problems.append(f"{reqs[i]} answered without its output")
p.stdin.close()
rc = p.wait(timeout=60)
print(f"{len(files)} files, {n} requests, {len(replies)} replies in {time.time()-t0:.1f} s, exit {rc}")
for k, v in sorted(errors.items(), key=lambda kv: str(kv[0])):
    print(f"  {k[0]} {k[1]} {k[2]!r}: {len(v)}  e.g. {v[:4]}")
for pr in problems:
    print("PROBLEM", pr)
err = p.stderr.read().decode(errors="replace")
crashes = [l for l in err.splitlines() if "Fatal" in l or "fatal" in l or "crash" in l.lower()]
print("stderr crash lines:", crashes[:5])
sys.exit(1 if problems or crashes or rc != 0 else 0)
