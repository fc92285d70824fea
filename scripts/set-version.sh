#!/usr/bin/env bash
# Sets the release version everywhere it is written: the worker (Worker.version: `--version`, `initialize`'s
# serverInfo, MCP's serverInfo), the clients' manifests (Python, Node, Emacs), the MCP Registry's server.json. scripts/package.sh stamps the wheel and
# the npm package from the built worker's `--version`, and scripts/test-package.sh fails if any of these disagree.
# Usage: scripts/set-version.sh 0.2.0
set -euo pipefail
cd "$(dirname "$0")/.."
new="${1:-}"
[[ "$new" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "usage: scripts/set-version.sh MAJOR.MINOR.PATCH" >&2; exit 2; }
sed -i -E "s/(public static let version = \")[^\"]*\"/\1$new\"/" Sources/PhotoWorker/Worker.swift
sed -i -E "0,/\"version\": \"[^\"]*\"/s//\"version\": \"$new\"/" clients/node/package.json
sed -i -E "s/^version = \"[^\"]*\"/version = \"$new\"/" clients/python/pyproject.toml
sed -i -E "s/^;; Version: .*/;; Version: $new/" clients/emacs/photoworker.el
# The MCP Registry manifest: the server's version and each package's.
sed -i -E "s/(\"version\": \")[^\"]*\"/\1$new\"/g" server.json
git --no-pager diff --stat -- Sources/PhotoWorker/Worker.swift clients/node/package.json clients/python/pyproject.toml \
    clients/emacs/photoworker.el server.json
