#!/usr/bin/env python3
"""Start-up time of the worker as each kind of install starts it (issue #29).

  bash scripts/package.sh                      # dist/ wheel and tarball, .build/package/worker
  swift build -c release && cp .build/release/photoworker /tmp/photoworker-plain   # the plain route
  python3 bench/startup_bench.py --plain /tmp/photoworker-plain [--rounds 40]

Installs the wheel into a fresh venv and the npm tarball into a fresh folder (both in a temporary folder,
offline), then, rounds alternating between the routes, times two things a client waits for:
  - `--version`: process start to exit (dynamic loading, Swift runtime start, argument parsing);
  - first answer: spawn, write one `ping`, read its response (what a client's `spawn()` + first call costs).
Routes: the plain `swift build` binary (Swift runtime from the toolchain), the packaged binary called directly,
the wheel's `photoworker` console script (Python starts, then execs the worker), the npm package's
`node_modules/.bin/photoworker` (Node starts and stays as the worker's parent), and `python3 -c pass` and
`node -e 0` for the interpreters' own floor. Medians and p90 in ms.
"""
import argparse, glob, json, os, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def install(dist, work):
    wheel = glob.glob(os.path.join(dist, "photoworker-*-py3-none-manylinux_*_x86_64.whl"))
    tarball = glob.glob(os.path.join(dist, "photoworker-*.tgz"))
    if len(wheel) != 1 or len(tarball) != 1:
        sys.exit(f"startup_bench: expected one wheel and one tarball in {dist} (run scripts/package.sh)")
    venv = os.path.join(work, "venv")
    subprocess.run(["/usr/bin/python3", "-m", "venv", venv], check=True)
    subprocess.run([os.path.join(venv, "bin", "python3"), "-m", "pip", "install", "--quiet",
                    "--disable-pip-version-check", "--no-deps", wheel[0]], check=True)
    node = os.path.join(work, "node")
    os.makedirs(node)
    with open(os.path.join(node, "package.json"), "w") as f:
        f.write('{"private": true}')
    subprocess.run(["npm", "install", "--silent", "--offline", "--no-audit", "--no-fund", tarball[0]],
                   cwd=node, check=True)
    return os.path.join(venv, "bin", "photoworker"), os.path.join(node, "node_modules", ".bin", "photoworker")


def time_exit(argv):
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def time_first_answer(argv):
    start = time.perf_counter()
    p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         bufsize=0)
    p.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n')
    line = p.stdout.readline()
    elapsed = time.perf_counter() - start
    p.stdin.close()
    p.wait()
    if b'"result"' not in line:
        sys.exit(f"startup_bench: {argv[0]} answered {line!r}")
    return elapsed


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--plain", required=True, help="a plain `swift build -c release` binary (copied aside)")
    ap.add_argument("--dist", default=os.path.join(ROOT, "dist"))
    ap.add_argument("--packaged", default=os.path.join(ROOT, ".build", "package", "worker", "photoworker"))
    ap.add_argument("--rounds", type=int, default=40)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="photoworker-startup.") as work:
        wheel_cmd, npm_cmd = install(args.dist, work)
        routes = {
            "swift build binary": [args.plain],
            "packaged binary, direct": [args.packaged],
            "wheel: venv/bin/photoworker": [wheel_cmd],
            "npm: node_modules/.bin/photoworker": [npm_cmd],
        }
        floors = {"python3 -c pass (venv)": [os.path.join(work, "venv", "bin", "python3"), "-c", "pass"],
                  "node -e 0": ["node", "-e", "0"]}
        exit_times = {name: [] for name in [*routes, *floors]}
        answer_times = {name: [] for name in routes}
        for _ in range(args.rounds):
            for name, argv in routes.items():
                exit_times[name].append(time_exit(argv + ["--version"]))
                answer_times[name].append(time_first_answer(argv))
            for name, argv in floors.items():
                exit_times[name].append(time_exit(argv))
        def ms(xs, q):
            xs = sorted(xs)
            return 1000 * xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]
        print(f"{args.rounds} rounds, load {os.getloadavg()[0]:.1f}")
        print(f"{'route':40} {'--version p50':>14} {'p90':>7} {'first ping p50':>15} {'p90':>7}")
        for name in exit_times:
            row = f"{name:40} {ms(exit_times[name], .5):11.1f} ms {ms(exit_times[name], .9):7.1f}"
            if name in answer_times:
                row += f" {ms(answer_times[name], .5):12.1f} ms {ms(answer_times[name], .9):7.1f}"
            print(row)
        summary = {name: {"version_ms": round(ms(v, .5), 1),
                          "first_ping_ms": round(ms(answer_times[name], .5), 1) if name in answer_times else None}
                   for name, v in exit_times.items()}
        print(json.dumps(summary))


if __name__ == "__main__":
    main()
