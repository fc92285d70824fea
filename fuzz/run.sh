#!/usr/bin/env bash
# Builds and runs one libFuzzer target (or all of them) for a bounded time.
#   fuzz/run.sh decoder|png|jpeg|webp|gif|heif|gif-motion|webp-motion|video SECONDS     one target
#   fuzz/run.sh all SECONDS                  each target for SECONDS (CI: all 60)
#   fuzz/run.sh build                        only build
# FUZZ_OPT: the Swift optimisation level, -O (default: the most executions a second) or -Onone (the test command's
# smoke run: half the build's CPU time, a sixth to three quarters of the executions a second).
# Builds go to fuzz/.build/<O|Onone> (not committed); corpora grow in fuzz/.corpus/<target>, seeded from
# the project's corpus/ and fuzz/seeds. Crashes are written to fuzz/.crashes/<target>/ and make the
# script fail. See fuzz/README.md.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
corpus_root="$root/corpus"
opt="${FUZZ_OPT:--O}"
case "$opt" in -O|-Onone) ;; *) echo "FUZZ_OPT must be -O or -Onone (got $opt)" >&2; exit 2 ;; esac
out="$here/.build/${opt#-}"
swiftc="${SWIFTC:-$(command -v swiftc)}"
clang="${CLANG:-$(dirname "$swiftc")/clang}"
jobs="${FUZZ_JOBS:-1}"
mkdir -p "$out"

# gold warns about every ASan asm helper when swiftc links with -sanitize=fuzzer; it is noise.
quiet_link() { "$@" 2> >(grep -v "Cannot export local symbol" >&2); }

swift_flags=(-swift-version 6 "$opt" -g -parse-as-library -sanitize=fuzzer,address
    -enable-upcoming-feature ExistentialAny -enable-upcoming-feature NonisolatedNonsendingByDefault
    -enable-upcoming-feature InferIsolatedConformances)

# Rebuild only when a source changed (keeps `all` inside the CI budget on a warm cache).
stale() { # stale OUTPUT INPUT...
    local o="$1"; shift
    [ -e "$o" ] || return 0
    for f in "$@"; do [ "$f" -nt "$o" ] && return 0; done
    return 1
}

build_decoder() {
    local srcs=("$root"/Sources/JSONRPCTransport/{FrameEvent,LineFramer,ContentLengthFramer,InputFramer,MessageFraming,JSONParser,JSONValue,JSONWriter,IncomingMessage,RequestID,RPCError,ErrorCode,RawJSON}.swift
        "$here/targets/MessageDecoderFuzz.swift")
    stale "$out/decoder" "${srcs[@]}" || return 0
    echo "building decoder" >&2
    quiet_link "$swiftc" "${swift_flags[@]}" -module-name JSONRPCTransport -package-name PhotoWorker "${srcs[@]}" -o "$out/decoder"
}

