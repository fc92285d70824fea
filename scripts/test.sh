#!/usr/bin/env bash
# Runs every test suite, after installing what a fresh Debian machine with Swift lacks
# (scripts/test-env.sh: Debian packages when root, Python tools in .build/test-venv, Node):
#   1. the Swift package: unit tests and end-to-end tests over real pipes (swift test);
#   2. the Python and Node clients against the built binary (scripts/test-clients.sh), the transcripts of
#      README.md and protocol/README.md replayed against it (protocol/tools/replay.py), and the python, js and sh
#      examples of README.md and the packages' READMEs run as written (protocol/tools/examples.py), so the docs
#      cannot drift;
#   3. the MCP interoperability tests with the official MCP Python SDK (clients/mcp);
#   4. the editor clients, headless in Vim, Neovim and Emacs (scripts/test-editors.sh);
#   5. photoworker under Ray Data, on a local Ray (scripts/test-ray.sh);
#   6. the core end-to-end suites under ThreadSanitizer (scripts/test-sanitizers.sh thread --core);
#   7. the packages: a self-contained release build as a wheel and an npm tarball, installed outside the checkout
#      and driven with the checkout and the toolchain hidden (scripts/test-package.sh);
#   8. a fuzzing smoke run of the nine libFuzzer targets (fuzz/run.sh all $FUZZ_SECONDS, default 2, each
#      target in $FUZZ_JOBS libFuzzer jobs, default 1, built at $FUZZ_OPT, default -Onone; `fuzz/run.sh all 60`
#      fuzzes for longer, optimised).
# Steps 7 and 8 run in the background beside 2 to 6 (below).
# The Swift package is built in .build-test, without debug information (a third less compile time; a failed
# expectation names its source line by itself) and each module whole, so this neither rebuilds nor is rebuilt by a
# `swift build` in .build.
# `scripts/test.sh --quick` stops after step 4 (what you want while editing).
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
case "${1:-}" in
    --quick) quick=1 ;;
    "") ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "usage: scripts/test.sh [--quick]" >&2; exit 2 ;;
esac

# Each step's wall time, printed at the end (or at the failure): the budget is 15 minutes on 2 cores.
# With each the CPU time it took (which a busier machine changes far less): its finished children's, from /proc, so a
# background job's lands on the step during which it ends (when this shell reaps it).
cpu_seconds() { # the CPU seconds of this shell's finished children
    local stat
    read -r stat < /proc/$$/stat
    set -- ${stat##*) }  # fields from the 3rd on: cutime and cstime are the 16th and 17th
    echo $(( (${14} + ${15}) / $(getconf CLK_TCK) ))
}
timings=()
step() {
    local start=$SECONDS cpu
    cpu=$(cpu_seconds)
    "$@"
    timings+=("$(printf '%5d s %6d CPU-s  %s' $((SECONDS - start)) $(($(cpu_seconds) - cpu)) "$*")")
}
report() {
    [ ${#timings[@]} -gt 0 ] && printf '%s\n' "step times:" "${timings[@]}" \
        "$(printf '%5d s %6d CPU-s  total' $SECONDS "$(cpu_seconds)")" >&2
    true
}

# Work that needs none of the steps it runs beside goes in the background: the Python tools install (mostly
# network) beside the Swift build; then, beside the client, editor, Ray and ThreadSanitizer steps (the first of
# them leave a core idle), the fuzz targets' build and their smoke run (a single-threaded whole-module compile,
# then fuzzing for a fixed wall time), and the package's release build and its test (mostly installing and waiting).
# Each runs in its own process group with its output in .build/<name>.log, is awaited before what needs it (its log
# then printed, whole), and is killed with its children if the script stops first.
declare -A background_pids=()
background() { # background NAME COMMAND...
    local name="$1"; shift
    mkdir -p .build
    setsid "$@" >".build/$name.log" 2>&1 &
    background_pids[$name]=$!
}
await() { # await NAME
    local name="$1" status=0
    wait "${background_pids[$name]}" || status=$?
    unset "background_pids[$name]"
    echo "== $name (in the background; .build/$name.log):"
    cat ".build/$name.log"
    if [ "$status" -ne 0 ]; then
        echo "$name failed (exit $status)" >&2
        return 1
    fi
}
stop_background() {
    local pid
    for pid in "${background_pids[@]}"; do kill -- "-$pid" 2>/dev/null || true; done
}
trap 'stop_background; report' EXIT

export TEST_ENV_DEFER_VENV=1
step source scripts/test-env.sh
background test-venv bash scripts/test-env.sh --venv

# Every module compiled whole (-wmo), as a release build does: file by file each batch of a module re-reads all of it,
# and the optimised libraries keep one core busy; whole-module, the build with tests takes a quarter less CPU and the
# sanitizer's build a fifth (bench/README.md). `-num-threads` keeps the object per file SwiftPM links. Only in this
# command's build (.build-test, --quick too): after a one-file edit it recompiles the file's whole module, which a
# development build in .build, file by file, does not.
export WHOLE_MODULE_FLAGS="-Xswiftc -wmo -Xswiftc -num-threads -Xswiftc $(nproc)"
# What the sanitizer step's own `swift build --build-tests` and `swift test` use too, to find this build.
export TEST_SWIFT_BUILD_FLAGS="--scratch-path .build-test -debug-info-format none $WHOLE_MODULE_FLAGS"
# Every C shim against this machine's headers with deprecations as errors (seconds; scripts/test-distro.sh runs the
# same in fresh Debian 12 and 13 roots).
step bash scripts/check-shims.sh
step swift build --build-tests $TEST_SWIFT_BUILD_FLAGS
step swift test --skip-build $TEST_SWIFT_BUILD_FLAGS
step await test-venv
hash -r  # python3 is the venv's from here on, whatever this shell looked up before the venv was made
if [ "$quick" = 0 ]; then
    # One libFuzzer job a target: the other core is the foreground's.
    # Unoptimised (FUZZ_OPT): a smoke run, for half the build's CPU time.
    background fuzz bash -c "export FUZZ_OPT=\${FUZZ_OPT:--Onone}; bash fuzz/run.sh build && FUZZ_JOBS=\${FUZZ_JOBS:-1} bash fuzz/run.sh all ${FUZZ_SECONDS:-2}"
    background packages bash scripts/test-package.sh
fi

# The client and editor suites drive the diagnostics.* probes too: the worker with --diagnostics.
export PHOTOWORKER_REAL_BIN="$PWD/.build-test/debug/photoworker"
export PHOTOWORKER_BIN="$PWD/scripts/photoworker-diagnostics"
step bash scripts/test-clients.sh
step python3 protocol/tools/replay.py --bin "$PHOTOWORKER_BIN"
step python3 protocol/tools/examples.py --bin "$PHOTOWORKER_REAL_BIN"
# The MCP SDK starts servers with a minimal environment (no PHOTOWORKER_REAL_BIN for the wrapper), and these tests
# need no diagnostics.* probes: the worker itself.
step env PHOTOWORKER_BIN="$PHOTOWORKER_REAL_BIN" python3 -m pytest -q -p no:cacheprovider clients/mcp
step bash scripts/test-editors.sh
suites=5

if [ "$quick" = 1 ]; then
    echo "suites: $suites passed, 0 failed"
    exit 0
fi
step bash scripts/test-ray.sh
step bash scripts/test-sanitizers.sh thread --core
step await packages
step await fuzz
suites=$((suites + 4))
# Every step above stops the script on failure (set -e), so reaching here means all passed.
echo "suites: $suites passed, 0 failed"
