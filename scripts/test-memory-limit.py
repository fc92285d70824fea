#!/usr/bin/env python3
"""The worker under a real memory limit (issue 63): a cgroup (v2 where the memory controller is mounted, else v1)
limited to 768 MiB, the worker inside it with --max-jobs 8 and no --max-memory (so its default must find the limit),
and a mixed load sent at once (8 stickers of 24 MP photos, a 10 s 4K clip to Telegram, a 20-photo photos.process,
20 thumbnails of 24 MP photos, three cancels). Passes when every request is answered, the worker is never killed and
its peak RSS stays under the limit. Then shows that the check can fail: the same load with --max-memory off is
killed by the kernel.

  python3 scripts/test-memory-limit.py [--bin .build/release/photoworker] [--limit 768M] [--work DIR]

Needs root (to make the cgroup) and ffmpeg (scripts/test-deps/debian.txt) to make the 24 MP photos and the clip from
the corpus (scripts/memory_load.py).
"""
import argparse, os, pathlib, sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from memory_load import cgroup_root, make_inputs, mixed_load, parse_size, run_in_cgroup  # noqa: E402


def describe(r):
    codes = {}
    for reply in r["replies"].values():
        k = "ok" if "result" in reply else reply["error"]["code"]
        codes[k] = codes.get(k, 0) + 1
    return (f"{r['seconds']:.1f} s, answered {r['answered']}/{r['sent']} {codes}, peak RSS {r['peak'] / 2**20:.0f} MiB, "
            f"exit {r['exit']}, OOM kills {r['oom_kills']}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=str(ROOT / ".build/release/photoworker"))
    ap.add_argument("--limit", default="768M")
    ap.add_argument("--work", default=str(ROOT / ".build/memory-limit"))
    args = ap.parse_args()
    if os.geteuid() != 0 or cgroup_root() is None:
        sys.exit("test-memory-limit: needs root and a memory cgroup hierarchy (v1 or v2) to make a limited group")
    inputs = make_inputs(pathlib.Path(args.work))
    limit = parse_size(args.limit)
    failures = []

    budgeted = run_in_cgroup(args.bin, ["--max-jobs", "8"], args.limit, lambda w, out: mixed_load(w, inputs, out))
    print(f"default budget: {describe(budgeted)}")
    print(f"  the worker's budget: {budgeted['limits'] and budgeted['limits'].get('maxMemoryOrigin')}")
    origin = (budgeted["limits"] or {}).get("maxMemoryOrigin", "")
    if "cgroup" not in origin:
        failures.append(f"the default budget did not come from the cgroup's limit: {origin!r}")
    if budgeted["killed"] or budgeted["oom_kills"]:
        failures.append("the worker was killed under its default budget")
    if budgeted["answered"] != budgeted["sent"] or budgeted["sent"] != 30:
        failures.append(f"answered {budgeted['answered']} of {budgeted['sent']} requests (30 sent)")
    if not 0 < budgeted["peak"] < limit:
        failures.append(f"peak RSS {budgeted['peak']} is not under the limit {limit}")
    bad = {rid: rep["error"] for rid, rep in budgeted["replies"].items() if "error" in rep and rep["error"]["code"] != -32800}
    if bad:
        failures.append(f"requests failed under the budget: {bad}")
    cancelled = sum(1 for rep in budgeted["replies"].values() if "error" in rep and rep["error"]["code"] == -32800)
    if cancelled > 3:
        failures.append(f"{cancelled} requests answered cancelled; 3 were cancelled")

    unbudgeted = run_in_cgroup(args.bin, ["--max-jobs", "8", "--max-memory", "off"], args.limit,
                               lambda w, out: mixed_load(w, inputs, out))
    print(f"--max-memory off: {describe(unbudgeted)}")
    if not (unbudgeted["killed"] or unbudgeted["oom_kills"]):
        failures.append("without the budget the same load was not killed: the test could not fail")

    for f in failures:
        print(f"FAIL: {f}")
    print("test-memory-limit: " + ("FAILED" if failures else "passed"))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
