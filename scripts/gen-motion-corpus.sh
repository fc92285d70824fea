#!/usr/bin/env bash
# Makes corpus/motion/ from the project's own corpus photos with Debian's tools, for the motion decoders' tests
# (Tests/ImagingTests/Motion*, Tests/EndToEndTests/MotionInfoEndToEndTests.swift) and fuzz seeds. Run it again to
# regenerate; the outputs are committed (small: tiny sizes, a dozen frames each).
#   needs: ffmpeg (libx264, libx265, libvpx), img2webp, gifsicle, python3 (standard library only).
#
# What is where (every clip 12 frames at 12 fps unless said):
#   pan.mp4                 H.264, a 96x64 window panning across girl-1.jpg, moov first (faststart)
#   pan-moov-at-end.mp4     the same with the moov box after the media data (ffmpeg's default)
#   six-seconds.mp4         pan.mp4 six times over (stream copy): 6 s, 72 frames
#   odd-width.mp4           H.264, 90x60 (a width no multiple of 8): swscale's vector loops write past such rows,
#                           which corrupted the heap until the conversion wrote into padded rows
#   zoom-hevc-rot90.mov     HEVC (hvc1) zooming into coffee.png, stored 96x64 with a 90-degree display matrix:
#                           shown 64x96
#   live-photo.mov          the same HEVC stream with an AAC track beside it, as a phone writes a Live Photo's clip
#   cutout.{webm,vp8.webm,gif,webp,mp4}
#                           a cut-out subject (sticker-dev 101087 and its mask) moving over a panning background
#                           (coffee.png): VP9, VP8, GIF (gifsicle), animated lossless WebP, H.264
#   cutout-alpha.webm       the subject alone over transparency, VP9 with alpha (yuva420p, BlockAdditional)
#   cutout-alpha.webp       the same as a lossless animated WebP (alpha exact)
#   still.gif               sticker-dev 126039 at 192x128, six identical frames (a clip that does not move)
#   pushin.mp4              the same photo pushed into, 1.0x to 1.33x about a centre drifting right, 12 frames, H.264
#   pushin-masks/NN.png     each pushin frame's true mask (the photo's mask moved by the same zoom)
#   cutout-masks/NN.png     each cutout frame's true mask (255 subject, 0 background), frame NN = 00..11
#   cutout-frames/NN.png    each cutout frame as made, before any encoder (what lossless outputs must equal)
#   disposal-{none,background,previous}.gif
#                           8x8: frame 0 red over the whole screen; frame 1 a 4x4 green square at (2,2) with the
#                           named disposal; frame 2 a 2x2 blue square at (0,0) whose top-left pixel is transparent.
#                           After frame 2, pixel (3,3) is green (none), transparent (background) or red (previous);
#                           pixel (0,0) shows what was under it (red). Delays 10, 20, 30 cs.
#   fast-delays.gif         3 frames with delays 0, 1 and 2 cs: browsers play the first two as 100 ms
#   loop3.gif, endless.gif  cutout.gif with NETSCAPE2.0 loop counts 3 and 0 (forever); cutout.gif has none
#   hostile/                truncated.gif (cut inside frame 5), no-colormap.gif (a 16x1 ramp of indices 0..255 step
#                           17 and no colour map anywhere), many-frames.gif (1000 1x1 frames), truncated.mp4 (90%
#                           of pan.mp4: the frames that arrived), truncated-moov-at-end.mp4 (half of
#                           pan-moov-at-end.mp4: no moov), lying-size.mp4 (the avc1 entry says 30000x30000),
#                           lying-duration.mp4 (mvhd, mdhd and stts say 100000 s), truncated.webm, truncated.webp,
#                           not-a-video.mp4 (an ftyp box, then noise)
set -euo pipefail
cd "$(dirname "$0")/.."
out=corpus/motion
photos=corpus/photos
sticker=corpus/sticker-dev
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
rm -rf "$out"
mkdir -p "$out/cutout-masks" "$out/cutout-frames" "$out/hostile" "$out/pushin-masks"
ff() { ffmpeg -hide_banner -loglevel error -nostdin -y "$@"; }
# Bit-exact, reproducible encodes: one thread, no encoder tag.
common=(-threads 1 -fflags +bitexact -flags:v +bitexact -map_metadata -1)

