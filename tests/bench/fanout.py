#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A many-CPU recording from a few-CPU one, for the -j benchmarks of a
machine with few cores: each CPU's pages are dealt in turn to FACTOR
streams (CPU c's page k goes to CPU c * FACTOR + k % FACTOR), so that
every stream stays in time order and the merged events are the same, in
the same order but for ties, as in the input.

    fanout.py IN.dat OUT.dat FACTOR

Reads a version 6 trace.dat of one buffer as blkstack record writes it
(the options section holds no per-CPU option); writes the same headers
with FACTOR times the CPUs. Not a test: a benchmark's input.
"""
import struct
import sys


def cstr(b, at):
    end = b.index(b"\0", at)
    return b[at:end], end + 1


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: fanout.py IN.dat OUT.dat FACTOR")
    src, dst, factor = sys.argv[1], sys.argv[2], int(sys.argv[3])
    data = open(src, "rb").read()
    if data[:10] != b"\x17\x08Dtracing":
        sys.exit("fanout.py: %s is not a trace.dat" % src)
    version, at = cstr(data, 10)
    if version != b"6":
        sys.exit("fanout.py: %s is version %s, not 6" % (src, version.decode()))
    endian = "<" if data[at] == 0 else ">"
    page_size = struct.unpack_from(endian + "I", data, at + 2)[0]
    at += 6

    def u32(at):
        return struct.unpack_from(endian + "I", data, at)[0]

    def u64(at):
        return struct.unpack_from(endian + "Q", data, at)[0]

    # header_page, header_event: name, 8-byte size, text
    for name in (b"header_page", b"header_event"):
        got, at = cstr(data, at)
        if got != name:
            sys.exit("fanout.py: no %s" % name.decode())
        at += 8 + u64(at)
    n = u32(at)
    at += 4
    for _ in range(n):
        at += 8 + u64(at)
    nsys = u32(at)
    at += 4
    for _ in range(nsys):
        _, at = cstr(data, at)
        n = u32(at)
        at += 4
        for _ in range(n):
            at += 8 + u64(at)
    at += 4 + u32(at)  # kallsyms
    at += 4 + u32(at)  # printk
    at += 8 + u64(at)  # cmdlines
    ncpu_at = at
    ncpu = u32(at)
    at += 4
    got = data[at:at + 10]
    if got != b"options  \0":
        sys.exit("fanout.py: no options section")
    at += 10
    while True:
        opt = struct.unpack_from(endian + "H", data, at)[0]
        at += 2
        if opt == 0:
            break
        at += 4 + u32(at)
    if data[at:at + 10] != b"flyrecord\0":
        sys.exit("fanout.py: no flyrecord section (a latency trace?)")
    at += 10
    streams = [(u64(at + 16 * c), u64(at + 16 * c + 8)) for c in range(ncpu)]
    at += 16 * ncpu
    # the trace clock follows the table, then padding up to the first stream's data
    first = min([off for off, size in streams if size] or [len(data)])
    clock = data[at:first]

    out_streams = []
    for off, size in streams:
        pages = [data[off + p:off + p + page_size] for p in range(0, size, page_size)]
        for k in range(factor):
            out_streams.append(b"".join(pages[k::factor]))

    head = bytearray(data[:ncpu_at])
    head += struct.pack(endian + "I", ncpu * factor)
    head += data[ncpu_at + 4:at - 16 * ncpu]
    table_at = len(head)
    head += b"\0" * (16 * len(out_streams))
    head += clock
    body = bytearray()
    table = []
    pos = len(head)
    for s in out_streams:
        if not s:
            table.append((0, 0))
            continue
        pad = -pos % page_size
        body += b"\0" * pad
        pos += pad
        table.append((pos, len(s)))
        body += s
        pos += len(s)
    for i, (off, size) in enumerate(table):
        struct.pack_into(endian + "QQ", head, table_at + 16 * i, off, size)
    with open(dst, "wb") as f:
        f.write(head)
        f.write(body)


if __name__ == "__main__":
    main()
