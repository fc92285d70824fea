#!/usr/bin/env bash
# Builds the self-contained worker and the two packages that carry it, into dist/:
#   photoworker-<version>-py3-none-manylinux_2_<N>_x86_64.whl  the worker and the Python client; a `photoworker`
#                                                              command in the environment it is installed into
#   photoworker-<version>.tgz                                  the worker and the Node client (`npm pack`); a `bin`
#                                                              entry for `npx photoworker`
# How:
#   1. `swift build -c release --static-swift-stdlib`: the Swift runtime and Foundation inside the binary
#      (static FoundationNetworking needs libcurl at link time, hence -lcurl);
#   2. .build/package/worker/: the stripped binary, its resource bundles (OpenRPC document, samples, U²-Netp
#      weights, the face cascade), and every shared library it loads beyond the system's core ones, copied into lib/ with an
#      $ORIGIN-relative RUNPATH (what auditwheel repair does for a wheel), plus those libraries' Debian copyright
#      files, their Debian source packages (SOURCES.txt) and LICENSE in licenses/; checked with
#      scripts/package/check_licences.py (each library's licence covered by the packages' declared one,
#      scripts/package/LICENSE-EXPRESSION) and with ldd: nothing from the Swift toolchain, nothing outside the folder
#      but the core libraries;
#   3. the wheel (scripts/package/wheel.py, platform tag from the newest glibc symbol version any file needs) and
#      the npm tarball (clients/node plus the worker in vendor/).
# The version is the worker's own (`photoworker --version`, Worker.version): the one place it is set.
# Usage: scripts/package.sh [--skip-build | --build-only]   (--skip-build reuses the last build; --build-only stops
# after step 1). The build has its own scratch path, .build-package: its flags differ from a plain release build's,
# and sharing .build would rebuild both each time, and lock .build while the test command uses it.
set -euo pipefail
cd "$(dirname "$0")/.."

skip_build=0
build_only=0
case "${1:-}" in
    --skip-build) skip_build=1 ;;
    --build-only) build_only=1 ;;
    "") ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "usage: scripts/package.sh [--skip-build | --build-only]" >&2; exit 2 ;;
esac
scratch=.build-package

for tool in patchelf strip objdump ldd npm python3; do
    command -v "$tool" >/dev/null || { echo "package: $tool not found (scripts/test-env.sh installs it)" >&2; exit 1; }
done

if [ "$skip_build" = 0 ]; then
    # No debug information: the shipped binary is stripped of it anyway, and it is a quarter of this build's time.
    swift build --scratch-path "$scratch" -c release --static-swift-stdlib --product photoworker -Xlinker -lcurl \
        -debug-info-format none
fi
[ "$build_only" = 0 ] || exit 0
built="$scratch/release"
[ -x "$built/photoworker" ] || { echo "package: $built/photoworker is not built" >&2; exit 1; }

source scripts/package/closure.sh

