#!/usr/bin/env python3
"""Memory estimates against measured peaks, and mixed loads under a real memory limit (issue 63).

  python3 bench/memory_bench.py estimates [--bin .build/release/photoworker] [--quick] [--set tuning|heldout]
        [--json OUT] [--reuse-peaks EARLIER.json]
  python3 bench/memory_bench.py mixed [--bin ...] [--limit 768M] [--jobs 1,2,4,8]
  python3 bench/memory_bench.py report FILE.json...   # the tables bench/README.md shows

estimates: every method on the corpus's photos, the formats set, 24 MP photos and clips (--set tuning, what the
  coefficients of Sources/PhotoWorker/Memory/MemoryEstimate.swift were fitted on) or on sources they were not
  (--set heldout: sticker-dev photos, the other formats, 12 MP photos in five encodings, other clips). Each job runs
  alone in a fresh worker (--max-jobs 1, --cache-bytes 0): once it is initialised its peak RSS is reset (`5` written
  to /proc/PID/clear_refs) and its RSS read; the job's measured peak is VmHWM after it less that RSS. The estimate is the
  job's `memoryBytes` in `jobs.list`, polled while it runs. Prints each job, then the share of jobs whose estimate is
  at least the measured peak and the share within 1.5x of it.
mixed: the issue's mixed load (24 MP stickers, a 4K clip to Telegram, a photos.process batch, thumbnails, cancels)
  in a cgroup v1/v2 with a memory limit: with the default budget and --max-jobs 8, and with --max-memory off at each
  --jobs; wall time, answers, peak RSS (the cgroup's own high-water mark), OOM kills.
Needs root for clear_refs on another process (same user suffices) and for the cgroup.
"""
import argparse, json, os, pathlib, subprocess, sys, tempfile, threading, time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from memory_load import Worker, heldout_inputs, make_inputs, mixed_load, run_in_cgroup  # noqa: E402


