"""Writes stand-in shared libraries for the libraries FFmpeg's Debian build names but the worker never calls.

  ffmpeg_stubs.py OUT_DIR BINARY KEEP_REGEX

BINARY's FFmpeg libraries (libavcodec, libavformat, libavutil, libswscale, libswresample) keep every library their
decoders, encoder and demuxers use for real (KEEP_REGEX: libvpx, libwebp, libdav1d, ...) and every library the rest of
BINARY loads anyway (libcurl's gnutls, say); each other library they name gets a stand-in in OUT_DIR.

Debian builds libavcodec, libavformat and libavutil against about a hundred codec, protocol and hardware libraries
(librsvg with cairo and glib, libcodec2, libx264, libva with X11, gnutls, libxml2 with ICU...). Their codec tables
refer to those libraries' symbols, so the loader must find every one, though the worker's decoders (H.264, HEVC,
VP8, VP9), its encoder (libvpx-vp9) and demuxers (MOV/MP4, Matroska/WebM) never reach them. Each stand-in has the
real library's soname, version nodes and the symbols FFmpeg refers to (functions that abort if ever called, data of
the same size), and nothing else.
"""
import os, re, subprocess, sys, collections

out, binary, keep = sys.argv[1], sys.argv[2], re.compile(sys.argv[3])
os.makedirs(out, exist_ok=True)
FFMPEG = re.compile(r"^lib(avcodec|avformat|avutil|swscale|swresample)\.so")

def ldd(path):
    """soname -> path of everything `path` loads, resolved as the loader would."""
    found = {}
    for line in subprocess.run(["ldd", path], capture_output=True, text=True).stdout.splitlines():
        f = line.split()
        if len(f) >= 3 and f[1] == "=>" and f[2].startswith("/"):
            found[f[0]] = f[2]
    return found

closure = ldd(binary)
libs = [path for soname, path in closure.items() if FFMPEG.search(soname)]
# What the rest of the binary loads is real whatever FFmpeg says: the closure of its other direct dependencies.
direct = subprocess.run(["patchelf", "--print-needed", binary], capture_output=True, text=True, check=True).stdout.split()
real = set()
for soname in direct:
    if soname in closure and not FFMPEG.search(soname):
        real.add(soname)
        real.update(ldd(closure[soname]))

def needed(path):
    text = subprocess.run(["patchelf", "--print-needed", path], capture_output=True, text=True, check=True).stdout
    return text.split()

def resolve(soname):
    return os.path.realpath(closure[soname]) if soname in closure else None

# Every undefined symbol (name, version) the FFmpeg libraries refer to.
wanted = set()
for lib in libs:
    for line in subprocess.run(["readelf", "--dyn-syms", "-W", lib], capture_output=True, text=True).stdout.splitlines():
        f = line.split()
        if len(f) >= 8 and f[6] == "UND" and f[7]:
            name, _, version = f[7].partition("@")
            wanted.add((name, version.lstrip("@").split(" ")[0]))

removed = sorted({n for lib in libs for n in needed(lib)
                  if not keep.search(n) and not FFMPEG.search(n) and n not in real})
for soname in removed:
    path = resolve(soname)
    if path is None:
        sys.exit(f"ffmpeg_stubs: {soname} is not among what {binary} loads")
    defined = {}
    for line in subprocess.run(["readelf", "--dyn-syms", "-W", path], capture_output=True, text=True).stdout.splitlines():
        f = line.split()
        if len(f) >= 8 and f[6] != "UND" and f[3] in ("FUNC", "OBJECT", "IFUNC", "TLS") and f[7]:
            name, _, version = f[7].partition("@")
            defined[name] = (f[3], int(f[2], 0) if f[2].startswith("0x") else int(f[2]), version.lstrip("@"))
    symbols = [(n, v) for n, v in sorted(wanted) if n in defined]
    nodes = collections.defaultdict(list)
    source = ["#include <stdlib.h>"]
    for name, version in symbols:
        kind, size, own_version = defined[name]
        if kind == "OBJECT":
            source.append(f"char {name}[{max(size, 1)}];")
        elif kind == "TLS":
            source.append(f"__thread char {name}[{max(size, 1)}];")
        else:
            source.append(f"void {name}(void) {{ abort(); }}")
        nodes[version or own_version or ""].append(name)
    c = os.path.join(out, soname + ".c")
    open(c, "w").write("\n".join(source) + "\n")
    args = ["gcc", "-shared", "-fPIC", "-O1", "-o", os.path.join(out, soname), c, f"-Wl,-soname,{soname}"]
    if any(v for v in nodes):
        script = os.path.join(out, soname + ".map")
        with open(script, "w") as f:
            for version, names in nodes.items():
                f.write(f"{version or 'STUB_BASE'} {{ global: {'; '.join(names)}; }};\n")
        args.append(f"-Wl,--version-script={script}")
    subprocess.run(args, check=True)
    os.remove(c)
    print(f"{soname}: stand-in with {len(symbols)} symbols")
