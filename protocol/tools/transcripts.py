#!/usr/bin/env python3
"""Regenerates the image-method transcripts in protocol/README.md from the real binary.

  python3 protocol/tools/transcripts.py [--bin .build/debug/photoworker]

Runs each example in a scratch folder holding photo.jpg (a corpus photo) and prints the exact lines
exchanged; long base64 strings are shortened with "..." and the scratch folder shows as ".".
"""
import argparse, json, os, pathlib, re, shutil, subprocess, tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
PHOTO = ROOT / "corpus/photos/girl-1.jpg"

EXAMPLES = {
    "image.info": [{"source": {"path": "photo.jpg"}}],
    "image.convert": [{"source": {"path": "photo.jpg"}, "output": {"path": "photo.png"}},
                      {"source": {"path": "missing.jpg"}, "output": {"path": "x.png"}}],
    "image.thumbnail": [{"source": {"path": "photo.jpg"}, "size": 128, "fit": "cover", "output": {"path": "thumb.jpg", "quality": 85}},
                        {"source": {"path": "photo.jpg"}, "width": 64, "output": {"inline": True}}],
    "image.scale": [{"source": {"path": "photo.jpg"}, "factor": 0.5, "output": {"path": "half.png"}},
                    {"source": {"path": "photo.jpg"}, "factor": 0, "output": {"path": "x.png"}}],
    "image.palette": [{"source": {"path": "photo.jpg"}, "count": 5},
                      {"source": {"path": "photo.jpg"}, "count": 12}],
    "image.effect": [{"source": {"path": "photo.jpg"}, "effects": [{"blur": 4}, {"opacity": 0.6}], "output": {"path": "soft.png"}},
                     {"source": {"path": "photo.jpg"}, "effects": [{"grayscale": True}, {"opacity": 2}], "output": {"inline": True}}],
    "image.sticker": [{"source": {"path": "photo.jpg"}, "outline": {"width": 8, "color": "#FFFFFF"},
                       "output": {"path": "sticker.png"}, "maskOutput": {"path": "mask.png"}}],
    "photo.process": [{"source": {"path": "photo.jpg"}, "count": 4, "output": {"dir": "out"}}],
    "photos.process": [{"sources": [{"path": "photo.jpg"}, {"path": "missing.jpg"}], "count": 3, "output": {"dir": "batch"}}],
    "pack.export": [{"stickers": [{"path": "sticker.png"}, {"path": "sticker.png"}], "columns": 2, "cellSize": 256,
                     "background": "#FFFFFF", "output": {"path": "sheet.png"}, "filesDir": "pack"}],
    "cache.stats": [None],
    "cache.clear": [None],
}

def shorten(line, folder):
    line = line.replace(folder + "/", "./").replace(folder, ".")
    return re.sub(r'"(data)":"([A-Za-z0-9+/=]{24})[A-Za-z0-9+/=]+"', r'"\1":"\2..."', line)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=str(ROOT / ".build/debug/photoworker"))
    a = ap.parse_args()
    folder = tempfile.mkdtemp(prefix="pw-transcript-")
    shutil.copy(PHOTO, os.path.join(folder, "photo.jpg"))
    p = subprocess.Popen([a.bin], cwd=folder, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    rid = 0
    for method, param_list in EXAMPLES.items():
        print(f"### {method}\n\n```")
        for params in param_list:
            rid += 1
            msg = {"jsonrpc": "2.0", "id": rid, "method": method}
            if params is not None:
                msg["params"] = params
            line = json.dumps(msg, separators=(",", ":"))
            p.stdin.write(line + "\n"); p.stdin.flush()
            print("-> " + line)
            while True:
                out = p.stdout.readline().rstrip("\n")
                print("<- " + shorten(out, folder))
                if json.loads(out).get("id") == rid:
                    break
        print("```\n")
    p.stdin.close(); p.wait()
    shutil.rmtree(folder)

if __name__ == "__main__":
    main()