def status(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    return 0


def measure(binary, method, params):
    """(estimate, measured peak, outcome) for one job run alone in a fresh worker: its peak RSS less its RSS once
    initialised (a worker that ran other jobs keeps memory malloc has not handed back, which would hide the job's)."""
    worker = Worker(binary, "--max-jobs", "1", "--cache-bytes", "0", "--max-memory", "64G")
    try:
        worker.call("initialize", {})
        return measure_in(worker, method, params)
    finally:
        worker.close()


def measure_in(worker, method, params):
    with open(f"/proc/{worker.pid}/clear_refs", "w") as f:
        f.write("5")
    base = status(worker.pid, "VmRSS")
    rid = worker.send(method, params)
    estimate = None
    while True:
        reply = worker.poll(rid, timeout=0.01)
        if reply is not None:
            break
        if estimate is None:
            jobs = worker.call("jobs.list")["jobs"]
            for j in jobs:
                if j["id"] == rid and j.get("memoryBytes") is not None:
                    estimate = j["memoryBytes"]
    peak = status(worker.pid, "VmHWM") - base
    return estimate, peak, ("ok" if "result" in reply else reply["error"]["message"])


def estimate_only(worker, method, params):
    """The worker's estimate for a job without running it: a worker whose budget is 0 refuses every job that makes
    an estimate with -32007, whose data says how many bytes the job needs."""
    reply = worker.wait(worker.send(method, params), timeout=120)
    error = reply.get("error") or {}
    return (error.get("data") or {}).get("neededBytes")


def jobs_for(inputs, out, quick):
    photos = inputs["photos"][:3] if quick else inputs["photos"]
    large = inputs["large"][:1] if quick else inputs["large"]
    jobs = []
    for src in photos + inputs["formats"] + large + inputs["large_formats"]:
        name = pathlib.Path(src).name
        s = {"path": src}
        jobs += [
            ("image.info", {"source": s}, name),
            ("image.thumbnail", {"source": s, "size": 256, "output": {"path": f"{out}/t.jpg", "overwrite": True}}, name),
            ("image.palette", {"source": s, "count": 5}, name),
            ("image.scale", {"source": s, "factor": 0.5, "output": {"path": f"{out}/s.png", "overwrite": True}}, name),
            ("image.convert", {"source": s, "output": {"path": f"{out}/c.webp", "overwrite": True}}, name),
            ("image.effect", {"source": s, "effects": [{"blur": 4}], "output": {"path": f"{out}/e.jpg", "overwrite": True}}, name),
            ("image.sticker", {"source": s, "outline": {"width": 8}, "output": {"path": f"{out}/k.png", "overwrite": True}}, name),
            ("image.sticker", {"source": s, "segmenter": "classical", "output": {"path": f"{out}/kc.png", "overwrite": True}}, name + " classical"),
            ("image.subjects", {"source": s}, name),
            ("photo.process", {"source": s, "output": {"dir": out, "overwrite": True}}, name),
        ]
    for clip in inputs["clips"]:
        name = pathlib.Path(clip).name
        jobs += [
            ("image.animatedSticker", {"source": {"path": clip}, "output": {"path": f"{out}/a.webp", "overwrite": True}}, name),
            ("image.animatedSticker", {"source": {"path": clip}, "target": "telegram", "output": {"path": f"{out}/a.webm", "overwrite": True}}, name + " telegram"),
        ]
    batch = [{"path": p} for p in inputs["photos"][:20]]
    jobs.append(("photos.process", {"sources": batch, "output": {"dir": f"{out}/batch", "overwrite": True}}, f"{len(batch)} photos"))
    jobs.append(("photos.process", {"sources": [{"path": p} for p in large[:4]], "output": {"dir": f"{out}/batch", "overwrite": True}}, "4 x 24 MP"))
    jobs.append(("pack.export", {"sources": [{"path": p} for p in inputs["photos"][:3]], "output": {"path": f"{out}/pack.png", "overwrite": True}}, "3 photos"))
    jobs.append(("pack.export", {"sources": [{"path": p} for p in large[:2]], "output": {"path": f"{out}/pack.png", "overwrite": True}}, "2 x 24 MP"))
    return jobs


def estimates(args):
    inputs = (heldout_inputs(pathlib.Path(args.work) / "heldout") if args.set == "heldout"
              else make_inputs(pathlib.Path(args.work), quick=args.quick, large_formats=True))
    rows = []
    # --reuse-peaks: the peaks of an earlier run (the work is the same), the estimates of this binary.
    earlier = {(r["method"], r["source"]): r for r in json.loads(pathlib.Path(args.reuse_peaks).read_text())} \
        if args.reuse_peaks else None
    refuser = Worker(args.bin, "--max-jobs", "1", "--cache-bytes", "0", "--max-memory", "1") if earlier else None
    with tempfile.TemporaryDirectory() as out:
        for method, params, name in jobs_for(inputs, out, args.quick):
            if earlier is not None:
                if (method, name) not in earlier:
                    continue
                old = earlier[(method, name)]
                peak, outcome = old["peak"], old["outcome"]
                est = estimate_only(refuser, method, params)
            else:
                est, peak, outcome = measure(args.bin, method, params)
            rows.append({"method": method, "source": name, "estimate": est, "peak": peak, "outcome": outcome})
            ratio = f"{est / peak:5.2f}" if est and peak > 0 else "  -  "
            print(f"{method:22} {name[:34]:34} est {fmt(est):>9} peak {fmt(peak):>9} {ratio} {outcome[:40]}", flush=True)
    if refuser:
        refuser.close()
    judged = [r for r in rows if r["outcome"] == "ok" and r["estimate"] is not None and r["peak"] > 8 << 20]
    covered = sum(r["estimate"] >= r["peak"] for r in judged)
    tight = sum(r["estimate"] <= 1.5 * r["peak"] for r in judged)
    print(f"\njobs with a peak over 8 MiB: {len(judged)}; estimate >= peak: {covered} ({100 * covered / max(1, len(judged)):.0f}%); "
          f"estimate <= 1.5x peak: {tight} ({100 * tight / max(1, len(judged)):.0f}%)")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(rows, indent=1))


