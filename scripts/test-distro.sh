#!/usr/bin/env bash
# Proves README's set-up on a bare distribution: a fresh minimal root made with Debian's own debootstrap, given only
# the Swift toolchain this machine has and what swift.org says that toolchain needs, then
#   1. README's first command, as written (extracted from README.md), from a copy of this checkout's files: it must
#      install what the build needs, build, and run the demo; the demo's stickers and pack sheet are then checked;
#   2. scripts/check-shims.sh: every C shim against this distribution's headers, deprecations as errors;
#   3. the Swift test suite (what its build adds, scripts/test-deps/debian-swift.txt, installed first), built as
#      scripts/test.sh builds it;
#   4. with a wheel (--wheel, else the newest dist/photoworker-*.whl if any): installed into a venv there, and the
#      README's Python example run under `env -i`, against the worker inside the wheel.
# Usage: scripts/test-distro.sh debian-12|debian-13 [--no-tests] [--no-wheel] [--wheel PATH] [--keep] [--bench] [--package]
#   --no-tests   stop after steps 1 and 2 (what to run after editing README's set-up or a shim)
#   --bench      then bench/README.md's per-distribution figures: decode speed against Pillow on the files
#                bench/formats_bench.py made here (bench/out/formats/: run `--suite decode` once first)
#   --package    then scripts/package.sh there: the packages as that distribution's libraries make them
#   --keep       leave the root in .build/distro/NAME for a look (it is removed at the next run)
# Root only (debootstrap, chroot, mounts). Everything is mounted inside a private mount and PID namespace (unshare):
# when the script ends, however it ends, its processes there die and the mounts vanish with them; the root is then
# removed, never while the host shows anything mounted in it. The toolchain, /opt/swift-packages (the Swift
# packages' copies that git here reads for github.com) and SwiftPM's caches are bound read-only. The mirror is the one
# apt already uses here. Each step's output goes to .build/distro/NAME.log, its tail printed when a step fails.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"

# All of it in one function, called on the last line: bash has then read the whole script before running any of it,
# so editing this file while a run goes on (each takes minutes) cannot change what that run does.
main() {

usage() {
    echo "usage: scripts/test-distro.sh debian-12|debian-13 [--no-tests] [--no-wheel] [--wheel PATH] [--keep] [--bench] [--package]" >&2
    exit 2
}

# The part that runs inside the namespaces: `test-distro.sh --inside NAME SUITE ROOT MIRROR TOOLCHAIN TESTS WHEEL`.
if [ "${1:-}" = --inside ]; then
    name="$2" suite="$3" root="$4" mirror="$5" toolchain="$6" tests="$7" wheel="$8" bench="$9" package="${10}"
    log="$repo/.build/distro/$name.log"
    step_start=$SECONDS
    steps=0
    say() { echo "== distro $name ($((SECONDS - step_start)) s): $*"; }
    run() { # run DESCRIPTION COMMAND...: its output to the log; on failure the log's tail and exit
        local description="$1"; shift
        say "$description"
        if ! "$@" >>"$log" 2>&1; then
            echo "test-distro: $name: $description failed; the end of $log:" >&2
            tail -n 60 "$log" >&2
            echo "distro $name: $steps passed, 1 failed"
            exit 1
        fi
        steps=$((steps + 1))
    }
    inside() { # inside SCRIPT: a login-less bash in the root, with a clean environment and the toolchain on PATH
        chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
            PATH="$toolchain/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
            /bin/bash -euo pipefail -c "$1"
    }
    install() { # install DESCRIPTION PACKAGE...: Debian packages into the root
        local description="$1"; shift
        run "$description" inside "DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $*"
    }
    mount --make-rprivate /

    run "debootstrap --variant=minbase $suite from $mirror" debootstrap --variant=minbase "$suite" "$root" "$mirror"
    mount -t proc proc "$root/proc"
    mount --rbind /dev "$root/dev"  # with /dev/pts: the tests open pseudo-terminals
    mount -t tmpfs tmpfs "$root/tmp"
    bind_read_only() { # bind_read_only HOST_PATH [PATH_IN_ROOT]: by default the same path inside the root
        local target="$root${2:-$1}"
        mkdir -p "$target"
        mount --bind "$1" "$target"
        mount -o remount,bind,ro "$target"
    }
    bind_read_only "$(dirname "$toolchain")"
    [ ! -d /opt/swift-packages ] || bind_read_only /opt/swift-packages
    for cache in "$HOME/.cache/org.swift.swiftpm" "$HOME/.swiftpm"; do
        [ ! -d "$cache" ] || bind_read_only "$cache" "/root/${cache#"$HOME"/}"
    done
    cp /etc/resolv.conf "$root/etc/resolv.conf"
    # How git here finds the Swift packages (url.*.insteadOf): the same in the root.
    { git config --system --get-regexp '^url\.' || true; } | while read -r key value; do
        git config --file "$root/etc/gitconfig" --add "$key" "$value"
    done
    mkdir -p "$root/src/photoworker"
    git -C "$repo" ls-files -z --cached --others --exclude-standard \
        | (cd "$repo" && tar --null -T - -cf -) | tar -xf - -C "$root/src/photoworker"

    # What swift.org lists for a Swift toolchain on Debian (the toolchain's own needs, not this project's; libcurl's
    # headers, which swift.org lists too, are left to the project's list, so that a list without them fails here).
    case "$suite" in
        bookworm) cxx=libstdc++-12-dev ;;
        *) cxx=libstdc++-14-dev ;;
    esac
    run "the package lists" inside "apt-get update -qq"
    install "Swift's own prerequisites" binutils gcc git libc6-dev $cxx libedit2 libsqlite3-0 libncurses-dev \
        libpython3-dev libxml2-dev pkg-config tzdata uuid-dev zlib1g-dev

    # README's first command: the first sh block under "## Try it", run as written.
    command="$(python3 - "$root/src/photoworker/README.md" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