build_c_target() { # build_c_target CCodecs|CKernels HEADER: the C target as a static library with its module map
    local name="$1" header="$2" dir="$out/$(echo "$1" | tr '[:upper:]' '[:lower:]')"
    local srcs=("$root/Sources/$name"/*.c "$root/Sources/$name"/*.h "$root/Sources/$name/include"/*.h)
    mkdir -p "$dir"
    stale "$dir/lib.a" "${srcs[@]}" || return 0
    echo "building $name (clang, ASan + coverage)" >&2
    local objs=()
    for c in "$root/Sources/$name"/*.c; do
        local o="$dir/$(basename "$c" .c).o"
        "$clang" -O1 -g -ffp-contract=off -fsanitize=fuzzer-no-link,address -I "$root/Sources/$name/include" \
            -c "$c" -o "$o"
        objs+=("$o")
    done
    rm -f "$dir/lib.a"
    ar rcs "$dir/lib.a" "${objs[@]}"
    cat > "$dir/module.modulemap" <<MAP
module $name {
    header "$root/Sources/$name/include/$header"
    export *
}
MAP
}

build_swift_library() { # build_swift_library NAME DEPENDENCY...: a Swift target of Sources/ as an instrumented static
    # library with its module, in $out/<name>, over the libraries of its (already built) Swift and C dependencies
    local name="$1"; shift
    local dir="$out/$(echo "$name" | tr '[:upper:]' '[:lower:]')" includes=() inputs=() srcs=()
    for dep in "$@"; do
        local d="$out/$(echo "$dep" | tr '[:upper:]' '[:lower:]')"
        includes+=(-I "$d"); inputs+=("$d"/*.a)
    done
    while IFS= read -r f; do srcs+=("$f"); done < <(find "$root/Sources/$name" -name '*.swift' | sort)
    mkdir -p "$dir"
    stale "$dir/lib$name.a" "${srcs[@]}" "${inputs[@]}" || return 0
    echo "building $name (ASan + coverage)" >&2
    "$swiftc" "${swift_flags[@]}" -module-name "$name" -package-name PhotoWorker "${includes[@]}" -emit-library -static \
        -emit-module -emit-module-path "$dir/$name.swiftmodule" "${srcs[@]}" -o "$dir/lib$name.a"
}

build_imaging() { # the Imaging module and what it imports, instrumented once and shared by the image and motion targets
    build_c_target CCodecs CCodecs.h
    build_c_target CKernels ck_kernels.h
    build_c_target CSyscalls CSyscalls.h
    build_swift_library Waiting
    build_swift_library Compute Waiting CSyscalls
    build_swift_library BundledResources
    build_swift_library Imaging Compute Waiting CSyscalls CCodecs CKernels BundledResources
}

# What a target over Imaging is given: the modules' folders, and the libraries in link order.
imaging_includes=(-I "$out/imaging" -I "$out/compute" -I "$out/waiting" -I "$out/bundledresources" -I "$out/ccodecs"
    -I "$out/ckernels" -I "$out/csyscalls")
imaging_libs=("$out/imaging/libImaging.a" "$out/compute/libCompute.a" "$out/waiting/libWaiting.a"
    "$out/bundledresources/libBundledResources.a" "$out/ccodecs/lib.a" "$out/ckernels/lib.a" "$out/csyscalls/lib.a")

# The system codec libraries the shim links (FFmpeg's for cc_video.c), as Package.swift lists them.
codec_libs=(-lpng16 -ldeflate -lz -ljpeg -lwebp -lwebpdemux -lgif -lheif -llcms2 -lavformat -lavcodec -lswscale -lavutil)

build_image() { # build_image png|jpeg|webp|gif|heif
    local name="$1" define=()
    case "$name" in
    jpeg) define=(-D FUZZ_JPEG) ;;
    webp) define=(-D FUZZ_WEBP) ;;
    gif) define=(-D FUZZ_GIF) ;;
    heif) define=(-D FUZZ_HEIF) ;;
    esac
    build_imaging
    stale "$out/$name" "$here/targets/ImageDecoderFuzz.swift" "${imaging_libs[@]}" || return 0
    echo "building $name" >&2
    quiet_link "$swiftc" "${swift_flags[@]}" "${define[@]}" -module-name ${name}fuzz "${imaging_includes[@]}" \
        "$here/targets/ImageDecoderFuzz.swift" "${imaging_libs[@]}" "${codec_libs[@]}" -o "$out/$name"
}

build_motion() { # build_motion gif-motion|webp-motion|video
    local name="$1" define=()
    case "$name" in
    webp-motion) define=(-D FUZZ_MOTION_WEBP) ;;
    video) define=(-D FUZZ_MOTION_VIDEO) ;;
    esac
    build_imaging
    stale "$out/$name" "$here/targets/MotionDecoderFuzz.swift" "${imaging_libs[@]}" || return 0
    echo "building $name" >&2
    quiet_link "$swiftc" "${swift_flags[@]}" "${define[@]}" -module-name motionfuzz "${imaging_includes[@]}" \
        "$here/targets/MotionDecoderFuzz.swift" "${imaging_libs[@]}" "${codec_libs[@]}" -o "$out/$name"
}

seed() { # seed TARGET -> prints the corpus directory
    local t="$1" dir="$here/.corpus/$1"
    mkdir -p "$dir"
    if [ -z "$(ls -A "$dir")" ]; then
        case "$t" in
        decoder) cp "$here"/seeds/decoder/* "$dir"/ ;;
        png) find "$corpus_root" -name '*.png' -size -200k -exec cp {} "$dir"/ \; ;;
        jpeg) find "$corpus_root" -name '*.jpg' -size -200k -exec cp {} "$dir"/ \; ;;
        webp) find "$corpus_root/formats" -name '*.webp' -size -200k -exec cp {} "$dir"/ \; ;;
        gif) find "$corpus_root/formats" -name '*.gif' -size -200k -exec cp {} "$dir"/ \; ;;
        heif) find "$corpus_root/formats" \( -name '*.heic' -o -name '*.avif' \) -size -200k -exec cp {} "$dir"/ \; ;;
        gif-motion) find "$corpus_root/motion" "$corpus_root/formats" -name '*.gif' -size -200k -exec cp {} "$dir"/ \; ;;
        webp-motion) find "$corpus_root/motion" "$corpus_root/formats" -name '*.webp' -size -200k -exec cp {} "$dir"/ \; ;;
        video) find "$corpus_root/motion" \( -name '*.mp4' -o -name '*.mov' -o -name '*.webm' \) -size -200k -exec cp {} "$dir"/ \; ;;
        esac
    fi
    echo "$dir"
}

run() { # run TARGET SECONDS
    local t="$1" secs="$2"
    case "$t" in
    decoder) build_decoder ;;
    png|jpeg|webp|gif|heif) build_image "$t" ;;
    gif-motion|webp-motion|video) build_motion "$t" ;;
    *) echo "unknown target $t (decoder, png, jpeg, webp, gif, heif, gif-motion, webp-motion, video, all)" >&2; exit 2 ;;
    esac
    local corpus crashes="$here/.crashes/$t" dict=()
    corpus="$(seed "$t")"
    mkdir -p "$crashes"
    [ -f "$here/dict/$t.dict" ] && dict=(-dict="$here/dict/$t.dict")
    echo "== fuzzing $t for ${secs}s (corpus $corpus)" >&2
    local log="$out/$t.log" status=0 parallel=()
    # -jobs makes libFuzzer fork workers that log to fuzz-N.log in the current directory.
    [ "$jobs" -gt 1 ] && parallel=(-jobs="$jobs" -workers="$jobs")
    # -rss_limit_mb: a decoder that allocates more than this on a 1 Mpx limit is a finding.
    (cd "$out" && ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1}" \
    "$out/$t" "$corpus" "${dict[@]}" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
        -max_len=262144 "${parallel[@]}" -print_final_stats=1 \
        -artifact_prefix="$crashes/") >"$log" 2>&1 || status=$?
    grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|#[0-9]+.*DONE)' "$log" | sed "s/^/[$t] /" >&2 || true
    if [ "$status" -ne 0 ]; then
        echo "[$t] FAILED (exit $status); last lines of $log:" >&2
        tail -40 "$log" >&2
        return 1
    fi
}

# The two independent compiles (JSONRPCTransport subset, Imaging) run side by side: one per core.
build_all() {
    local pid status=0
    build_decoder & pid=$!
    build_imaging || status=1
    wait "$pid" || status=1
    [ "$status" -eq 0 ] || { echo "fuzz build failed" >&2; exit 1; }
    for t in png jpeg webp gif heif; do build_image "$t"; done
    for t in gif-motion webp-motion video; do build_motion "$t"; done
}

target="${1:-}"; secs="${2:-60}"
case "$target" in
build) build_all ;;
all)
    build_all
    failed=0
    for t in decoder png jpeg webp gif heif gif-motion webp-motion video; do run "$t" "$secs" || failed=1; done
    exit "$failed" ;;
"") echo "usage: fuzz/run.sh decoder|png|jpeg|webp|gif|heif|gif-motion|webp-motion|video|all|build [SECONDS]" >&2; exit 2 ;;
*) run "$target" "$secs" ;;
esac