# --- Camera moves over a still ---
ff -i "$photos/girl-1.jpg" -vf "scale=192:128,crop=192:64:0:32" "$tmp/wide.png"
ff -loop 1 -framerate 12 -i "$tmp/wide.png" -vf "crop=96:64:x='n*8':y=0,format=yuv420p" -frames:v 12 \
    "${common[@]}" -c:v libx264 -preset veryslow -crf 30 -movflags +faststart "$out/pan.mp4"
ff -loop 1 -framerate 12 -i "$tmp/wide.png" -vf "crop=96:64:x='n*8':y=0,format=yuv420p" -frames:v 12 \
    "${common[@]}" -c:v libx264 -preset veryslow -crf 30 "$out/pan-moov-at-end.mp4"
ff -loop 1 -framerate 12 -i "$tmp/wide.png" -vf "crop=90:60:x='n*8':y=2,format=yuv420p" -frames:v 12 \
    "${common[@]}" -c:v libx264 -preset veryslow -crf 30 -movflags +faststart "$out/odd-width.mp4"
# pan.mp4 played six times over, its stream copied: a 6 s clip (72 frames) for the length limits and the trim to a
# messenger's 3 s, without an encoder at test time.
ff -stream_loop 5 -i "$out/pan.mp4" -c copy -fflags +bitexact -map_metadata -1 -movflags +faststart "$out/six-seconds.mp4"
ff -i "$photos/coffee.png" -vf "scale=192:128" "$tmp/coffee.png"
# Zoom: a window shrinking from 192x128 to 120x80 around the centre, scaled to 96x64.
ff -loop 1 -framerate 12 -i "$tmp/coffee.png" \
    -vf "crop=w='192-n*6':h='128-n*4':x='n*3':y='n*2',scale=96:64,format=yuv420p" -frames:v 12 \
    "${common[@]}" -c:v libx265 -x265-params log-level=error -crf 32 -tag:v hvc1 "$out/zoom-hevc-rot90.mov"
# As a phone writes a Live Photo's clip: the same HEVC stream with an AAC track beside it (the reader takes the
# video stream and ignores the other).
ff -i "$out/zoom-hevc-rot90.mov" -f lavfi -i "sine=frequency=440:sample_rate=8000:duration=1" -map 0:v -map 1:a \
    -c:v copy -c:a aac -b:a 8k -ac 1 "${common[@]}" -shortest "$tmp/live.mov"

# --- A cut-out subject over a moving background ---
# The subject at 40x60 and its mask, nearest-neighbour so the mask stays 0/255; it moves 4 px right and 1 px down
# per frame while the background pans 8 px per frame the other way.
ff -i "$sticker/images/101087.jpg" -vf "scale=40:60:flags=neighbor,format=rgb24" "$tmp/subject.png"
ff -i "$sticker/masks/101087.png" -vf "scale=40:60:flags=neighbor,format=gray" "$tmp/mask.png"
ff -i "$tmp/subject.png" -i "$tmp/mask.png" -filter_complex "[0][1]alphamerge,format=rgba" "$tmp/cutout.png"
ff -i "$photos/coffee.png" -vf "scale=192:128,crop=192:64:0:40,format=rgb24" "$tmp/background.png"
pos="x='8+n*4':y='2+n'"
ff -loop 1 -framerate 12 -i "$tmp/background.png" -loop 1 -framerate 12 -i "$tmp/cutout.png" \
    -filter_complex "[0]crop=96:64:x='88-n*8':y=0[bg];[bg][1]overlay=$pos:eval=frame:format=rgb,format=rgb24" \
    -frames:v 12 -start_number 0 "$out/cutout-frames/%02d.png"
