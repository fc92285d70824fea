#!/usr/bin/env bash
# Makes corpus/formats/ from the project's own corpus photos with Debian's encoders, so the WebP, GIF, HEIF,
# AVIF and colour-management tests have files nobody else made (other projects' test images are kept as an
# independent check). Run it again to regenerate; the outputs are committed (small: about 2 MB).
#   needs: webp (cwebp, img2webp, dwebp), gifsicle, imagemagick, libheif-examples (heif-enc, heif-convert),
#          libavif-bin (avifenc), liblcms2-utils (jpgicc), colord-data (the Adobe RGB and ProPhoto profiles,
#          and the Apple RGB and Wide Gamut profiles copied to profiles/),
#          python3 with numpy (the Display P3 pixels of the CICP file).
# refs/ holds what an independent decoder (dwebp, heif-convert, ImageMagick) makes of each sRGB file: the
# worker's decodes are compared with these (PSNR >= 40 dB, Tests/ImagingTests/FormatDecodeTests.swift).
set -euo pipefail
cd "$(dirname "$0")/.."
out=corpus/formats
photos=corpus/photos
icc=/usr/share/color/icc/colord
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
rm -rf "$out"
mkdir -p "$out/refs" "$out/broken"
# Two more matrix-shaper profiles for the colour-management arithmetic test (colord-data, CC0-1.0), kept as they are.
mkdir -p "$out/profiles"
cp "$icc/AppleRGB.icc" "$icc/WideGamutRGB.icc" "$out/profiles/"

# Sources: a portrait (girl-1 at 360x240), a still life (coffee at 320x212) and an RGBA sticker-like cut of it.
convert "$photos/girl-1.jpg" -resize 360x240! "$tmp/girl.png"
convert "$photos/coffee.png" -resize 320x212! "$tmp/coffee.png"
convert "$tmp/coffee.png" \( -size 320x212 xc:black -fill white -draw "ellipse 160,106 130,86 0,360" -blur 0x3 \) \
    -alpha off -compose CopyOpacity -composite "$tmp/coffee-alpha.png"

# --- WebP ---
cwebp -quiet -q 80 "$tmp/girl.png" -o "$out/girl-lossy.webp"
cwebp -quiet -lossless "$tmp/coffee.png" -o "$out/coffee-lossless.webp"
cwebp -quiet -q 85 -alpha_q 100 "$tmp/coffee-alpha.png" -o "$out/coffee-alpha.webp"
# EXIF orientation 6 carried over from the JPEG (pixels stored sideways).
cwebp -quiet -q 85 -metadata exif "$photos/orientation-Landscape_6.jpg" -resize 200 300 -o "$out/landscape-orientation6.webp"
convert "$photos/orientation-Landscape_1.jpg" -resize 300x200! "$tmp/landscape-upright.png"
cp "$tmp/landscape-upright.png" "$out/refs/landscape-upright.png"
convert "$tmp/girl.png" -resize 240x160! "$tmp/f1.png"
convert "$tmp/girl.png" -resize 240x160! -flop "$tmp/f2.png"
img2webp -loop 0 -lossless -d 200 "$tmp/f1.png" -d 200 "$tmp/f2.png" -o "$out/girl-animated.webp" >/dev/null
cp "$tmp/f1.png" "$out/refs/girl-animated-frame1.png"

# --- GIF ---
convert "$tmp/girl.png" -resize 240x160 -colors 256 "$out/girl.gif"
gifsicle -i "$out/girl.gif" > "$out/girl-interlaced.gif"
# An animation on a 320x240 screen whose first frame (transparent index on) covers only part of it.
convert "$tmp/f1.png" -resize 180x120 -colors 64 "$tmp/a1.gif"
convert "$tmp/f2.png" -resize 180x120 -colors 64 "$tmp/a2.gif"
gifsicle --logical-screen 260x200 --transparent '#000000' --position 40,30 "$tmp/a1.gif" --position 0,0 "$tmp/a2.gif" \
    --loopcount > "$out/girl-animated-offset.gif" 2>/dev/null