def fmt(b):
    return "-" if b is None else f"{b / 1048576:.1f}M"


def mixed(args):
    inputs = make_inputs(pathlib.Path(args.work))
    runs = [("default budget, --max-jobs 8", ["--max-jobs", "8"]), ("default budget, --max-jobs 2", ["--max-jobs", "2"])]
    runs += [(f"--max-memory {s} --max-jobs 8", ["--max-memory", s, "--max-jobs", "8"]) for s in args.shares.split(",") if s]
    runs += [(f"--max-memory off --max-jobs {j}", ["--max-memory", "off", "--max-jobs", str(j)]) for j in args.jobs.split(",")]
    for label, flags in runs:
        r = run_in_cgroup(args.bin, flags, args.limit, lambda w, out: mixed_load(w, inputs, out))
        print(f"{label:36} {r['seconds']:7.1f} s  answered {r['answered']}/{r['sent']}  peak {fmt(r['peak'])}  "
              f"killed: {r['killed']}", flush=True)


def report(args):
    """A markdown table per method of --json files: jobs, estimate >= peak, estimate <= 1.5x peak, ratio range."""
    import statistics
    for path in args.files:
        rows = json.loads(pathlib.Path(path).read_text())
        judged = [r for r in rows if r["outcome"] == "ok" and r["estimate"] is not None and r["peak"] > 8 << 20]
        print(f"\n{path}: {len(judged)} jobs with a peak over 8 MiB\n")
        print("| method | jobs | estimate >= peak | estimate <= 1.5x peak | ratio min / median / max | largest peak |")
        print("|---|---|---|---|---|---|")
        methods = sorted({r["method"] for r in judged})
        for m in methods + ["all"]:
            rs = judged if m == "all" else [r for r in judged if r["method"] == m]
            ratios = [r["estimate"] / r["peak"] for r in rs]
            cover = sum(x >= 1 for x in ratios)
            tight = sum(x <= 1.5 for x in ratios)
            print(f"| {m} | {len(rs)} | {cover} ({100 * cover / len(rs):.0f}%) | {tight} ({100 * tight / len(rs):.0f}%) | "
                  f"{min(ratios):.2f} / {statistics.median(ratios):.2f} / {max(ratios):.2f} | "
                  f"{max(r['peak'] for r in rs) / 2**20:.0f} MiB |")
        under = sorted((r for r in judged if r["estimate"] < r["peak"]), key=lambda r: r["estimate"] / r["peak"])
        for r in under:
            print(f"under: {r['method']} {r['source']}: estimate {fmt(r['estimate'])}, peak {fmt(r['peak'])}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("suite", choices=["estimates", "mixed", "report"])
    ap.add_argument("files", nargs="*", help="report: the --json files to tabulate")
    ap.add_argument("--bin", default=str(ROOT / ".build/release/photoworker"))
    ap.add_argument("--work", default=str(ROOT / "bench/out/memory"))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--set", choices=["tuning", "heldout"], default="tuning",
                    help="tuning: the sources the estimates were fitted on; heldout: others (scripts/memory_load.py)")
    ap.add_argument("--json")
    ap.add_argument("--reuse-peaks", help="a --json file of an earlier run: its peaks, this binary's estimates")
    ap.add_argument("--limit", default="768M")
    ap.add_argument("--jobs", default="1,2,4,8")
    ap.add_argument("--shares", default="", help="mixed: also these --max-memory values (90%%,95%%)")
    args = ap.parse_args()
    {"estimates": estimates, "mixed": mixed, "report": report}[args.suite](args)


if __name__ == "__main__":
    main()
