#!/usr/bin/env bash
# Builds the packages (scripts/package.sh) and installs them as their users would, then drives the installed worker
# with the checkout, the build folder and the Swift toolchain out of reach:
#   - the wheel into a fresh venv (with the MCP SDK from PyPI), the npm tarball into a fresh folder, both outside
#     the repository;
#   - then, in a private mount namespace with an empty tmpfs over the checkout and over the toolchain, and an
#     environment of `env -i` with PATH=/usr/bin:/bin: scripts/package/check_installed.py (the `photoworker`
#     command, `demo`, a palette, a sticker that must say "segmenter": "network", a batch cancelled mid-way, the MCP
#     SDK listing and calling a tool), scripts/package/check_installed.mjs (the Node client and `bin` entry), the
#     READMEs' python, js and sh examples as written (protocol/tools/examples.py --installed), `call | true` through
#     both packages' commands under both SIGPIPE dispositions, and the package-runner forms an MCP host uses
#     (`uvx --from <wheel>`, `npx --package <tarball>`), offline;
#   - ldd of each installed worker (every library found, none outside the package but the core ones) and the
#     package sizes (a bound, so growth is noticed).
# Needs root (or unprivileged user namespaces) for the mount namespace.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"

for tool in npm unshare; do
    command -v "$tool" >/dev/null || { echo "test-package: $tool not found (scripts/test-env.sh installs npm as root)" >&2; exit 1; }
done
# The licence check package.sh ends its staging with (scripts/package/check_licences.py), on fake workers: no build.
python3 -m pytest -q -p no:cacheprovider scripts/package/test_check_licences.py
bash scripts/package.sh "$@"
version="$(.build/package/worker/photoworker --version)"
wheel="$(ls dist/photoworker-"$version"-py3-none-manylinux_*_x86_64.whl)"
tarball="dist/photoworker-$version.tgz"

# Each package must stay under this size (MB, issue #44's bound); mostly the binary (the Swift runtime), x265 and
# libavcodec.
max_mb=80
for file in "$wheel" "$tarball"; do
    mb=$(( $(stat -c %s "$file") / 1048576 ))
    echo "package size: $(basename "$file") $mb MB (limit $max_mb)"
    [ "$mb" -le "$max_mb" ] || { echo "test-package: $file is over $max_mb MB" >&2; exit 1; }
done

# The clients' own manifests carry the same version (the packages are stamped from the worker's; one command,
# scripts/set-version.sh, writes them all).
node_version="$(python3 -c 'import json,sys; print(json.load(open("clients/node/package.json"))["version"])')"
python_version="$(sed -n 's/^version = "\(.*\)"/\1/p' clients/python/pyproject.toml)"
emacs_version="$(sed -n 's/^;; Version: //p' clients/emacs/photoworker.el)"
if [ "$node_version" != "$version" ] || [ "$python_version" != "$version" ] || [ "$emacs_version" != "$version" ]; then
    echo "test-package: worker $version, clients/node $node_version, clients/python $python_version," \
        "clients/emacs $emacs_version (scripts/set-version.sh sets them all)" >&2
    exit 1
fi

