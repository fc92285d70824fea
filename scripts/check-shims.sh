#!/usr/bin/env bash
# Compiles every C shim (Sources/CCodecs, CCurl, CSyscalls, CKernels, and the tests' Tests/CWebMInspection) against this machine's library headers with
# deprecations and incompatible pointers as errors: the check that the shims use only API that this
# distribution's FFmpeg, libheif, libwebp, libpng, giflib, lcms2, libjpeg and libcurl have, undeprecated. A plain
# build only warns on a deprecation, so an API a newer release removes would otherwise be found by its users.
# scripts/test.sh runs it here; scripts/test-distro.sh runs it in fresh Debian 12 and 13 roots.
# Usage: scripts/check-shims.sh   (uses $CC, else the Swift toolchain's clang, else cc)
set -euo pipefail
cd "$(dirname "$0")/.."
cc="${CC:-$(command -v clang || command -v cc)}"
# clang names function-pointer mismatches apart from other pointer mismatches; gcc counts them among those.
flags=(-Werror=incompatible-pointer-types)
if "$cc" --version 2>/dev/null | grep -q clang; then flags+=(-Werror=incompatible-function-pointer-types); fi
failed=0
count=0
# The worker's C targets, and the tests' (Tests/CWebMInspection reads WebMs back through FFmpeg).
for target in Sources/CCodecs Sources/CCurl Sources/CSyscalls Sources/CKernels Tests/CWebMInspection; do
    for source in "$target"/*.c; do
        count=$((count + 1))
        if ! "$cc" -std=gnu11 -fsyntax-only -I "$target/include" -I "$target" -I Sources/CCodecs/include \
                -Werror=deprecated-declarations "${flags[@]}" -Werror=implicit-function-declaration \
                -Werror=int-conversion "$source"; then
            echo "check-shims: $source does not compile cleanly against this machine's headers" >&2
            failed=1
        fi
    done
done
[ "$failed" = 0 ] || exit 1
echo "check-shims: $count C files compile against $(. /etc/os-release && echo "$PRETTY_NAME")'s headers without a deprecation"
