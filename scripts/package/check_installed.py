"""Drives the worker installed from the wheel, as a user of the wheel would: run by scripts/test-package.sh with the
fresh venv's Python, from a folder outside the repository, with the checkout, the build folder and the Swift
toolchain hidden. Every check prints what it saw; the first failure ends the run with status 1.

Usage: check_installed.py PHOTOS_DIR OUT_DIR EXPECTED_VERSION
"""

import asyncio
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

photos, out, expected_version = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
site = Path(sysconfig.get_paths()["purelib"])
scripts = Path(sysconfig.get_paths()["scripts"])


def check(ok, what, actual):
    print(f"{'ok  ' if ok else 'FAIL'} {what}: {actual}")
    if not ok:
        sys.exit(1)


# The `photoworker` command in the environment's bin/ is the wheel's, and it is the worker.
command = scripts / "photoworker"
version = subprocess.run([command, "--version"], capture_output=True, text=True, timeout=60)
check(version.stdout.strip() == expected_version, "photoworker --version", version.stdout.strip() or version.stderr)

demo = subprocess.run([command, "demo", "--out", out / "demo"], capture_output=True, text=True, timeout=600)
written = sorted(p.name for p in (out / "demo").glob("*")) if (out / "demo").is_dir() else []
check(demo.returncode == 0 and any(n.endswith(".png") for n in written), "photoworker demo",
      f"status {demo.returncode}, {len(written)} files, stderr: {demo.stderr[-300:]!r}")
# The bundled two-subject photo ships: the demo lists its subjects and cuts out the second.
check("chosen-subject.png" in written and "which subject? two-subjects.jpg has " in demo.stdout,
      "photoworker demo chooses a subject", demo.stdout[-400:])
# The bundled clip ships, and FFmpeg's libraries with it: the demo makes a Telegram video sticker of it.
check("animated-sticker.webm" in written and "animated sticker of pan.mp4, for Telegram:" in demo.stdout,
      "photoworker demo makes an animated sticker", demo.stdout[-400:])

# `photoworker call` on a long job: the result alone on stdout (one JSON document), the items on stderr.
import json  # noqa: E402

batch = subprocess.run([command, "call", "photos.process", json.dumps(
    {"sources": [{"path": str(photos / "rocket.jpg")}, {"path": str(photos / "missing.jpg")}],
     "output": {"dir": str(out / "call")}, "segmenter": "classical"})], capture_output=True, text=True, timeout=300)
try:
    counts = json.loads(batch.stdout)
except ValueError:
    counts = None
check(batch.returncode == 0 and counts is not None and counts.get("completed") == 1 and counts.get("failed") == 1
      and "item 1 failed: source not found" in batch.stderr, "photoworker call photos.process: result alone on stdout",
      f"status {batch.returncode}, stdout {batch.stdout[:200]!r}, stderr {batch.stderr[-300:]!r}")

# Clips through the packaged FFmpeg (its unused libraries are stand-ins): every frame decoded, and a Telegram sticker.
for clip, codec in (("pan.mp4", "h264"), ("zoom-hevc-rot90.mov", "hevc"), ("cutout.webm", "vp9")):
    info = subprocess.run([command, "call", "image.info", json.dumps({"source": {"path": str(photos / clip)}})],
                          capture_output=True, text=True, timeout=120)
    described = json.loads(info.stdout) if info.returncode == 0 else {}
    check(described.get("motion", {}).get("codec") == codec, f"image.info {clip}",
          f"status {info.returncode}, {info.stdout[:300]!r} {info.stderr[-300:]!r}")
animated = subprocess.run([command, "call", "--quiet", "image.animatedSticker", json.dumps(
    {"source": {"path": str(photos / "pan.mp4")}, "output": {"path": str(out / "pan.webm")}, "target": "telegram",
     "keyFrameInterval": 1})], capture_output=True, text=True, timeout=600)
check(animated.returncode == 0 and (out / "pan.webm").stat().st_size > 0, "image.animatedSticker pan.mp4 -> WebM VP9",
      f"status {animated.returncode}, {animated.stdout[:300]!r} {animated.stderr[-300:]!r}")

from photoworker_client import Item, Worker, default_executable  # noqa: E402

exe = default_executable()
check(Path(exe).is_relative_to(site / "photoworker_client" / "_worker"), "Worker.spawn() finds the bundled worker", exe)


async def client_checks():
    async with Worker.spawn() as w:
        photo = {"path": str(photos / "animal-1.jpg")}
        palette = await w.call("image.palette", {"source": photo, "count": 5}, timeout=120)
        check(len(palette["colors"]) == 5, "image.palette", [c["hex"] for c in palette["colors"]])

        sticker = await w.call("image.sticker", {"source": photo, "output": {"path": str(out / "sticker.png")}},
                               timeout=300)
        check(sticker["segmenter"] == "network", "image.sticker's segmenter (the weights came with the wheel)",
              sticker["segmenter"])

        # A batch left after its first item: the client cancels it ($/cancelRequest), the worker stops the job.
        sources = [{"path": str(p)} for p in sorted(photos.glob("*.jpg"))] * 4
        async for event in w.stream("photos.process",
                                    {"sources": sources, "count": 3, "output": {"dir": str(out / "batch")}},
                                    timeout=600):
            if isinstance(event, Item):
                break
        deadline = asyncio.get_running_loop().time() + 30
        while True:  # the cancel is asynchronous: poll the worker's counters until the job is gone (or 30 s)
            stats = await w.call("worker.stats", timeout=30)
            if stats["cancelled"] or asyncio.get_running_loop().time() > deadline:
                break
            await asyncio.sleep(0.05)
        check(stats["cancelled"] == 1 and stats["running"] == 0, "photos.process cancelled after its first item",
              {k: stats[k] for k in ("cancelled", "completed", "running", "queued")})


asyncio.run(client_checks())


async def mcp_checks():
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=str(command), args=["--allow-dir", str(photos), "--allow-dir", str(out)])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            check(init.server_info.name == "photoworker" and init.server_info.version == expected_version,
                  "MCP initialize", f"{init.server_info.name} {init.server_info.version}")
            tools = {t.name for t in (await session.list_tools()).tools}
            check("image_palette" in tools, "MCP tools/list", sorted(tools))
            result = await session.call_tool("image_palette",
                                             {"source": {"path": str(photos / "animal-2.jpg")}, "count": 4})
            check(not result.is_error, "MCP tools/call image_palette", str(result.content)[:200])


asyncio.run(asyncio.wait_for(mcp_checks(), 120))
print("installed wheel: all checks passed")