section = text.split("\n## Try it", 1)[1].split("\n## ", 1)[0]
print(re.search(r"^```sh\n(.*?)^```", section, re.S | re.M).group(1), end="")
PY
)"
    echo "$command" | sed 's/^/     $ /'
    run "README's first command" inside "cd /src/photoworker && $command"
    run "the demo's results" inside '
        cd /src/photoworker
        stickers=$(ls photoworker-demo/*-sticker.png | wc -l)
        [ "$stickers" -ge 6 ] || { echo "the demo made $stickers stickers, not 6"; exit 1; }
        for file in pack-sheet.png chosen-subject.png animated-sticker.webm; do
            [ -s "photoworker-demo/$file" ] || { echo "the demo wrote no $file"; exit 1; }
        done
        info=$(.build/release/photoworker call image.info "{\"source\":{\"path\":\"photoworker-demo/pack-sheet.png\"}}")
        echo "$info"
        echo "$info" | grep -q "\"format\" *: *\"png\"" || { echo "the sheet is not a PNG the worker reads"; exit 1; }
        palette=$(.build/release/photoworker call image.palette \
            "{\"source\":{\"path\":\"photoworker-demo/pack-sheet.png\"},\"count\":5}")
        echo "$palette"
        [ "$(echo "$palette" | grep -o "\"hex\"" | wc -l)" -ge 3 ] || { echo "the sheet has fewer than 3 colours"; exit 1; }'
    run "the C shims against $suite's headers" inside "cd /src/photoworker && bash scripts/check-shims.sh"
    grep -h '^check-shims:' "$log" | tail -1 || true

    if [ "$tests" = 1 ]; then
        install "what the Swift suite's build adds" $(sed -e 's/#.*//' "$root/src/photoworker/scripts/test-deps/debian-swift.txt")
        # As scripts/test.sh builds and runs it (TEST_SWIFT_BUILD_FLAGS there).
        flags='--scratch-path .build-test -debug-info-format none -Xswiftc -wmo -Xswiftc -num-threads -Xswiftc $(nproc)'
        run "the Swift test suite's build" inside "cd /src/photoworker && swift build --build-tests $flags"
        run "the Swift test suite" inside "cd /src/photoworker && swift test --skip-build $flags"
        grep -E 'Test run with [0-9]+ tests|^Executed [0-9]+ tests' "$log" | tail -2 || true
    fi

    if [ -n "$wheel" ]; then
        cp "$wheel" "$root/tmp/"
        install "Python and a venv" python3 python3-venv
        run "the wheel, $(basename "$wheel"), into a venv" inside "python3 -m venv /opt/venv
            /opt/venv/bin/pip install --quiet --no-index --disable-pip-version-check /tmp/$(basename "$wheel")"
        python3 - "$root/src/photoworker/README.md" > "$root/tmp/example.py" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
print(re.search(r"^```python\n(.*?)^```", text, re.S | re.M).group(1), end="")
PY
        run "README's Python example under env -i, from the wheel alone" inside "
            mkdir /tmp/example && cd /tmp/example && cp /src/photoworker/corpus/photos/rocket.jpg photo.jpg
            env -i /opt/venv/bin/python3 /tmp/example.py | tee /tmp/example.out
            grep -q '^sticker: ' /tmp/example.out"
        sed 's/^/     /' "$root/tmp/example.out"
    fi
    if [ "$bench" = 1 ]; then
        # bench/README.md's per-distribution figures: the decoders' speed against Pillow's wheels on the same files
        # (made on the host by bench/formats_bench.py, so every distribution decodes the same bytes), and the size
        # of the packages scripts/package.sh builds from this distribution's libraries.
        mkdir -p "$root/tmp/formats"
        cp "$repo"/bench/out/formats/pic* "$root/tmp/formats/"
        # PyPI through the certificates this machine trusts (where HTTPS passes through a proxy of its own).
        cp /etc/ssl/certs/ca-certificates.crt "$root/tmp/host-certificates.crt"
        install "the benchmarks' tools" python3 python3-venv libopenblas-dev
        run "Pillow and pillow-heif" inside "python3 -m venv /opt/bench-venv
            /opt/bench-venv/bin/pip install --quiet --disable-pip-version-check --cert /tmp/host-certificates.crt \\
                Pillow pillow-heif"
        run "photobench" inside "cd /src/photoworker && swift build -c release --product photobench"
        run "decode against Pillow" inside "cd /src/photoworker
            dpkg-query -W libheif1 libde265-0 'libdav1d*' libgif7 libwebp7 'libpng16-16*' libjpeg62-turbo 'libavcodec[0-9]*'
            /opt/bench-venv/bin/python3 -c 'import PIL, pillow_heif; print(\"Pillow\", PIL.__version__, \"pillow-heif\", pillow_heif.__version__)'
            for round in 1 2; do
                PATH=/opt/bench-venv/bin:\$PATH .build/release/photobench decode --iterations 7 --files \
                    /tmp/formats/pic.jpg /tmp/formats/pic.png /tmp/formats/pic-lossy.webp /tmp/formats/pic-lossless.webp \
                    /tmp/formats/pic.gif /tmp/formats/pic.heic /tmp/formats/pic.avif
            done 2>&1 | tee /tmp/decode.txt"
        echo "-- decode (photobench decode --files, best of 7, two rounds):"
        cat "$root/tmp/decode.txt"
    fi
    if [ "$package" = 1 ]; then
        install "the packages' tools" python3 patchelf npm file
        run "the packages, built here" inside "cd /src/photoworker && bash scripts/package.sh 2>&1 | tee /tmp/package.txt"
        echo "-- packages:"
        grep -E '^(package|check_licences):|MB$' "$root/tmp/package.txt" || true
    fi
    say "passed"
    echo "distro $name: $steps passed, 0 failed"
    exit 0
fi

[ $# -ge 1 ] || usage
name="$1"; shift
case "$name" in
    debian-12) suite=bookworm ;;
    debian-13) suite=trixie ;;
    *) usage ;;