for f in girl girl-interlaced; do convert "$out/$f.gif[0]" "$out/refs/$f.png"; done

# --- HEIF/HEIC (HEVC) ---
heif-enc -q 70 -t 160 "$tmp/girl.png" -o "$out/girl.heic" >/dev/null
heif-enc -q 80 "$tmp/coffee-alpha.png" -o "$out/coffee-alpha.heic" >/dev/null
convert "$tmp/coffee.png" -depth 16 "$tmp/coffee16.png"
heif-enc -q 80 -b 10 "$tmp/coffee16.png" -o "$out/coffee-10bit.heic" >/dev/null

# --- AVIF (AV1) ---
avifenc --min 24 --max 32 -s 8 "$tmp/girl.png" "$out/girl.avif" >/dev/null
avifenc --min 18 --max 26 -s 8 "$tmp/coffee-alpha.png" "$out/coffee-alpha.avif" >/dev/null
avifenc --min 18 --max 26 -s 8 -d 10 "$tmp/coffee.png" "$out/coffee-10bit.avif" >/dev/null
avifenc --min 18 --max 26 -s 8 -g 2x2 "$tmp/coffee.png" "$out/coffee-grid.avif" >/dev/null
# irot 1 turns the stored image 90 degrees anticlockwise: store it turned clockwise so it displays upright.
convert "$tmp/girl.png" -rotate 90 "$tmp/girl-cw.png"
avifenc --min 18 --max 26 -s 8 --irot 1 "$tmp/girl-cw.png" "$out/girl-irot.avif" >/dev/null
convert "$tmp/girl.png" -flip "$tmp/girl-flipped.png"
avifenc --min 18 --max 26 -s 8 --imir 0 "$tmp/girl-flipped.png" "$out/girl-imir.avif" >/dev/null
for f in girl.heic coffee-alpha.heic coffee-10bit.heic girl.avif coffee-alpha.avif coffee-10bit.avif coffee-grid.avif; do
    heif-convert "$out/$f" "$tmp/ref.png" >/dev/null
    convert "$tmp/ref.png" -depth 8 "$out/refs/${f/./-}.png"
done

# --- Wide gamut: the same photos converted to other RGB spaces with their profiles embedded ---
convert "$photos/girl-1.jpg" -resize 360x240! -quality 97 "$tmp/girl.jpg"
jpgicc -q95 -o"$icc/AdobeRGB1998.icc" -e "$tmp/girl.jpg" "$out/girl-adobergb.jpg" >/dev/null
jpgicc -q95 -o"$icc/ProPhotoRGB.icc" -e "$tmp/girl.jpg" "$out/girl-prophoto.jpg" >/dev/null
convert "$tmp/coffee.png" -profile /usr/share/color/icc/sRGB.icc -profile "$icc/AdobeRGB1998.icc" "$out/coffee-adobergb.png"
cwebp -quiet -lossless -metadata icc "$out/coffee-adobergb.png" -o "$out/coffee-adobergb.webp"
heif-enc -q 90 "$out/coffee-adobergb.png" -o "$out/coffee-adobergb.heic" >/dev/null
cp "$tmp/coffee.png" "$out/refs/coffee-srgb.png"
cp "$tmp/girl.jpg" "$out/refs/girl-srgb.jpg"
# Display P3 pixels described only by CICP (primaries 12, sRGB transfer 13, BT.601 matrix 6).
convert "$tmp/coffee.png" -depth 8 "$tmp/coffee.ppm"
python3 - "$tmp/coffee.ppm" "$tmp/coffee-p3.ppm" <<'PY'
import sys, numpy as np
data = open(sys.argv[1], 'rb').read()
parts = data.split(maxsplit=4)
w, h = int(parts[1]), int(parts[2])
rgb = np.frombuffer(parts[4][: w * h * 3], np.uint8).reshape(h, w, 3) / 255.0
lin = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
# sRGB (BT.709) linear -> Display P3 linear, both D65.
m = np.array([[0.8224621, 0.1775380, 0.0000000], [0.0331941, 0.9668058, 0.0000000], [0.0170827, 0.0723974, 0.9105199]])
p3 = np.clip(lin @ m.T, 0, 1)
enc = np.where(p3 <= 0.0031308, p3 * 12.92, 1.055 * p3 ** (1 / 2.4) - 0.055)
out = np.round(enc * 255).astype(np.uint8)
open(sys.argv[2], 'wb').write(b'P6\n%d %d\n255\n' % (w, h) + out.tobytes())
PY
convert "$tmp/coffee-p3.ppm" "$tmp/coffee-p3.png"
avifenc --min 4 --max 10 -s 8 -y 444 --cicp 12/13/6 "$tmp/coffee-p3.png" "$out/coffee-p3-cicp.avif" >/dev/null

