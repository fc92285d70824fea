#!/usr/bin/env bash
# Sourced by scripts/test.sh: makes a fresh Debian machine with Swift ready for every suite.
#   - Debian packages: what the build needs (scripts/deps/debian-build.txt, README's set-up installs the same) and
#     what the tests add (scripts/test-deps/debian-swift.txt for the Swift suite's build, debian.txt for the rest):
#     installed with apt-get when running as root, otherwise the script stops and says which `apt-get install` to run.
#   - Python tools listed in scripts/test-deps/python.txt: installed into a virtual environment in the
#     ignored build area (.build/test-venv), never into the system Python; reinstalled only when the list
#     changes. Its bin/ goes first on PATH, so `python3` below is the venv's.
#   - Node (for the Node client suite) and npm (for the npm package): used when present, installed from Debian
#     when missing and root;
#     otherwise NODE_SUITE=skip with the reason in NODE_SKIP_REASON (scripts/test.sh fails in CI then).
# Exports TEST_VENV and NODE_SUITE=run|skip.
# With TEST_ENV_DEFER_VENV=1 the venv is left out (only exported, put on PATH); `bash scripts/test-env.sh --venv`
# then makes it alone: scripts/test.sh runs that beside the Swift build, which needs none of it.

test_env_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
deps="$test_env_root/scripts/test-deps"

list_of() { sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$1" | grep -v '^$' || true; }

apt_install() { # apt_install PKG... (root only)
    export DEBIAN_FRONTEND=noninteractive
    if [ -z "${TEST_ENV_APT_UPDATED:-}" ]; then
        apt-get update -qq
        TEST_ENV_APT_UPDATED=1
    fi
    apt-get install -y -qq --no-install-recommends "$@"
}

missing_debian=()
for pkg in $(list_of "$test_env_root/scripts/deps/debian-build.txt") $(list_of "$deps/debian-swift.txt") \
           $(list_of "$deps/debian.txt"); do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing_debian+=("$pkg")
done
if [ ${#missing_debian[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ]; then
        echo "== test-env: installing Debian packages: ${missing_debian[*]}"
        apt_install "${missing_debian[@]}"
    else
        echo "test-env: missing Debian packages: ${missing_debian[*]}" >&2
        echo "test-env: run  sudo apt-get install --no-install-recommends ${missing_debian[*]}  and try again" >&2
        exit 1
    fi
fi

TEST_VENV="$test_env_root/.build/test-venv"
test_env_venv() {
    local stamp="$TEST_VENV/.requirements"
    if [ ! -x "$TEST_VENV/bin/python3" ] || ! cmp -s "$deps/python.txt" "$stamp"; then
        echo "== test-env: Python tools into $TEST_VENV: $(list_of "$deps/python.txt" | tr '\n' ' ')"
        mkdir -p "$test_env_root/.build"
        python3 -m venv "$TEST_VENV"
        # --no-compile: pip would byte-compile every module of every package (half its CPU time, mostly Ray's);
        # Python compiles the few the tests import when they first do, and keeps them.
        "$TEST_VENV/bin/python3" -m pip install --quiet --no-compile --disable-pip-version-check \
            -r <(list_of "$deps/python.txt")
        cp "$deps/python.txt" "$stamp"
    fi
}
if [ "${1:-}" = --venv ]; then
    test_env_venv
    return 0 2>/dev/null || exit 0
fi
[ -n "${TEST_ENV_DEFER_VENV:-}" ] || test_env_venv
export TEST_VENV
export PATH="$TEST_VENV/bin:$PATH"

NODE_SUITE=run
NODE_SKIP_REASON=""
if ! command -v node >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then
        echo "== test-env: installing Node from Debian (nodejs)"
        apt_install nodejs
    else
        NODE_SUITE=skip
        NODE_SKIP_REASON="node is not installed and this is not root (sudo apt-get install nodejs)"
    fi
fi
# npm packs and installs the npm package (scripts/test-package.sh); Debian ships it apart from nodejs.
if [ "$NODE_SUITE" = run ] && ! command -v npm >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "== test-env: installing npm from Debian"
    apt_install npm
fi
export NODE_SUITE NODE_SKIP_REASON