esac
tests=1 keep=0 wheel="" use_wheel=1 bench=0 package=0
while [ $# -gt 0 ]; do
    case "$1" in
        --no-tests) tests=0 ;;
        --no-wheel) use_wheel=0 ;;
        --keep) keep=1 ;;
        --bench) bench=1 ;;
        --package) package=1 ;;
        --wheel) [ $# -ge 2 ] || usage; wheel="$(readlink -f "$2")"; shift ;;
        *) usage ;;
    esac
    shift
done
[ "$(id -u)" = 0 ] || { echo "test-distro: needs root (debootstrap, chroot and mounts)" >&2; exit 1; }
if [ "$use_wheel" = 0 ]; then
    wheel=""
elif [ -z "$wheel" ]; then
    wheel="$(ls -t dist/photoworker-*.whl 2>/dev/null | head -1 || true)"
    [ -z "$wheel" ] || wheel="$(readlink -f "$wheel")"
fi
[ -z "$wheel" ] || [ -f "$wheel" ] || { echo "test-distro: no wheel at $wheel" >&2; exit 1; }
command -v debootstrap >/dev/null || {
    echo "== test-distro: installing debootstrap"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap
}
command -v swift >/dev/null || { echo "test-distro: no swift on PATH" >&2; exit 1; }
# The toolchain's usr/, from where its runtime is (a `swift` on PATH may be a link or swiftly's proxy).
toolchain="$(swift -print-target-info | python3 -c 'import json, sys; print(json.load(sys.stdin)["paths"]["runtimeResourcePath"])')"
toolchain="$(dirname "$(dirname "$(readlink -f "$toolchain")")")"
if [ "$(dirname "$toolchain")" = / ] || [ ! -x "$toolchain/bin/swift" ]; then
    echo "test-distro: the toolchain ($toolchain) is not in a folder of its own, which a root can be given read-only" >&2
    echo "test-distro: (a swift.org tarball unpacked in e.g. /opt/swift, or one that swiftly installed)" >&2
    exit 1
