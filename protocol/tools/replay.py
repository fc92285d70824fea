#!/usr/bin/env python3
"""Replays the transcripts of README.md and protocol/README.md against the real binary, so the docs cannot drift.

  python3 protocol/tools/replay.py [--bin .build/debug/photoworker]

Every fenced block made only of `-> ` (sent) and `<- ` (received) lines is replayed in one worker, in a scratch
folder holding what the examples name (photo.jpg, sticker.webp, live.heic, live.mov and pair.jpg; sticker.png is made by the image.sticker example,
so blocks run in order and share the folder). Blocks with a shell line, a signal or stdin directive, LSP headers or
server-to-client requests are left to the end-to-end tests that cover them (listed as skipped).

Each documented response is compared with the real one of the same id: the same members at every level with values
of the same JSON type (so a field that changes type, appears or disappears is drift), and equal error codes,
messages and `data.path`/`data.rule`. Values that vary run to run (times, sizes, colours) are compared by type only;
an array is compared by its first element. Notifications are not compared (their count depends on timing).
Prints one line per block and "N passed, M failed".
"""
import argparse, json, os, pathlib, re, shutil, subprocess, sys, tempfile, threading

ROOT = pathlib.Path(__file__).resolve().parents[2]
STRICT = {"code", "message"}
STRICT_IN_DATA = {"path", "rule"}


def blocks(readme):
    """Each replayable fence with the worker flags its prose names just before it (`photoworker --max-jobs 1 ...`)."""
    # A fence opens at a line start with an optional language and closes at the next line-start fence.
    for m in re.finditer(r"^```([\w-]*)\n(.*?)^```", readme, re.S | re.M):
        lines = m.group(2).splitlines()
        if not any(l.startswith(("-> ", "<- ")) for l in lines):
            continue
        before = readme[max(0, m.start() - 300):m.start()].rstrip().rsplit("\n\n", 1)[-1]
        flags = re.search(r"`photoworker((?: --[a-z-]+ [^ `]+)+)`", before)
        yield lines, (flags.group(1).split() if flags else [])


def replayable(lines):
    if any(not l.startswith(("-> ", "<- ")) for l in lines if l.strip()):
        return "a shell, signal or stdin directive"
    if any("Content-Length" in l for l in lines):
        return "LSP headers"
    if any(l.startswith("<- ") and '"method":"roots/list"' in l for l in lines):
        return "a server-to-client request"
    return None


def kind(v):
    return {dict: "object", list: "array", str: "string", bool: "bool", type(None): "null"}.get(type(v), "number")


def compare(doc, real, path, problems, in_error=False, in_data=False):
    if kind(doc) != kind(real):
        problems.append(f"{path or '.'}: documented {kind(doc)} {json.dumps(doc)[:60]}, binary {kind(real)} {json.dumps(real)[:60]}")
        return
    if isinstance(doc, dict):
        for k in sorted(set(doc) | set(real)):
            here = f"{path}.{k}" if path else k
            if k not in real:
                problems.append(f"{here}: documented, absent from the binary's reply")
            elif k not in doc:
                problems.append(f"{here}: in the binary's reply, not documented")
            else:
                compare(doc[k], real[k], here, problems, in_error or k == "error", in_data or (in_error and k == "data"))
    elif isinstance(doc, list):
        if doc and real:
            compare(doc[0], real[0], path + "[0]", problems, in_error, in_data)
    elif in_error and ((not in_data and path.split(".")[-1] in STRICT) or (in_data and path.split(".")[-1] in STRICT_IN_DATA)):
        if doc != real:
            problems.append(f"{path}: documented {json.dumps(doc)}, binary {json.dumps(real)}")


def by_id(messages, out):
    """Responses by id, in arrival order (an id may be answered twice: an in-flight refusal, then the original)."""
    for m in messages:
        for one in (m if isinstance(m, list) else [m]):
            if isinstance(one, dict) and "id" in one and "method" not in one:
                out.setdefault(json.dumps(one["id"]), []).append(one)
    return out


