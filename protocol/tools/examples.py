#!/usr/bin/env python3
"""Runs the code examples of README.md and the packages' READMEs as written, so they cannot drift.

  python3 protocol/tools/examples.py --bin .build/debug/photoworker            # from a checkout
  python3 protocol/tools/examples.py --installed --python VENV/bin/python3 \\
      --node-modules NODE/node_modules --path-dir VENV/bin                     # from the installed packages

Every fenced block in python, js or sh is run, each in a fresh scratch folder holding the photos the examples name
(photo.jpg, cat.jpg, a.jpg, b.jpg, in.jpg), unless the line before its fence is an HTML comment
`<!-- example: not run, REASON -->` (set-up commands, editor configurations, a Ray cluster's code): those are
listed with their reason. Blocks of other languages (the `->`/`<-` transcripts, JSON configurations) are
protocol/tools/replay.py's or are data.

From a checkout, `import ... from 'photoworker'` and `from photoworker_client import ...` resolve to clients/node
and clients/python, and the examples find the worker through $PHOTOWORKER_BIN (as their READMEs say a checkout's
user does). With --installed they run against the packages alone: the wheel's Python and `photoworker` command,
the npm package's node_modules, no $PHOTOWORKER_BIN, so the bundled workers must be found by themselves.

A block fails when it exits non-zero or takes longer than 120 s. Prints one line per block and
"N passed, M failed".
"""
import argparse, os, pathlib, re, shutil, subprocess, sys, tempfile

HERE = pathlib.Path(__file__).resolve()
SKIP = re.compile(r"<!--\s*example:\s*not run,\s*(.+?)\s*-->")
LANGUAGES = {"python": "py", "js": "mjs", "sh": "sh"}
# The photos the examples name, made from the corpus (the first photo for each name).
PHOTOS = {"photo.jpg": "rocket.jpg", "cat.jpg": "animal-1.jpg", "a.jpg": "animal-2.jpg", "b.jpg": "girl-1.jpg",
          "in.jpg": "rocket.jpg"}


def examples(readme: pathlib.Path):
    text = readme.read_text()
    for m in re.finditer(r"^```([\w-]*)\n(.*?)^```", text, re.S | re.M):
        language = m.group(1)
        if language not in LANGUAGES:
            continue
        line = text.count("\n", 0, m.start()) + 1
        before = text[:m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        skip = SKIP.search(before)
        yield language, m.group(2), line, (skip.group(1) if skip else None)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", type=pathlib.Path, default=HERE.parents[2],
                        help="the folder holding README.md and clients/ (a checkout, or a copy of the READMEs)")
    parser.add_argument("--bin", help="the worker binary, from a checkout (becomes $PHOTOWORKER_BIN)")
    parser.add_argument("--installed", action="store_true", help="run against installed packages, no checkout")
    parser.add_argument("--python", default=sys.executable, help="the Python that runs python blocks")
    parser.add_argument("--node-modules", help="with --installed: the node_modules holding the npm package")
    parser.add_argument("--path-dir", help="with --installed: the folder holding the wheel's `photoworker` command")
    parser.add_argument("--photos", type=pathlib.Path, help="the corpus photos (default: ROOT/corpus/photos)")
    args = parser.parse_args()
    root = args.root.resolve()
    photos = args.photos or root / "corpus" / "photos"
    readmes = [root / "README.md", root / "clients" / "python" / "README.md", root / "clients" / "node" / "README.md"]

    env = {k: v for k, v in os.environ.items() if k not in ("PHOTOWORKER_BIN", "PYTHONPATH", "NODE_PATH")}
    shims = pathlib.Path(tempfile.mkdtemp(prefix="photoworker-examples-bin-"))
    if args.installed:
        if not (args.node_modules and args.path_dir):
            parser.error("--installed needs --node-modules and --path-dir")
        node_modules = pathlib.Path(args.node_modules).resolve()
        env["PATH"] = f"{pathlib.Path(args.path_dir).resolve()}:{env.get('PATH', '/usr/bin:/bin')}"
    else:
        if not args.bin:
            parser.error("from a checkout, --bin names the worker")
        binary = pathlib.Path(args.bin).resolve()
        env["PHOTOWORKER_BIN"] = str(binary)
        env["PYTHONPATH"] = str(root / "clients" / "python")
        # `photoworker` on PATH, as an installed package puts it.
        (shims / "photoworker").symlink_to(binary)
        env["PATH"] = f"{shims}:{env.get('PATH', '/usr/bin:/bin')}"
        node_modules = shims / "node_modules"
        node_modules.mkdir()
        (node_modules / "photoworker").symlink_to(root / "clients" / "node")

    passed = failed = 0
    for readme in readmes:
        for language, code, line, skip in examples(readme):
            label = f"{readme.relative_to(root)}:{line} ({language})"
            if skip:
                print(f"skip {label}: {skip}")
                continue
            scratch = pathlib.Path(tempfile.mkdtemp(prefix="photoworker-example-"))
            try:
                for name, source in PHOTOS.items():
                    shutil.copy(photos / source, scratch / name)
                # Node resolves `import 'photoworker'` from the importing file's folder upwards.
                (scratch / "node_modules").symlink_to(node_modules)
                script = scratch / f"example.{LANGUAGES[language]}"
                script.write_text(code)
                command = {"python": [args.python, str(script)], "js": ["node", str(script)],
                           "sh": ["bash", "-euo", "pipefail", str(script)]}[language]
                try:
                    run = subprocess.run(command, cwd=scratch, env=env, capture_output=True, text=True, timeout=120,
                                         stdin=subprocess.DEVNULL)
                    ok, detail = run.returncode == 0, f"exit {run.returncode}\n{run.stdout[-2000:]}{run.stderr[-2000:]}"
                except subprocess.TimeoutExpired:
                    ok, detail = False, "timed out after 120 s"
            finally:
                shutil.rmtree(scratch, ignore_errors=True)
            if ok:
                passed += 1
                print(f"ok   {label}")
            else:
                failed += 1
                print(f"FAIL {label}: {detail}")
    shutil.rmtree(shims, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed or not passed else 0)


if __name__ == "__main__":
    main()
