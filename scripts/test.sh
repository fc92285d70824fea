#!/usr/bin/env bash
# Runs every test suite:
#   1. the Swift package: unit tests and end-to-end tests over real pipes (swift test);
#   2. the Python and Node clients against the built binary (scripts/test-clients.sh);
#   3. the MCP interoperability tests with the official MCP Python SDK (tests/mcp);
#   4. the core end-to-end suites under ThreadSanitizer (scripts/test-sanitizers.sh thread --core);
#   5. a fuzzing smoke run of the three libFuzzer targets (fuzz/run.sh all $FUZZ_SECONDS, default 40).
# `scripts/test.sh --quick` stops after step 3 (what you want while editing).
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
[ "${1:-}" = "--quick" ] && quick=1

swift build --build-tests
swift test --skip-build

export PHOTOWORKER_BIN="$PWD/.build/debug/photoworker"
bash scripts/test-clients.sh
python3 -m pytest -q -p no:cacheprovider tests/mcp

if [ "$quick" = 1 ]; then
    echo "suites: 3 passed, 0 failed"
    exit 0
fi
bash scripts/test-sanitizers.sh thread --core
bash fuzz/run.sh all "${FUZZ_SECONDS:-40}"
# Every step above stops the script on failure (set -e), so reaching here means all passed.
echo "suites: 5 passed, 0 failed"