def documented(line):
    """The documented message, or None where the README abbreviates it (`{...}`)."""
    try:
        return json.loads(line[3:])
    except json.JSONDecodeError:
        return None


def run_block(binary, folder, lines, flags, timeout=60):
    sent = [l[3:] for l in lines if l.startswith("-> ")]
    expected = by_id([d for l in lines if l.startswith("<- ") and (d := documented(l)) is not None], {})
    p = subprocess.Popen([binary, *flags], cwd=folder, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    # Every line at once: the worker reads them in order, as a client pipelining them would send them.
    p.stdin.write("\n".join(sent) + "\n")
    p.stdin.flush()
    got = {}
    def missing():
        return any(len(got.get(k, [])) < len(v) for k, v in expected.items())
    # The deadline also ends a read that waits for a line that never comes: the worker is killed, the read sees
    # the end of its output, and what did not arrive is reported below.
    watchdog = threading.Timer(timeout, p.kill)
    watchdog.start()
    try:
        while missing():
            line = p.stdout.readline()
            if not line:
                break
            by_id([json.loads(line)], got)
    finally:
        watchdog.cancel()
    p.stdin.close()
    try:
        p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
    problems = []
    for key, docs in expected.items():
        real = got.get(key, [])
        if len(real) < len(docs):
            problems.append(f"id {key}: {len(docs)} documented replies, {len(real)} came")
        # The replies of one id in the order the README shows and the binary sent them, where they can differ
        # only in order (an in-flight refusal comes before the original's answer): match each to its closest.
        for doc in docs:
            candidates = [compare_all(doc, r, f"id {key}") for r in real] or [[f"id {key}: documented reply never came"]]
            problems.extend(min(candidates, key=len))
    return problems


def compare_all(doc, real, path):
    problems = []
    compare(doc, real, path, problems)
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.environ.get("PHOTOWORKER_BIN", str(ROOT / ".build/debug/photoworker")))
    a = ap.parse_args()
    a.bin = os.path.abspath(a.bin)  # the blocks run in a scratch folder
    folder = tempfile.mkdtemp(prefix="pw-replay-")
    shutil.copy(ROOT / "corpus/photos/girl-1.jpg", os.path.join(folder, "photo.jpg"))
    shutil.copy(ROOT / "corpus/formats/coffee-alpha.webp", os.path.join(folder, "sticker.webp"))
    shutil.copy(ROOT / "corpus/formats/girl.heic", os.path.join(folder, "live.heic"))  # a Live Photo's still
    shutil.copy(ROOT / "corpus/motion/zoom-hevc-rot90.mov", os.path.join(folder, "live.mov"))  # and its clip
    shutil.copy(ROOT / "corpus/subjects/pair.jpg", os.path.join(folder, "pair.jpg"))  # two subjects side by side
    os.makedirs(os.path.join(folder, "broken"))
    shutil.copy(ROOT / "corpus/broken/pillow-truncated_jpeg.jpg", os.path.join(folder, "broken"))
    passed = failed = skipped = 0
    try:
        for doc in ("README.md", "protocol/README.md"):
            for n, (lines, flags) in enumerate(blocks((ROOT / doc).read_text()), 1):
                where = f"{doc} block {n}"
                first = next(l for l in lines if l.startswith(("-> ", "<- ")))[3:80]
                why = replayable(lines)
                if why:
                    skipped += 1
                    print(f"  skip  {where} ({why}): {first}")
                    continue
                problems = run_block(a.bin, folder, lines, flags)
                if problems:
                    failed += 1
                    print(f"  FAIL  {where}: {first}")
                    for p in problems[:20]:
                        print(f"        {p}")
                else:
                    passed += 1
                    print(f"  ok    {where}: {first}" + (f" (with {' '.join(flags)})" if flags else ""))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"replay: {passed} passed, {failed} failed, {skipped} skipped")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
