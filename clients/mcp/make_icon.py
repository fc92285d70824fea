#!/usr/bin/env python3
"""Draws the worker's 48x48 MCP icon (a round sticker cut from a sunset, with its white outline) and prints the
Swift constant of Sources/PhotoWorker/MCP/MCPServerInfo.swift that holds it as a PNG data URI.

  python3 clients/mcp/make_icon.py
"""
import base64, math, struct, zlib

N = 48


def pixel(x, y):
    cx = cy = (N - 1) / 2
    r = math.hypot(x - cx, y - cy)
    if r > 22.5:
        return (0, 0, 0, 0)
    if r > 19:
        return (255, 255, 255, 255)  # the sticker's outline
    t = y / (N - 1)
    sky = (int(255 - 70 * t), int(150 - 60 * t), int(90 + 110 * t))
    if y > 30 - 6 * math.sin(x / 7):  # hills
        return (46, 64, 87, 255)
    if math.hypot(x - 30, y - 20) < 6:  # sun
        return (255, 221, 120, 255)
    return sky + (255,)


def png(width, height, rows):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    raw = b"".join(b"\x00" + bytes(c for p in row for c in p) for row in rows)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


data = png(N, N, [[pixel(x, y) for x in range(N)] for y in range(N)])
print(f'    static let iconPNG = "data:image/png;base64,{base64.b64encode(data).decode()}"')