work="$(mktemp -d /tmp/photoworker-install.XXXXXX)"
trap 'rm -rf "$work"' EXIT
case "$work" in "$repo"/*) echo "test-package: $work is inside the repository" >&2; exit 1 ;; esac
cp -R corpus/photos "$work/photos"
# Clips for the motion checks: H.264 in MP4 and HEVC in MOV through the packaged FFmpeg and its stand-ins.
cp corpus/motion/pan.mp4 corpus/motion/zoom-hevc-rot90.mov corpus/motion/cutout.webm "$work/photos/"
cp scripts/package/check_installed.py "$work/"
# The READMEs' examples, run as written against the installed packages alone (protocol/tools/examples.py).
mkdir -p "$work/docs/clients/python" "$work/docs/clients/node" "$work/docs/protocol/tools"
cp README.md "$work/docs/"
cp clients/python/README.md "$work/docs/clients/python/"
cp clients/node/README.md "$work/docs/clients/node/"
cp protocol/tools/examples.py "$work/docs/protocol/tools/"

echo "== install the wheel into a fresh venv"
# The system Python, not the test venv's: the venv must not point into the hidden build folder.
system_python="$(env -i PATH=/usr/local/bin:/usr/bin:/bin bash -c 'command -v python3')"
"$system_python" -m venv "$work/venv"
# uv too, for the `uvx --from <wheel>` form an MCP host uses (README).
# --no-compile: byte-compiling every module installed is half of pip's CPU time; what runs is compiled as it is imported.
"$work/venv/bin/python3" -m pip install --quiet --no-compile --disable-pip-version-check "$wheel" mcp uv
cp "$wheel" "$work/"

echo "== install the npm tarball into a fresh folder"
mkdir -p "$work/node"
cp "$tarball" "$work/"
(cd "$work/node" && echo '{"private": true}' > package.json \
    && npm install --silent --offline --no-audit --no-fund "$work/$(basename "$tarball")")
# Beside node_modules: Node resolves `import "photoworker"` from the importing file's folder.
cp scripts/package/check_installed.mjs "$work/node/"

source scripts/package/closure.sh
for installed in "$work"/venv/lib/python3*/site-packages/photoworker_client/_worker "$work/node/node_modules/photoworker/vendor"; do
    bad="$(loads_outside "$installed/photoworker" "$installed")"
    if [ -n "$bad" ]; then
        echo "test-package: $installed/photoworker loads from outside its package:" >&2
        echo "$bad" >&2
        exit 1
    fi
    echo "ldd: $installed/photoworker: $(env -i ldd "$installed/photoworker" | grep -c "$installed/lib/") libraries from the package, the rest system"
done

toolchain="$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")"
echo "== run the installed packages with $repo and $toolchain hidden"
# unshare: a private mount namespace, so the empty tmpfs mounts are seen by these commands only.
unshare --mount --propagation private -- bash -euo pipefail -c '
    mount -t tmpfs none "$1"
    mount -t tmpfs none "$2"
    shift 2
    work="$1" version="$2"
    cd "$work"
    run() { env -i PATH=/usr/bin:/bin HOME="$work" LANG=C.UTF-8 "$@"; }
    run "$work/venv/bin/python3" check_installed.py "$work/photos" "$work/out" "$version"
    cd "$work/node"
    run node check_installed.mjs "$work/photos" "$version"
    run "$work/venv/bin/python3" "$work/docs/protocol/tools/examples.py" --root "$work/docs" --installed \
        --python "$work/venv/bin/python3" --node-modules "$work/node/node_modules" --path-dir "$work/venv/bin" \
        --photos "$work/photos"
    # A reader that goes away (`photoworker call ... | true`): a quiet end as by SIGPIPE (141), whatever the
    # disposition the wheel'\''s launcher execs the worker with, and the npm bin entry the same.
    for command in "$work/venv/bin/photoworker" "$work/node/node_modules/.bin/photoworker"; do
        for disposition in --default-signal=PIPE --ignore-signal=PIPE; do
            set +e
            run env "$disposition" "$command" call image.info "{\"source\":{\"path\":\"$work/photos/rocket.jpg\"}}" \
                2>"$work/pipe.err" | true
            status="${PIPESTATUS[0]}"
            set -e
            if [ "$status" != 141 ] || [ -s "$work/pipe.err" ]; then
                echo "FAIL $command call | true ($disposition): status $status, stderr:" >&2
                cat "$work/pipe.err" >&2
                exit 1
            fi
            echo "ok   $(basename "$(dirname "$command")")/photoworker call | true ($disposition): quiet, status 141"
        done
    done
    # The package-runner forms of README'\''s MCP host section, from the package files alone, offline.
    expect_version() { # expect_version LABEL COMMAND...
        local label="$1" got; shift
        got="$(run "$@" </dev/null)"
        [ "$got" = "$version" ] || { echo "FAIL $label: printed \"$got\", expected $version" >&2; exit 1; }
        echo "ok   $label: $got"
    }
    expect_version "uvx --from <wheel> photoworker --version" \
        "$work/venv/bin/uvx" --offline --quiet --from "$work/$3" photoworker --version
    expect_version "npx --package <tarball> photoworker --version" \
        npx --yes --offline --quiet --package "$work/$4" photoworker --version
' unshare-check "$repo" "$toolchain" "$work" "$version" "$(basename "$wheel")" "$(basename "$tarball")"
echo "packages: wheel and npm tarball installed and driven, all checks passed"
