#!/usr/bin/env bash
# Writes protocol/openrpc.json from the code: each method's contract (Sources/*/Methods, MCP/) and the shared
# schemas beside their types. OpenRPCDocumentTests fails when the committed file differs from this output.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product photoworker >&2
"$(swift build --show-bin-path)/photoworker" contract > protocol/openrpc.json
echo "wrote protocol/openrpc.json" >&2
