#!/usr/bin/env bash
# Runs every test suite: the Swift package (unit and end-to-end over real pipes), the Python and
# Node clients against the built binary, and the MCP SDK interoperability tests.
set -euo pipefail
cd "$(dirname "$0")/.."

swift build --build-tests
swift test --skip-build

export PHOTOWORKER_BIN="$PWD/.build/debug/photoworker"
bash scripts/test-clients.sh
python3 -m pytest -q -p no:cacheprovider tests/mcp
