#!/usr/bin/env bash
# Runs every test suite: the Swift package (unit and end-to-end), then the clients' suites.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build
swift test --parallel 2>&1 | tee /tmp/photoworker-swift-test.log
