#!/usr/bin/env bash
# The demo's two-subject photo (Sources/PhotoWorker/Resources/subjects/two-subjects.jpg): two of the bundled samples,
# girl-3.jpg and animal-2.jpg (rembg's examples, MIT), scaled to 360 px high and put side by side, so
# `photoworker demo` can list a photo's subjects and cut out the one it chooses. Debian's ffmpeg only.
set -euo pipefail
cd "$(dirname "$0")/../Sources/PhotoWorker/Resources"
ffmpeg -y -v error -i samples/girl-3.jpg -i samples/animal-2.jpg -filter_complex \
    "[0]scale=-2:360:flags=area[a];[1]scale=-2:360:flags=area[b];[a][b]hstack" -q:v 3 -fflags +bitexact \
    -flags:v +bitexact subjects/two-subjects.jpg
# The demo's clip (Sources/PhotoWorker/Resources/clips/pan.mp4), for its animated sticker: the two-subject photo at
# 240 px high, a 360x240 window panning across it 11 px a frame, 24 frames at 12 fps (2 s), H.264, 19 KB.
ffmpeg -y -v error -framerate 12 -loop 1 -i subjects/two-subjects.jpg \
    -vf "scale=-2:240:flags=area,crop=360:240:11*n:0,format=yuv420p" -frames:v 24 -c:v libx264 -preset veryslow \
    -crf 28 -movflags +faststart -fflags +bitexact -flags:v +bitexact clips/pan.mp4
