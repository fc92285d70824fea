#!/usr/bin/env bash
# photoworker under Ray Data (clients/python/photoworker_client/ray.py) on a local Ray with 2 CPUs:
# the documented example, error rows, cancellation through Ray, no worker left after the dataset, ray.kill
# or ray.shutdown. Ray comes from scripts/test-deps/python.txt (the test venv); here a missing Ray fails.
set -euo pipefail
cd "$(dirname "$0")/.."
export PHOTOWORKER_BIN="${PHOTOWORKER_BIN:-$PWD/.build/debug/photoworker}"
export PHOTOWORKER_REQUIRE_RAY=1 RAY_USAGE_STATS_ENABLED=0 RAY_DISABLE_DOCKER_CPU_WARNING=1
# The test venv (scripts/test-env.sh, which scripts/test.sh runs first) has Ray; use it when run alone too.
python="${TEST_VENV:-$PWD/.build/test-venv}/bin/python3"
[ -x "$python" ] || python=python3
"$python" -m pytest -q -p no:cacheprovider -p no:logging clients/python/tests/test_ray.py