# Overlays run in RGB: in YUV 4:2:0 ffmpeg would round odd positions to even ones.
ff -f lavfi -i "color=black:size=96x64:rate=12,format=rgb24" -loop 1 -framerate 12 -i "$tmp/mask.png" \
    -filter_complex "[0][1]overlay=$pos:eval=frame:format=rgb,format=gray" -frames:v 12 -start_number 0 "$out/cutout-masks/%02d.png"
frames=(-framerate 12 -start_number 0 -i "$out/cutout-frames/%02d.png")
ff "${frames[@]}" -vf format=yuv420p "${common[@]}" -c:v libvpx-vp9 -b:v 0 -crf 40 -row-mt 0 "$out/cutout.webm"
ff "${frames[@]}" -vf format=yuv420p "${common[@]}" -c:v libvpx -b:v 200k -crf 20 "$out/cutout.vp8.webm"
ff "${frames[@]}" -vf format=yuv420p "${common[@]}" -c:v libx264 -preset veryslow -crf 30 -movflags +faststart \
    "$out/cutout.mp4"
# GIF through ffmpeg's palette filters, then gifsicle for the loop variants.
ff "${frames[@]}" -vf "split[a][b];[a]palettegen=max_colors=64[p];[b][p]paletteuse=dither=none" -loop -1 "$tmp/cutout.gif"
gifsicle --no-loopcount "$tmp/cutout.gif" > "$out/cutout.gif"
gifsicle --loopcount=3 "$out/cutout.gif" > "$out/loop3.gif"
gifsicle --loopcount=forever "$out/cutout.gif" > "$out/endless.gif"
webp_args=()
for i in $(seq -w 0 11); do webp_args+=(-d 83 "$out/cutout-frames/$i.png"); done
img2webp -loop 0 -lossless "${webp_args[@]}" -o "$out/cutout.webp" >/dev/null
# The subject alone over transparency.
ff -f lavfi -i "color=black@0.0:size=96x64:rate=12,format=rgba" -loop 1 -framerate 12 -i "$tmp/cutout.png" \
    -filter_complex "[0][1]overlay=$pos:eval=frame:format=rgb,format=rgba" -frames:v 12 -start_number 0 "$tmp/a%02d.png"
ff -framerate 12 -start_number 0 -i "$tmp/a%02d.png" -vf format=yuva420p "${common[@]}" -c:v libvpx-vp9 -b:v 0 \
    -crf 40 -row-mt 0 -auto-alt-ref 0 "$out/cutout-alpha.webm"
alpha_args=()
for i in $(seq -w 0 11); do alpha_args+=(-d 83 "$tmp/a$i.png"); done
img2webp -loop 0 -lossless "${alpha_args[@]}" -o "$out/cutout-alpha.webp" >/dev/null

# --- A photo that does not move, and one pushed into (the animated sticker against the still, issue 64) ---
# sticker-dev 126039 (its subject in the middle) and its mask, cropped to 480x320.
ff -i "$sticker/images/126039.jpg" -vf "crop=480:320:0:0,scale=960:640:flags=bicubic,format=rgb24" "$tmp/still-big.png"
ff -i "$sticker/masks/126039.png" -vf "crop=480:320:0:0,scale=960:640:flags=bicubic,format=gray" "$tmp/still-mask-big.png"
ff -i "$tmp/still-big.png" -vf "scale=192:128:flags=area" "$tmp/still.png"
# A GIF (WebP encoders merge identical frames into one): one palette for all six, so every frame decodes the same.
ff -i "$tmp/still.png" -vf palettegen "$tmp/still-palette.png"
ff -loop 1 -framerate 12 -t 0.5 -i "$tmp/still.png" -i "$tmp/still-palette.png" -lavfi "paletteuse=dither=none" \
    -frames:v 6 -loop -1 "$out/still.gif"