fi
# The mirror apt uses here for Debian itself (deb822 or one-line sources), else Debian's own.
mirror="$(grep -rhoE '(URIs:[[:space:]]*|^deb[[:space:]]+)(\[[^]]*\][[:space:]]*)?[a-z]+://[^[:space:]]*/debian/?([[:space:]]|$)' \
    /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null | grep -oE '[a-z]+://[^[:space:]]*' | head -1 || true)"
mirror="${mirror:-http://deb.debian.org/debian}"

root="$repo/.build/distro/$name"
# The script's own mounts live in its private namespace and vanish with it; this sees what someone mounted in the root
# from outside (by hand, or a run of an older script), which a removal would go through.
mounted_in_root() { grep -F " $root" /proc/self/mountinfo | awk -v r="$root" '$5 == r || index($5, r "/") == 1' || true; }
# Processes whose root is the root's: the namespace's take a moment to die after its first process.
running_in_root() {
    local link
    for link in /proc/[0-9]*/root; do
        [ "$(readlink "$link" 2>/dev/null)" != "$root" ] || echo "${link%/root}"
    done
}
remove_root() {
    local mounts waited=0
    while [ -n "$(running_in_root)" ] && [ "$waited" -lt 20 ]; do sleep 0.5; waited=$((waited + 1)); done
    if [ -n "$(running_in_root)" ]; then
        echo "test-distro: not removing $root: processes still run in it: $(running_in_root | tr '\n' ' ')" >&2
        return 1
    fi
    mounts="$(mounted_in_root)"
    if [ -n "$mounts" ]; then
        echo "test-distro: not removing $root: something is still mounted in it:" >&2
        echo "$mounts" >&2
        return 1
    fi
    rm -rf "$root"
}
mkdir -p "$repo/.build/distro"
remove_root
: > "$repo/.build/distro/$name.log"

child=""
finish() {
    local status=$?
    trap - EXIT INT TERM
    # The namespace's first process takes every other one there with it, and the mounts with them.
    [ -z "$child" ] || { kill -KILL "$child" 2>/dev/null || true; wait "$child" 2>/dev/null || true; }
    if [ "$keep" = 1 ]; then
        echo "test-distro: the root is kept in $root"
    else
        remove_root || status=1
    fi
    exit "$status"
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
echo "== test-distro: $name ($suite) in $root, mirror $mirror, toolchain $toolchain${wheel:+, wheel $(basename "$wheel")}"
unshare --mount --pid --fork --kill-child --propagation private -- \
    bash "$repo/scripts/test-distro.sh" --inside "$name" "$suite" "$root" "$mirror" "$toolchain" "$tests" "$wheel" "$bench" "$package" &
child=$!
status=0
wait "$child" || status=$?
child=""
exit "$status"
}

main "$@"; exit