# --- Hostile variants: truncations, a mutated header, declared sizes that lie ---
head -c 3000 "$out/girl-lossy.webp" > "$out/broken/truncated.webp"
head -c 40 "$out/girl-lossy.webp" > "$out/broken/header-only.webp"
python3 - "$out" <<'PY'
import sys, struct
out = sys.argv[1]
def patch(src, dst, offset, data):
    b = bytearray(open(f"{out}/{src}", "rb").read())
    b[offset:offset + len(data)] = data
    open(f"{out}/broken/{dst}", "wb").write(bytes(b))
# RIFF size far past the end of the file.
patch("girl-lossy.webp", "riff-size-lies.webp", 4, struct.pack("<I", 0x7FFFFFF0))
# A VP8L (lossless) header claiming 16384x16384.
b = bytearray(open(f"{out}/coffee-lossless.webp", "rb").read())
i = b.find(b"VP8L") + 9
v = 0x3FFF | (0x3FFF << 14) | (b[i + 3] & 0xF0) << 24
b[i:i + 4] = struct.pack("<I", v)
open(f"{out}/broken/huge-lossless.webp", "wb").write(bytes(b))
# GIF logical screen of 65535x65535 with a small first frame.
patch("girl.gif", "huge-screen.gif", 6, struct.pack("<HH", 65535, 65535))
# GIF whose first image descriptor says 65000 wide inside a small screen.
b = bytearray(open(f"{out}/girl.gif", "rb").read())
i = b.find(b"\x2c")
b[i + 5:i + 7] = struct.pack("<H", 65000)
open(f"{out}/broken/frame-lies.gif", "wb").write(bytes(b))
# HEIF: the ispe box claims 60000x60000.
for name in ("girl.heic", "coffee-grid.avif"):
    b = bytearray(open(f"{out}/{name}", "rb").read())
    i = b.find(b"ispe")
    while i >= 0:
        b[i + 8:i + 16] = struct.pack(">II", 60000, 60000)
        i = b.find(b"ispe", i + 4)
    open(f"{out}/broken/huge-ispe-{name.replace('.', '-')}", "wb").write(bytes(b))
# HEIF: the meta box's size mangled, and bytes flipped inside the coded data.
b = bytearray(open(f"{out}/girl.heic", "rb").read())
i = b.find(b"meta")
b[i - 4:i] = struct.pack(">I", 0xFFFFFF00)
open(f"{out}/broken/meta-size.heic", "wb").write(bytes(b))
b = bytearray(open(f"{out}/girl.avif", "rb").read())
for k in range(len(b) - 2000, len(b), 97):
    b[k] ^= 0x5A
open(f"{out}/broken/mutated-data.avif", "wb").write(bytes(b))
PY
for f in girl.heic girl.avif; do head -c 2500 "$out/$f" > "$out/broken/truncated-${f/./-}.${f##*.}"; done
head -c 1200 "$out/girl.gif" > "$out/broken/truncated.gif"
head -c 20 "$out/girl.gif" > "$out/broken/header-only.gif"
ls -la "$out" "$out/refs" "$out/broken" | awk '{print $5, $9}'
du -sh "$out"