# A push-in from 1.0x to 1.33x over 12 frames about a centre drifting right, on the photo and its mask alike
# (zoompan on the 960x640 copies, so its whole-pixel steps are a fifth of an output pixel), the mask thresholded.
zoom="zoompan=z='1+0.03*on':x='(iw-iw/zoom)/2+on*6':y='(ih-ih/zoom)/2':d=12:s=192x128:fps=12"
ff -i "$tmp/still-big.png" -vf "$zoom,format=rgb24" -frames:v 12 -start_number 0 "$tmp/push%02d.png"
ff -i "$tmp/still-mask-big.png" -vf "format=gray,$zoom,format=gray,lut=y='if(gte(val,128),255,0)'" -frames:v 12 \
    -start_number 0 "$out/pushin-masks/%02d.png"
ff -framerate 12 -start_number 0 -i "$tmp/push%02d.png" -vf format=yuv420p "${common[@]}" -c:v libx264 \
    -preset veryslow -crf 18 -movflags +faststart "$out/pushin.mp4"

# --- Synthetic GIFs with known pixels, and hostile files ---
python3 - "$out" "$tmp" <<'PY'
import struct, sys
out, tmp = sys.argv[1], sys.argv[2]

def lzw(indices):
    """GIF LZW with code size 8 that never grows the code width: every pixel its own 9-bit code, a clear code
    before the table would reach 512 entries. Valid for every decoder, and simple enough to trust."""
    codes, since_clear = [256], 0
    for i in indices:
        if since_clear == 254:
            codes.append(256)
            since_clear = 0
        codes.append(i)
        since_clear += 1
    codes.append(257)
    acc = nbits = 0
    data = bytearray()
    for c in codes:
        acc |= c << nbits
        nbits += 9
        while nbits >= 8:
            data.append(acc & 255)
            acc >>= 8
            nbits -= 8
    if nbits:
        data.append(acc & 255)
    blocks = bytearray([8])
    for k in range(0, len(data), 255):
        chunk = data[k:k + 255]
        blocks += bytes([len(chunk)]) + chunk
    return bytes(blocks + b"\0")

def gif(width, height, frames, palette=None, loop=None):
    """frames: (x, y, w, h, indices, delay_cs, disposal, transparent or None)."""
    b = bytearray(b"GIF89a" + struct.pack("<HH", width, height))
    if palette is None:
        b += bytes([0, 0, 0])
    else:
        b += bytes([0xF7, 0, 0]) + bytes(c for rgb in palette for c in rgb) + bytes(3 * (256 - len(palette)))
    if loop is not None:
        b += b"\x21\xff\x0bNETSCAPE2.0\x03\x01" + struct.pack("<H", loop) + b"\0"
    for x, y, w, h, indices, delay, disposal, transparent in frames:
        flags = (disposal << 2) | (1 if transparent is not None else 0)
        b += b"\x21\xf9\x04" + bytes([flags]) + struct.pack("<H", delay) + bytes([transparent or 0]) + b"\0"
        b += b"\x2c" + struct.pack("<HHHH", x, y, w, h) + b"\0" + lzw(indices)
    return bytes(b + b"\x3b")

red, green, blue, black = 0, 1, 2, 3
palette = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (0, 0, 0)]
for name, disposal in (("none", 1), ("background", 2), ("previous", 3)):
    frames = [(0, 0, 8, 8, [red] * 64, 10, 1, None),
              (2, 2, 4, 4, [green] * 16, 20, disposal, None),
              (0, 0, 2, 2, [black, blue, blue, blue], 30, 1, black)]
    open(f"{out}/disposal-{name}.gif", "wb").write(gif(8, 8, frames, palette))
fast = [(0, 0, 2, 2, [c] * 4, d, 1, None) for c, d in ((red, 0), (green, 1), (blue, 2))]
open(f"{out}/fast-delays.gif", "wb").write(gif(2, 2, fast, palette))
open(f"{out}/hostile/no-colormap.gif", "wb").write(gif(16, 1, [(0, 0, 16, 1, [i * 17 for i in range(16)], 10, 1, None)]))
many = [(0, 0, 1, 1, [k % 2], 2, 1, None) for k in range(1000)]
open(f"{out}/hostile/many-frames.gif", "wb").write(gif(1, 1, many, [(0, 0, 0), (255, 255, 255)], loop=0))