stage="$PWD/.build/package"
worker="$stage/worker"
rm -rf "$stage"
mkdir -p "$worker/lib" "$worker/licenses"
cp "$built/photoworker" "$worker/photoworker"
strip --strip-unneeded "$worker/photoworker"
# Every resource bundle the product's build made (SwiftPM's <package>_<target>.resources; the worker finds them
# beside itself, Sources/BundledResources names them): this scratch path builds only photoworker, so these are
# exactly its targets' bundles, and a new target's travels without a list here to update.
bundles=("$built"/*.resources)
[ -d "${bundles[0]}" ] || { echo "package: no resource bundles in $built" >&2; exit 1; }
for bundle in "${bundles[@]}"; do
    cp -R "$bundle" "$worker/"
done
cp LICENSE THIRD_PARTY_NOTICES.md "$worker/licenses/"
# The protocol's guide beside the binary: `photoworker --help` names it, and a package user has no checkout.
cp protocol/README.md "$worker/PROTOCOL.md"

# FFmpeg as Debian builds it names about a hundred codec, protocol and hardware libraries (librsvg with cairo and
# glib, libcodec2, libx264, libva with X11, libxml2 with ICU, ...): 124 MB installed, which would take each package
# past 90 MB. The worker's decoders (H.264, HEVC, VP8, VP9 with libvpx), encoder (libvpx-vp9) and demuxers
# (MOV/MP4, Matroska/WebM) use only those below; every other library FFmpeg names gets a stand-in with its soname,
# versions and the symbols FFmpeg refers to (scripts/package/ffmpeg_stubs.py), and the rest of the worker's own
# dependencies stay real.
ffmpeg_real='^(libvpx|libwebp|libwebpmux|libsharpyuv|libdav1d|libaom|libx265|libbz2|liblzma|libz|libm|libc)\.so'
stubs="$stage/ffmpeg-stubs"
python3 scripts/package/ffmpeg_stubs.py "$stubs" "$built/photoworker" "$ffmpeg_real" > "$stage/ffmpeg-stubs.txt"
echo "package: $(wc -l < "$stage/ffmpeg-stubs.txt") libraries FFmpeg names but the worker never calls replaced by stand-ins"
# The Debian package (name:arch) that installed a library. dpkg knows a file by the path its package gave it: with
# /lib merged into /usr, ldd's /lib/x86_64-linux-gnu/libbz2.so.1.0 resolves to /usr/lib/..., but bookworm's
# libbz2-1.0 (like liblzma5, libcom-err2 and libkeyutils1) installed it under /lib.
owner() {
    local real candidate
    real="$(readlink -f "$1")"
    for candidate in "$1" "$real" "${real#/usr}" "/usr$real"; do
        dpkg -S "$candidate" 2>/dev/null | head -1 | cut -d' ' -f1 | sed 's/:$//' | grep . && return 0
    done
    return 0
}
# Where the corresponding source of each bundled library is: its package's Debian source package and version.
{
    echo "# The libraries in lib/, each with the Debian binary package it was copied from and that package's source"
    echo "# package and version: each library's corresponding source is that Debian source package (apt-get source"
    echo "# <source>=<version>, or https://snapshot.debian.org/package/<source>/<version>/, which keeps every version)."
    echo "# The other libraries in lib/ are this project's stand-ins for libraries FFmpeg names (MIT, see LICENSE)."
    printf '# library\tbinary package\tsource package\tsource version\n'
} > "$worker/licenses/SOURCES.txt"
# ldd lists the whole closure (the libraries' own dependencies too), resolved the way the loader would; with the
# stand-ins first on the search path, they take the place of the libraries they stand for.
LD_LIBRARY_PATH="$stubs" ldd "$worker/photoworker" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | while read -r soname path; do
    if [[ "$soname" =~ $system_policy ]]; then continue; fi
    cp -L "$path" "$worker/lib/$soname"
    chmod 0644 "$worker/lib/$soname"
    patchelf --set-rpath '$ORIGIN' "$worker/lib/$soname"
    case "$path" in "$stubs"/*) continue ;; esac  # the stand-ins are this project's, with no other licence
    owned_by="$(owner "$path")"
    package="${owned_by%%:*}"
    if [ -n "$package" ] && [ -f "/usr/share/doc/$package/copyright" ]; then
        cp "/usr/share/doc/$package/copyright" "$worker/licenses/$package.copyright"
    fi
    printf '%s\t%s\t%s\n' "$soname" "${package:--}" \
        "$([ -z "$owned_by" ] || dpkg-query -W -f '${source:Package}\t${source:Version}' "$owned_by")" \
        >> "$worker/licenses/SOURCES.txt"
done
# Every library's licence must be one the packages' declared licence (scripts/package/LICENSE-EXPRESSION, which the
# wheel's metadata and package.json state) covers, by scripts/package/licences.tsv, with its copyright file here.
python3 scripts/package/check_licences.py "$worker" --stubs "$stage/ffmpeg-stubs.txt"
patchelf --set-rpath '$ORIGIN/lib' "$worker/photoworker"

# Every dependency must now resolve inside the folder or to a system library, and none to the toolchain.
outside="$(loads_outside "$worker/photoworker" "$worker")"
if [ -n "$outside" ]; then
    echo "package: the staged worker still loads from outside its folder:" >&2
    echo "$outside" >&2
    exit 1
fi

version="$(env -i "$worker/photoworker" --version)"
# The newest GLIBC_2.N symbol version any file needs is the oldest glibc it runs on: the wheel's manylinux tag.
glibc_minor="$( { objdump -T "$worker/photoworker"; for lib in "$worker"/lib/*; do objdump -T "$lib"; done; } \
    | grep -o 'GLIBC_2\.[0-9]*' | sed 's/GLIBC_2\.//' | sort -n | tail -1)"
platform="manylinux_2_${glibc_minor}_x86_64"

mkdir -p dist
rm -f dist/photoworker-*.whl dist/photoworker-*.tgz
python3 scripts/package/wheel.py --version "$version" --platform "$platform" \
    --client clients/python/photoworker_client --worker "$worker" --readme clients/python/README.md --out dist

npm_stage="$stage/npm"
mkdir -p "$npm_stage"
cp -R clients/node/index.js clients/node/src clients/node/bin clients/node/README.md "$npm_stage/"
cp -R "$worker" "$npm_stage/vendor"
python3 scripts/package/npm_manifest.py --version "$version" --template clients/node/package.json \
    > "$npm_stage/package.json"
npm pack --silent --pack-destination "$PWD/dist" "$npm_stage" >/dev/null

echo "package: photoworker $version, glibc >= 2.$glibc_minor"
ls -l dist/ | awk 'NR > 1 {printf "  %s  %.1f MB\n", $9, $5 / 1048576}'
