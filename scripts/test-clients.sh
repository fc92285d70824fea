#!/usr/bin/env bash
# Runs the Python and Node client suites against the built worker (PHOTOWORKER_BIN, default .build/debug/photoworker).
# Both suites always run; the script fails if either fails.
set -uo pipefail
cd "$(dirname "$0")/.."
export PHOTOWORKER_BIN="${PHOTOWORKER_BIN:-$PWD/.build/debug/photoworker}"
if [ ! -x "$PHOTOWORKER_BIN" ]; then
    echo "test-clients: $PHOTOWORKER_BIN is not built (run swift build, or set PHOTOWORKER_BIN)" >&2
    exit 1
fi

status=0
echo "== Python client (clients/python/tests)"
# The Ray suite is a step of its own (scripts/test-ray.sh), in the full run only.
python3 -m pytest -q -p no:cacheprovider --ignore=clients/python/tests/test_ray.py clients/python/tests || status=1
echo "== Python client: pip install leaves the checkout as it was"
venv="$(mktemp -d)"
before="$(git status --porcelain --ignored clients/python | grep -v __pycache__ || true)"
if python3 -m venv "$venv" && "$venv/bin/python3" -m pip install --quiet --disable-pip-version-check clients/python \
    && "$venv/bin/python3" -c "import photoworker_client"; then
    after="$(git status --porcelain --ignored clients/python | grep -v __pycache__ || true)"
    if [ "$before" != "$after" ]; then
        echo "test-clients: pip install wrote into clients/python:" >&2
        diff <(echo "$before") <(echo "$after") >&2
        status=1
    else
        echo "1 passed, 0 failed"
    fi
else
    echo "test-clients: pip install clients/python failed" >&2
    status=1
fi
rm -rf "$venv"
echo "== Node client (clients/node/test)"
if [ "${NODE_SUITE:-run}" = skip ]; then
    echo "test-clients: Node client suite SKIPPED: ${NODE_SKIP_REASON:-node not found}" >&2
    # In CI nothing may be skipped silently.
    [ -n "${CI:-}" ] && status=1
else
    node --test clients/node/test/ || status=1
fi
exit $status
