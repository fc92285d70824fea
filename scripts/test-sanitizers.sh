#!/usr/bin/env bash
# Runs the end-to-end suite (which spawns the real worker binary) under sanitizers.
#   scripts/test-sanitizers.sh [thread|address|all] [--core] [--filter REGEX]
#     thread   ThreadSanitizer, scratch path .build-tsan
#     address  AddressSanitizer (+UBSan-style checks it includes), scratch path .build-asan
#     all      both (default)
#     --core   only the core end-to-end suites (a few minutes under TSan; what CI runs)
#     --filter a swift test --filter regex of your own (default: EndToEndTests)
# The worker processes the tests spawn inherit TSAN_OPTIONS/ASAN_OPTIONS: every report from the test
# runner or any worker goes to a log file under the scratch path, and any report fails the script
# even when the test that triggered it passed.
set -euo pipefail
cd "$(dirname "$0")/.."

which=all
filter="EndToEndTests"
core='EndToEndTests\.(SpecExamplesTests|WireTests|ConcurrencyTests|CancellationTests|LifecycleTests|HostileWireTests|FaultTests|FaultSoakTests)'
while [ $# -gt 0 ]; do
    case "$1" in
    thread|address|all) which="$1" ;;
    --core) filter="$core" ;;
    --filter) shift; filter="$1" ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done

run() { # run thread|address
    local sanitizer="$1" scratch logs status=0
    case "$sanitizer" in
    thread) scratch=.build-tsan ;;
    address) scratch=.build-asan ;;
    esac
    logs="$PWD/$scratch/sanitizer-logs"
    rm -rf "$logs"; mkdir -p "$logs"
    echo "== $sanitizer sanitizer: building ($scratch)" >&2
    swift build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch" 2>&1 | grep -E "error|warning: data race|Compiling|Build complete" | grep -v "^\[" || true
    [ -x "$scratch/debug/photoworker" ] || { echo "build failed" >&2; return 1; }
    echo "== $sanitizer sanitizer: swift test --filter '$filter'" >&2
    # halt_on_error=0 for TSan: keep going so one run shows every report; the log files decide.
    TSAN_OPTIONS="log_path=$logs/tsan:halt_on_error=0:second_deadlock_stack=1${TSAN_OPTIONS:+:$TSAN_OPTIONS}" \
    ASAN_OPTIONS="log_path=$logs/asan:detect_leaks=0:halt_on_error=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
        swift test --skip-build --sanitize="$sanitizer" --scratch-path "$scratch" --filter "$filter" \
        >"$scratch/sanitizer-test.log" 2>&1 || status=$?
    grep -E "✘|✔ Suite|Test run|error:|↳ [^/]" "$scratch/sanitizer-test.log" >&2 || true
    local reports
    reports=$(find "$logs" -type f | wc -l)
    if [ "$reports" -gt 0 ]; then
        echo "== $sanitizer sanitizer: $reports report file(s) in $logs:" >&2
        for f in "$logs"/*; do echo "--- $f" >&2; head -60 "$f" >&2; done
        return 1
    fi
    if [ "$status" -ne 0 ]; then
        echo "== $sanitizer sanitizer: tests failed (exit $status); full log $scratch/sanitizer-test.log" >&2
        return "$status"
    fi
    echo "== $sanitizer sanitizer: no reports" >&2
}

failed=0
case "$which" in
thread) run thread || failed=1 ;;
address) run address || failed=1 ;;
all) run thread || failed=1; run address || failed=1 ;;
esac
exit "$failed"
