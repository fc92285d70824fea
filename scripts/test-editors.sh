#!/usr/bin/env bash
# Runs the editor clients' headless suites against the built worker (PHOTOWORKER_BIN, default
# .build/debug/photoworker): Vim 9 (clients/vim), Neovim (clients/neovim) and Emacs (clients/emacs). Each suite
# records its worker's pid; after the editor exits, that process must be gone (no orphans).
# The editors come from Debian (scripts/test-deps/debian.txt: vim, neovim, emacs-nox).
set -uo pipefail
cd "$(dirname "$0")/.."
export PHOTOWORKER_BIN="${PHOTOWORKER_BIN:-$PWD/.build/debug/photoworker}"
export PHOTOWORKER_CORPUS="$PWD/corpus"
if [ ! -x "$PHOTOWORKER_BIN" ]; then
    echo "test-editors: $PHOTOWORKER_BIN is not built (run swift build, or set PHOTOWORKER_BIN)" >&2
    exit 1
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
passed=0 failed=0

# verdict NAME STATUS OUT: the editor's exit status, its own report, and the orphan check.
verdict() {
    local name="$1" status="$2" out="$3" pid
    pid="$(cat "$out.pid" 2>/dev/null || true)"
    if [ -n "$pid" ] && [ "$pid" != 0 ] && [ "$pid" != nil ] && kill -0 "$pid" 2>/dev/null; then
        echo "test-editors: $name left its worker (pid $pid) running" >&2
        kill "$pid" 2>/dev/null
        status=1
    elif [ -z "$pid" ]; then
        echo "test-editors: $name did not report its worker's pid" >&2
        status=1
    fi
    if [ "$status" = 0 ]; then
        passed=$((passed + 1)); echo "ok: $name"
    else
        failed=$((failed + 1)); echo "FAILED: $name (status $status)"
    fi
    [ -f "$out" ] && sed 's/^/    /' "$out"
}

echo "== Vim $(vim --version | head -1 | sed 's/.*IMproved //; s/ (.*//')"
PHOTOWORKER_TEST_OUT="$work/vim" timeout 300 vim -Nu NONE -i NONE -es -S clients/vim/test/test_photoworker.vim
verdict vim $? "$work/vim"

echo "== Neovim $(nvim --version | head -1)"
PHOTOWORKER_TEST_OUT="$work/nvim" timeout 300 nvim --headless -u NONE -i NONE --cmd "set rtp^=$PWD/clients/neovim" \
    --cmd "runtime plugin/photoworker.lua" -c "luafile clients/neovim/test/test_photoworker.lua" >"$work/nvim.log" 2>&1
status=$?
[ "$status" = 0 ] || tail -20 "$work/nvim.log"
verdict neovim "$status" "$work/nvim"

echo "== Emacs $(emacs --version | head -1)"
PHOTOWORKER_TEST_OUT="$work/emacs" timeout 300 emacs --batch -Q -L clients/emacs -l clients/emacs/test/photoworker-test.el \
    -f ert-run-tests-batch-and-exit >"$work/emacs.log" 2>&1
status=$?
grep -E "^ *(passed|FAILED)|^Ran " "$work/emacs.log" | sed 's/^/    /'
[ "$status" = 0 ] || tail -30 "$work/emacs.log"
verdict emacs "$status" "$work/emacs"

echo "editors: $passed passed, $failed failed"
[ "$failed" = 0 ]
