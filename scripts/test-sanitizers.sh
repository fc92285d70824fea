#!/usr/bin/env bash
# Runs the end-to-end suite (which spawns the real worker binary) under sanitizers.
#   scripts/test-sanitizers.sh [thread|address|all] [--core] [--filter REGEX]
#     thread   ThreadSanitizer, scratch path .build-tsan
#     address  AddressSanitizer (+UBSan-style checks it includes), scratch path .build-asan
#     all      both (default)
#     --core   only the core end-to-end suites (a few minutes under TSan; what CI runs)
#     --filter a swift test --filter regex of your own (default: EndToEndTests)
# Only the worker is built with the sanitizer; the test runner is the regular debug build, spawning the
# sanitized worker (PHOTOWORKER_TEST_BINARY). The worker processes inherit TSAN_OPTIONS/ASAN_OPTIONS: every
# report from any of them goes to a log file under the scratch path, and any report fails the script even
# when the test that triggered it passed.
set -euo pipefail
cd "$(dirname "$0")/.."

which=all
filter="EndToEndTests"
core='EndToEndTests\.(SpecExamplesTests|WireTests|ContentLengthWireTests|ConcurrencyTests|CancellationTests|LifecycleTests|HostileWireTests|FaultTests|FaultSoakTests)'
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

# Swift's Synchronization.Mutex on Linux locks with futex(2) inside the (uninstrumented) stdlib, so
# TSan sees none of its happens-before edges and reports every pair of accesses made under the same
# Mutex as a "Swift access race" -- even in a trivially correct program. mutex_false_positive() proves
# that on the current toolchain with a 10-line program; if (and only if) it does, reports whose every
# access happens inside a Mutex.withLock body (a closure taking `inout sending State`, mangled
# ...zYuYTXEfU<n>_ after the State's type: V for a struct, G for a generic such as a Dictionary, or a
# method of that State called from one) are counted as known false positives.
# Everything else fails the run.
mutex_false_positive() {
    local dir="$PWD/.build-tsan/mutex-check"
    mkdir -p "$dir"
    cat > "$dir/m.swift.new" <<'SWIFT'
import Foundation
import Synchronization
final class Box: Sendable { let m = Mutex<[Int]>([]) }
let box = Box()
let g = DispatchGroup()
for t in 0..<4 { DispatchQueue.global().async(group: g) { for i in 0..<50_000 { box.m.withLock { $0.append(i + t) } } } }
g.wait()
SWIFT
    cmp -s "$dir/m.swift.new" "$dir/m.swift" || { mv "$dir/m.swift.new" "$dir/m.swift"; rm -f "$dir/m"; }
    [ -x "$dir/m" ] || swiftc -sanitize=thread -g "$dir/m.swift" -o "$dir/m" >/dev/null 2>&1 || return 1
    local output attempt
    for attempt in 1 2 3 4 5; do  # the threads must actually overlap once
        output=$(TSAN_OPTIONS="exitcode=0" "$dir/m" 2>&1) || true
        [[ "$output" == *"ThreadSanitizer: Swift access race"* ]] && return 0
    done
    return 1
}

verdict() { # verdict thread|address LOGDIR -> 0 when no real report
    local sanitizer="$1" logs="$2" filter_mutex=0
    [ -n "$(ls -A "$logs")" ] || { echo "== $sanitizer sanitizer: no reports" >&2; return 0; }
    if [ "$sanitizer" = thread ] && mutex_false_positive; then filter_mutex=1; fi
    python3 - "$logs" "$filter_mutex" <<'PY'
import os, re, sys
logs, filter_mutex = sys.argv[1], sys.argv[2] == "1"
# A Mutex.withLock body: a closure whose parameter is `inout sending <State>` (a tuple state mangles as `...tz_t`).
WITHLOCK = re.compile(r"(?:zYu|z_t)YTXEfU\d*_")
# The waiter queue (Sources/Waiting) is a value type the locked states hold; its methods run under their lock.
HELD_VALUE = re.compile(r"\$s7Waiting11WaiterQueueV")
PRIVATE_VALUE = re.compile(r"33_[0-9A-F]{32}LLV")
# Initializers whose write of the object's Mutex storage TSan pairs with the lock's later users: ComputePool's private
# Call (made by run, pushed and popped under the pool's state lock, which TSan does not see as ordering them; one
# report in CI's runs on 959a692 and 0770ee2, frame 0 `$s7Compute0A4PoolC4Call33_<hex>LLCAFy_xGycfc`).
KNOWN_INITIALIZERS = [re.compile(r"\$s7Compute0A4PoolC4Call33_[0-9A-F]{32}LLC")]
real, known = [], 0
for name in sorted(os.listdir(logs)):
    text = open(os.path.join(logs, name), errors="replace").read()
    for report in text.split("==================\n"):
        if "WARNING:" not in report and "ERROR:" not in report:
            continue
        benign = False
        if filter_mutex and ("Swift access race" in report or "data race" in report):
            # Each access section starts "[Previous] modifying/read access of Swift variable" or
            # "[Previous] read/write of size N"; look at its first frames.
            sections = re.split(r"\n  (?=(?:Previous )?(?:(?:[Mm]odifying|[Rr]ead) access|(?:[Rr]ead|[Ww]rite) of size))", report)[1:]
            def inside_lock(section):
                # The access is inside a withLock body when such a frame comes first, or comes after
                # only standard-library internals ($sS..., $ss...) and methods of the locked State or of
                # the value types it holds: private ones (mangled with a file discriminator, `33_<32 hex>LLV`,
                # such as ComputePool's LeaseQueue) and the waiter queue.
                frames = [l for l in section.splitlines() if re.match(r"\s+#\d+ ", l)][:14]
                for f in frames:
                    if WITHLOCK.search(f):
                        return True
                    if not (re.search(r"#\d+ \$s[sS]", f) or "5State" in f or PRIVATE_VALUE.search(f)
                            or HELD_VALUE.search(f)):
                        return False
                return False
            def in_initializer(section):
                # A write by one of the KNOWN_INITIALIZERS (mangled ...fc, or the allocating ...fC) as the first
                # frame, paired with accesses inside withLock bodies: the object's Mutex storage written before it
                # was published, then handed to another thread through a lock TSan cannot see. Named one by one,
                # so that any other initializer's write stays a real report.
                lines = section.splitlines()
                frames = [l for l in lines if re.match(r"\s+#\d+ ", l)]
                if not frames or not re.search(r"[Ww]rite of size|[Mm]odifying access", lines[0]):
                    return False
                first = re.match(r"\s+#0 (\$s\S*f[cC]) ", frames[0])
                return first is not None and any(k.match(first.group(1)) for k in KNOWN_INITIALIZERS)
            benign = (bool(sections) and all(inside_lock(s) or in_initializer(s) for s in sections)
                      and any(inside_lock(s) for s in sections))
        if benign:
            known += 1
        else:
            real.append((name, report))
print(f"== {len(real)} report(s); {known} known Mutex false positive(s) filtered", file=sys.stderr)
for name, report in real[:10]:
    print(f"--- {name}", file=sys.stderr)
    print("\n".join(report.splitlines()[:50]), file=sys.stderr)
sys.exit(1 if real else 0)
PY
}

