#!/usr/bin/env bash
# Two-subject test photo for the end-to-end tests of `subject` and `image.subjects` (SubjectPromptTests): two
# sticker-dev photos (227092 and 23025, a single subject each, both well cut alone) scaled to 240 px high and put side by side,
# with each one's human mask placed on the pair (left.png, right.png: 255 = that subject). Debian's ffmpeg only.
set -euo pipefail
cd "$(dirname "$0")"
dev=../sticker-dev
ffmpeg -y -v error -i "$dev/images/227092.jpg" -i "$dev/images/23025.jpg" -filter_complex \
    "[0]scale=-2:240:flags=area[a];[1]scale=-2:240:flags=area[b];[a][b]hstack" -q:v 4 pair.jpg
ffmpeg -y -v error -i "$dev/masks/227092.png" -i "$dev/masks/23025.png" -filter_complex \
    "[0]scale=-2:240:flags=area,format=gray[a];[1]scale=-2:240:flags=area,format=gray,lut=c0=0[b];[a][b]hstack" left.png
ffmpeg -y -v error -i "$dev/masks/227092.png" -i "$dev/masks/23025.png" -filter_complex \
    "[0]scale=-2:240:flags=area,format=gray,lut=c0=0[a];[1]scale=-2:240:flags=area,format=gray[b];[a][b]hstack" right.png
# pair-pan.mp4: a clip of the pair for `subject` on image.animatedSticker (AnimatedStickerTests): a 288x216 window
# panning right 2 px a frame across it from (0, 12), so the picture moves left; 16 frames at 16 fps, H.264.
ffmpeg -y -v error -framerate 16 -loop 1 -i pair.jpg -vf "crop=288:216:2*n:12,format=yuv420p" -frames:v 16 \
    -c:v libx264 -preset veryslow -crf 26 -movflags +faststart -fflags +bitexact -flags:v +bitexact pair-pan.mp4