def patched(src, dst, edits):
    b = bytearray(open(src, "rb").read())
    for find, offset, value in edits:
        at = b.find(find)
        assert at >= 0, (src, find)
        b[at + offset:at + offset + len(value)] = value
    open(dst, "wb").write(bytes(b))

# The display matrix of a phone held upright (ffmpeg 5.1 no longer writes one from `-metadata rotate`): tkhd
# (version 0) holds it 40 bytes after its version and flags; a, b, u, c, d, v, x, y, w in 16.16 (u, v, w 2.30).
patched(f"{out}/zoom-hevc-rot90.mov", f"{out}/zoom-hevc-rot90.mov",
        [(b"tkhd", 44, struct.pack(">9i", 0, 0x10000, 0, -0x10000, 0, 0, 64 << 16, 0, 0x40000000))])
# The Live Photo clip: the video track comes first, so the first tkhd is the one turned.
patched(f"{tmp}/live.mov", f"{out}/live-photo.mov",
        [(b"tkhd", 44, struct.pack(">9i", 0, 0x10000, 0, -0x10000, 0, 0, 64 << 16, 0, 0x40000000))])
# avc1 sample entry: type, 6 reserved, data reference index, 16 bytes of pre-defined/reserved, then width, height.
b = open(f"{out}/pan.mp4", "rb").read()
entry = b.find(b"avc1", b.find(b"stsd"))  # "avc1" is also a brand in ftyp
b = b[:entry + 28] + struct.pack(">HH", 30000, 30000) + b[entry + 32:]
open(f"{out}/hostile/lying-size.mp4", "wb").write(b)
# A duration that lies everywhere: mvhd and mdhd (version 0: type, version+flags, creation, modification, timescale,
# duration) and the stts sample delta (FFmpeg takes a stream's duration from the samples) say about 100000 s.
b = bytearray(open(f"{out}/pan.mp4", "rb").read())
for box in (b"mvhd", b"mdhd"):
    at = b.find(box)
    timescale = struct.unpack(">I", b[at + 16:at + 20])[0]
    b[at + 20:at + 24] = struct.pack(">I", min(100000 * timescale, 2**32 - 1))
at = b.find(b"stts")
count, delta = struct.unpack(">II", b[at + 12:at + 20])
timescale = struct.unpack(">I", b[b.find(b"mdhd") + 16:b.find(b"mdhd") + 20])[0]
b[at + 16:at + 20] = struct.pack(">I", 100000 * timescale // count)
open(f"{out}/hostile/lying-duration.mp4", "wb").write(bytes(b))
for src, dst, fraction in (("pan.mp4", "truncated.mp4", 0.9), ("pan-moov-at-end.mp4", "truncated-moov-at-end.mp4", 0.5),
                           ("cutout.webm", "truncated.webm", 0.5), ("cutout.webp", "truncated.webp", 0.5)):
    b = open(f"{out}/{src}", "rb").read()
    open(f"{out}/hostile/{dst}", "wb").write(b[:int(len(b) * fraction)])
# Cut midway through frame 5's image data: between the 6th and 7th graphic control blocks.
b = open(f"{out}/cutout.gif", "rb").read()
blocks = [0]
while len(blocks) < 8:
    blocks.append(b.find(b"\x21\xf9\x04", blocks[-1] + 1))
open(f"{out}/hostile/truncated.gif", "wb").write(b[:(blocks[6] + blocks[7]) // 2])
import random
rng = random.Random(44)
open(f"{out}/hostile/not-a-video.mp4", "wb").write(b"\0\0\0\x18ftypisom\0\0\2\0isomiso2" + bytes(rng.randrange(256) for _ in range(4000)))
PY
du -sh "$out"