run() { # run thread|address
    local sanitizer="$1" scratch logs status=0
    case "$sanitizer" in
    thread) scratch=.build-tsan ;;
    address) scratch=.build-asan ;;
    esac
    logs="$PWD/$scratch/sanitizer-logs"
    rm -rf "$logs"; mkdir -p "$logs"
    # Only the worker is built with the sanitizer: the end-to-end suites test the worker processes they spawn,
    # so the test runner is the regular debug build, pointed at the sanitized worker (PHOTOWORKER_TEST_BINARY).
    # A second, instrumented build of every test target would double this step's time for no report.
    echo "== $sanitizer sanitizer: building the worker ($scratch)" >&2
    rm -f "$scratch/debug/photoworker"
    # With full debug information: the known-false-positive filter reads each frame's closure, which only DWARF names
    # (the symbol table alone names the enclosing function; line tables alone name it unmangled).
    # ${WHOLE_MODULE_FLAGS}: scripts/test.sh's, compiling each module whole (less CPU from scratch).
    swift build --product photoworker --sanitize="$sanitizer" --scratch-path "$scratch" ${WHOLE_MODULE_FLAGS-} 2>&1 | grep -E "error|warning: data race|Compiling|Build complete" | grep -v "^\[" || true
    [ -x "$scratch/debug/photoworker" ] || { echo "build failed" >&2; return 1; }
    echo "== $sanitizer sanitizer: the test runner (regular debug build)" >&2
    # ${TEST_SWIFT_BUILD_FLAGS}: scripts/test.sh's build flags, so this finds its build instead of rebuilding.
    swift build --build-tests ${TEST_SWIFT_BUILD_FLAGS-} 2>&1 | grep -E "error|Build complete" || true
    echo "== $sanitizer sanitizer: swift test --filter '$filter'" >&2
    # halt_on_error=0 for TSan: keep going so one run shows every report; the log files decide.
    # exitcode=0: a report must not change the worker's exit status (tests check it); the logs decide.
    # PHOTOWORKER_TEST_TIME_SCALE stretches the tests' time guards: a sanitized debug worker runs its
    # pixel work 5-15x slower, and on 2 cores every suite runs at once (Tests/PhotoWorkerTestSupport/TestTiming.swift).
    # A factor the caller set for a busy machine (README) multiplies the sanitizer's 4 instead of replacing it.
    local machine_scale="${PHOTOWORKER_TEST_TIME_SCALE:-1}"
    [[ "$machine_scale" =~ ^[1-9][0-9]*$ ]] || machine_scale=1
    PHOTOWORKER_TEST_TIME_SCALE="$((machine_scale * 4))" \
    TSAN_OPTIONS="log_path=$logs/tsan:halt_on_error=0:exitcode=0:second_deadlock_stack=1${TSAN_OPTIONS:+:$TSAN_OPTIONS}" \
    ASAN_OPTIONS="log_path=$logs/asan:detect_leaks=0:halt_on_error=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
    PHOTOWORKER_TEST_BINARY="$PWD/$scratch/debug/photoworker" PHOTOWORKER_TEST_SANITIZER="$sanitizer" \
        swift test --skip-build ${TEST_SWIFT_BUILD_FLAGS-} --filter "$filter" \
        >"$scratch/sanitizer-test.log" 2>&1 || status=$?
    grep -E "✘|✔ Suite|Test run|error:|↳ [^/]" "$scratch/sanitizer-test.log" >&2 || true
    if ! verdict "$sanitizer" "$logs"; then return 1; fi
    if [ "$status" -ne 0 ]; then
        echo "== $sanitizer sanitizer: tests failed (exit $status); full log $scratch/sanitizer-test.log" >&2
        return "$status"
    fi
    echo "== $sanitizer sanitizer: passed" >&2
}

failed=0
case "$which" in
thread) run thread || failed=1 ;;
address) run address || failed=1 ;;
all) run thread || failed=1; run address || failed=1 ;;
esac
exit "$failed"
