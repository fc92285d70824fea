#!/usr/bin/env bash
# README's first command: sets up a fresh Debian (12 or 13) machine that has Swift 6 to build the worker,
# builds it and runs it on a real job:
#   1. the Debian packages in scripts/deps/debian-build.txt, and only those: installed with apt-get when run as
#      root, else with sudo when that works without a password, else the script prints the line to run and stops;
#   2. `swift build -c release --product photoworker` (the worker alone: the benchmarks' OpenBLAS peer is the tests');
#   3. `.build/release/photoworker demo`: stickers, gradients, a pack sheet, a chosen subject and an animated
#      sticker, written to the checkout's photoworker-demo/ (or DIR, relative to where you are).
# Usage: bash scripts/setup.sh [--no-demo] [DIR]
# scripts/test-distro.sh runs it as written in fresh Debian 12 and 13 roots.
set -euo pipefail
demo=1
out=photoworker-demo  # in the checkout
for arg in "$@"; do
    case "$arg" in
        --no-demo) demo=0 ;;
        -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
        -*) echo "usage: bash scripts/setup.sh [--no-demo] [DIR]" >&2; exit 2 ;;
        /*) out="$arg" ;;
        *) out="$PWD/$arg" ;;  # where the caller is, not the checkout
    esac
done
cd "$(dirname "$0")/.."

command -v swift >/dev/null || {
    echo "setup: swift is not on PATH; install a Swift 6 toolchain first (swift.org/install/linux) and try again" >&2
    exit 1
}
packages=($(sed -e 's/#.*//' scripts/deps/debian-build.txt))
missing=()
for package in "${packages[@]}"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ]; then
        sudo=()
    elif sudo -n true 2>/dev/null; then
        sudo=(sudo)
    else
        echo "setup: missing Debian packages; run this, then setup again:" >&2
        echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
        exit 1
    fi
    echo "== setup: installing ${missing[*]}"
    "${sudo[@]}" apt-get update -qq
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

echo "== setup: swift build -c release --product photoworker"
swift build -c release --product photoworker
[ "$demo" = 1 ] || exit 0
echo "== setup: .build/release/photoworker demo --out $out"
.build/release/photoworker demo --out "$out"
