#!/usr/bin/env bash
# The demo's two-subject photo (Sources/PhotoWorker/Resources/subjects/two-subjects.jpg): two of the bundled samples,
# girl-3.jpg and animal-2.jpg (rembg's examples, MIT), scaled to 360 px high and put side by side, so
# `photoworker demo` can list a photo's subjects and cut out the one it chooses. Debian's ffmpeg only.
set -euo pipefail
cd "$(dirname "$0")/../Sources/PhotoWorker/Resources"
ffmpeg -y -v error -i samples/girl-3.jpg -i samples/animal-2.jpg -filter_complex \
    "[0]scale=-2:360:flags=area[a];[1]scale=-2:360:flags=area[b];[a][b]hstack" -q:v 3 -fflags +bitexact \
    -flags:v +bitexact subjects/two-subjects.jpg
