#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
#
# png-stats.py FILE.png: what a screenshot holds, as one JSON line, for the
# tests that render blkstack's SVG and HTML in headless Chromium: width,
# height, "warm" pixels (red high, blue low: the flame graph's boxes),
# "blue" and "orange" pixels (Okabe-Ito's #0072B2 and #E69F00 within a
# tolerance: the HTML report's read and write colours), pixels that are not
# near-white, and distinct colours. Only the standard library: 8-bit RGB or
# RGBA PNGs, as Chromium writes them.
import json
import struct
import sys
import zlib


def rows(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit("%s: not a PNG" % path)
    pos, idat, hdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, ctype = hdr[:4]
    if depth != 8 or ctype not in (2, 6):
        raise SystemExit("%s: unexpected PNG format %s" % (path, hdr))
    bpp = 3 if ctype == 2 else 4
    raw, stride = zlib.decompress(idat), w * bpp
    out, prev, i = [], bytearray(stride), 0
    for _ in range(h):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out.append(line)
        prev = line
    return w, h, bpp, out


def near(px, rgb, tol=40):
    return all(abs(px[k] - rgb[k]) <= tol for k in range(3))


def main():
    w, h, bpp, lines = rows(sys.argv[1])
    st = {"width": w, "height": h, "warm": 0, "blue": 0, "orange": 0, "ink": 0}
    colours = set()
    for r in lines:
        for x in range(0, w * bpp, bpp):
            px = r[x:x + 3]
            colours.add(bytes(px))
            if px[0] >= 200 and px[2] <= 60:
                st["warm"] += 1
            if near(px, (0x00, 0x72, 0xB2)):
                st["blue"] += 1
            if near(px, (0xE6, 0x9F, 0x00)):
                st["orange"] += 1
            if min(px) < 235:
                st["ink"] += 1
    st["colours"] = len(colours)
    print(json.dumps(st))


main()
