#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The truth of every I/O of a tests/vm recording, from the kernel's own text
of its events (trace-cmd report -t), independent of blkstack's tracker.

    oracle.py TOPO REPORT.txt [-o OUT.jsonl]

TOPO is the guest's topo.txt (which devices are stacked on which, md
geometry), REPORT.txt the output of `trace-cmd report -t` of its trace.dat.
Prints one JSON object per I/O: its root bio (device, sector, bytes, op,
time it was queued there: its queue event, else its entry), its class (top:
queued by a user of a top device; caused: issued by a layer for a top-level
I/O in flight, or for I/O caused by one; own: issued by a layer on its own,
or for I/O of a layer's own; unexplained: came down from a layer with no
bio there to send it), the I/O it was issued for ("cause", when known), the
devices it reached and each one's first queue and last completion, and how
many I/Os it caused.

The whole recording is read before anything is decided (full look-ahead):
a remap's source is the bio that holds its range, a completion goes to the
bio of exactly that start and size before one of the same end, a request
clone (block_rq_remap) belongs to the request that was issued at its sector,
md raid5's stripe I/O is placed by the array's geometry, and an I/O a layer
issues while a bio above it waits belongs to that bio only when the bio is
sent down after it completed.  Nothing here is shared with src/track.
"""
import argparse
import json
import re
import sys

NOSECTOR = 18446744073709551615

LINE = re.compile(r'^\s*(.*?)-(\d+)\s+\[(\d+)\]\s+(\d+)\.(\d+):\s+(\w+):\s+(.*)$')
RANGE = re.compile(r'(\d+) \+ (\d+)')
REMAP = re.compile(r'(\d+) \+ (\d+) <- \((\d+),(\d+)\) (\d+)')
SPLIT = re.compile(r'(\d+) / (\d+)')
ERR = re.compile(r'\[(-?\d+)\]\s*$')
OPS = 'WRDFNZ'


def rwbs_parse(s):
    """(op letter, preflush, fua) of a rwbs string."""
    pre = len(s) > 1 and s[0] == 'F' and s[1] in OPS
    i = 1 if pre else 0
    op = s[i] if i < len(s) else 'N'
    rest = s[i + 1:]
    return op, pre, 'F' in rest


class Dev:
    def __init__(self, name, dev):
        self.name = name
        self.dev = dev
        self.holders = []
        self.slaves = []
        self.partition = False
        self.parent = None
        self.md_level = None
        self.dm = False


def load_topo(path):
    devs, by_name, md = {}, {}, {}
    for line in open(path):
        w = line.split()
        if not w:
            continue
        if w[0] == 'blk':
            f = dict(x.split('=', 1) for x in w[1:])
            d = Dev(f['name'], f['dev'].replace(':', ','))
            d.holders = [] if f['holders'] == '-' else f['holders'].split(',')
            d.slaves = [] if f['slaves'] == '-' else f['slaves'].split(',')
            d.partition = f['partition'] != '0'
            d.parent = f['parent'] if f['parent'] != '-' else None
            d.md_level = f.get('md_level', '-') if f.get('md_level', '-') != '-' else None
            d.dm = f.get('dm_name', '-') != '-'
            devs[d.dev] = d
            by_name[d.name] = d
        elif w[0] == 'md':
            f = dict(x.split('=', 1) for x in w[2:])
            md[w[1]] = f
    for d in devs.values():
        d.holders = [by_name[h].dev for h in d.holders if h in by_name]
        d.slaves = [by_name[s].dev for s in d.slaves if s in by_name]
        if d.parent in by_name:
            d.parent = by_name[d.parent].dev
    for name, f in md.items():
        d = by_name[name]
        d.md = f
    return devs


class Node:
    """One bio (or request clone) at one device."""
    __slots__ = ('id', 'dev', 'sector', 'nr', 'op', 'pre', 'fua', 'q', 'qev', 'c', 'parent', 'children',
                 'root', 'await_q', 'done', 'rq', 'sent', 'cls', 'cause', 'issuer', 'pid', 'comm',
                 'candidates', 'flush_for', 'whole', 'split')

    def __init__(self, nid, dev, sector, nr, op, pre, fua, ts, parent=None):
        self.id = nid
        self.dev = dev
        self.sector = sector
        self.nr = nr
        self.op = op
        self.pre = pre
        self.fua = fua
        self.q = ts
        self.qev = None         # its queue event, where it had one
        self.c = None
        self.parent = parent
        self.children = []
        self.root = parent.root if parent else self
        self.await_q = False
        self.done = False
        self.rq = None
        self.sent = None        # first time it went down (remap out, issue, clone)
        self.cls = None
        self.cause = None
        self.issuer = None
        self.pid = 0
        self.comm = ''
        self.candidates = None  # held bios it may have been issued for
        self.flush_for = False  # a flush request: for a bio of its device
        self.whole = False      # split at the top: stays whole, pieces absorbed
        self.split = False      # dm split it into pieces
        if parent:
            parent.children.append(self)
            if parent.sent is None:
                parent.sent = ts

    @property
    def end(self):
        return self.sector + self.nr


class Rq:
    __slots__ = ('dev', 'start', 'end', 'op', 'nodes', 'issued', 'clone_of', 'live')

    def __init__(self, dev, start, end, op):
        self.dev = dev
        self.start = start
        self.end = end
        self.op = op
        self.nodes = []
        self.issued = False
        self.clone_of = None    # the request a request-based dm cloned
        self.live = True


class Oracle:
    def __init__(self, devs):
        self.devs = devs
        self.nodes = {}         # dev -> nodes in flight there
        self.rqs = {}           # dev -> requests
        self.roots = []
        self.nid = 0
        self.geom = {}          # md raid5 dev -> geometry learnt from remaps
        self.notes = {}

    def note(self, what):
        self.notes[what] = self.notes.get(what, 0) + 1

    # ---- topology ----
    def is_top(self, dev):
        d = self.devs.get(dev)
        return d is not None and not d.holders and (d.slaves or d.md_level or d.dm)

    def uppers(self, dev):
        """The devices above @dev: its holders, and its partitions' (I/O
        with no sectors to a partition is not remapped: it shows at the
        disk)."""
        d = self.devs.get(dev)
        if d is None:
            return []
        return d.holders + [h for p in self.devs.values() if p.partition and p.parent == dev
                            for h in p.holders]

    def raid5(self, dev):
        d = self.devs.get(dev)
        return d is not None and d.md_level in ('raid4', 'raid5', 'raid6')

    # ---- nodes ----
    def new_node(self, dev, sector, nr, op, pre, fua, ts, parent=None):
        self.nid += 1
        n = Node(self.nid, dev, sector, nr, op, pre, fua, ts, parent)
        self.nodes.setdefault(dev, []).append(n)
        if parent is None:
            self.roots.append(n)
        return n

    def inflight(self, dev):
        return [n for n in self.nodes.get(dev, []) if not n.done]

    def complete(self, n, ts):
        if n.done:
            return
        n.done = True
        n.c = ts
        lst = self.nodes.get(n.dev)
        if lst and n in lst:
            lst.remove(n)
        p = n.parent
        d = self.devs.get(p.dev) if p else None
        if d is not None and d.partition and all(c.done for c in p.children):
            self.complete(p, ts)    # a partition only remaps: done with its bio below

    # ---- events ----
    def on_queue(self, ev):
        dev, s, nr, op = ev['dev'], ev['sector'], ev['nr'], ev['op']
        for n in self.inflight(dev):
            if n.await_q and n.sector == s and n.nr == nr and n.op == op:
                n.await_q = False
                n.qev = ev['ts']
                return
        # a bio held above and released here with no remap (dm-snapshot's
        # origin holds each piece of a write until its chunk is copied, then
        # submits it to the device below as it is)
        if nr:
            held = [n for u in self.uppers(dev) for n in self.inflight(u)
                    if not n.await_q and n.rq is None and n.op == op and
                    ((n.sector == s and n.nr == nr) or (n.split and n.sector <= s and s + nr <= n.end))
                    and all(c.dev == dev and c.q is not None and not (c.sector < s + nr and s < c.end)
                            for c in n.children)]
            if held:
                src = min(held, key=lambda n: n.id)
                self.new_node(dev, s, nr, op, ev['pre'], ev['fua'], ev['ts'], src).qev = ev['ts']
                return
        n = self.new_node(dev, s, nr, op, ev['pre'], ev['fua'], ev['ts'])
        n.qev = ev['ts']
        n.pid, n.comm = ev['pid'], ev['comm']
        if self.is_top(dev):
            n.cls = 'top'
            return
        n.issuer = self.uppers(dev)[0] if self.uppers(dev) else dev
        if nr == 0 and ev['pre'] and any(self.devs[u].md_level for u in self.uppers(dev)):
            # md's flush of each member for a preflush at the array (a
            # flush dm sends is remapped): for the oldest such bio above
            # that ends after it
            n.candidates = [u for up in self.uppers(dev) for u in self.inflight(up)
                            if not u.await_q and u.pre]
            n.flush_for = True
            return
        n.candidates = self.held_candidates(dev, s, nr, ev)

    def held_candidates(self, dev, s, nr, ev):
        """Bios above @dev, not sent down yet, that I/O @dev gets now may be
        for: one whose sectors it covers (a copy), or any write when it is a
        flush or FUA write (a superblock update: md marks the array dirty
        for a discard as for a write, both being writes to it); decided at
        the end, for the one sent down only after it completed
        (look-ahead)."""
        return [u for up in self.uppers(dev) for u in self.inflight(up)
                if not u.await_q and u.rq is None and all(c.nr == 0 for c in u.children) and
                ((nr and u.sector < s + nr and s < u.end) or
                 ((ev['pre'] or ev['fua']) and (u.op in 'WD' or u.pre)))]

    def flush_source(self, dev):
        """The bio an empty flush remap out of @dev serves: an empty flush in
        flight there, else a bio that asked for a preflush (never a plain
        data write)."""
        cand = [n for n in self.inflight(dev) if not n.await_q and n.nr == 0 and n.op in 'WF']
        if not cand:
            cand = [n for n in self.inflight(dev) if not n.await_q and n.pre]
        return min(cand, key=lambda n: n.id) if cand else None

    def containing(self, dev, s, nr, op):
        """The bio a piece [s, s + nr) comes from: one of exactly that range
        that sent nothing down yet, else the oldest holding it."""
        cand = [n for n in self.inflight(dev)
                if not n.await_q and n.op == op and n.sector <= s and s + nr <= n.end and n.nr]
        exact = [n for n in cand if n.sector == s and n.nr == nr and not n.children]
        cand = exact or cand
        return min(cand, key=lambda n: n.id) if cand else None

    def on_remap(self, ev):
        dev, s, nr, op = ev['dev'], ev['sector'], ev['nr'], ev['op']
        old, olds = ev['old_dev'], ev['old_sector']
        od = self.devs.get(old)
        src = None
        if od is not None and od.partition:
            # a remap into a partition: the bio waits at the disk with the
            # partition-relative sector, and was really at the partition
            for n in self.inflight(dev):
                if n.await_q and n.sector == olds and n.nr == nr and n.op == op:
                    self.nodes[dev].remove(n)
                    n.dev = old
                    n.await_q = False
                    self.nodes.setdefault(old, []).append(n)
                    src = n
                    break
            if src is None:
                src = self.new_node(old, olds, nr, op, ev['pre'], ev['fua'], ev['ts'])
                src.pid, src.comm = ev['pid'], ev['comm']
                src.cls = 'top' if self.is_top(old) else None
                if src.cls is None:
                    src.issuer = self.uppers(old)[0] if self.uppers(old) else old
                    src.candidates = self.held_candidates(old, olds, nr, ev)
            child = self.new_node(dev, s, nr, op, ev['pre'], ev['fua'], ev['ts'], src)
            child.await_q = True
            return
        if self.raid5(old):
            self.raid5_remap(ev)
            return
        if nr == 0:
            src = self.flush_source(old)
        else:
            src = self.containing(old, olds, nr, op)
        if src is None:
            n = self.new_node(dev, s, nr, op, ev['pre'], ev['fua'], ev['ts'])
            n.pid, n.comm = ev['pid'], ev['comm']
            n.issuer = old
            n.await_q = True
            n.cls = 'unexplained'
            self.note('remap with no source at %s' % old)
            return
        child = self.new_node(dev, s, nr, op, ev['pre'], ev['fua'], ev['ts'], src)
        child.await_q = True

    # ---- md raid4/5/6: geometry ----
    def raid5_geom(self, md):
        d = self.devs[md]
        g = self.geom.get(md)
        if g is None:
            chunk = int(d.md['chunk_size']) // 512
            n = int(d.md['raid_disks'])
            g = self.geom[md] = {'chunk': chunk, 'n': n, 'idx': {}, 'off': None}
        return g

    def raid5_learn(self, md, member, msec, asec):
        """A data block's remap: the member's index in the array and the data offset."""
        g = self.raid5_geom(md)
        chunk, n = g['chunk'], g['n']
        row = asec // chunk // (n - 1)
        k = asec // chunk % (n - 1)
        pd = (n - 1) - row % n          # left-symmetric (md's default)
        g['idx'][member] = (pd + 1 + k) % n
        g['off'] = msec - row * chunk - asec % chunk

    def stripe_ranges(self, md, member, msec, nr):
        """The array ranges of the data blocks of the stripe (row, offsets)
        member sector @msec belongs to; and the array sector at @msec on
        @member if it holds data there, else None (parity)."""
        g = self.raid5_geom(md)
        chunk, n, off = g['chunk'], g['n'], g['off']
        rel = msec - off
        row, o = rel // chunk, rel % chunk
        pd = (n - 1) - row % n
        base = row * chunk * (n - 1)
        ranges = [(base + k * chunk + o, base + k * chunk + o + nr) for k in range(n - 1)]
        here = None
        idx = g['idx'].get(member)
        if idx is not None and idx != pd:
            k = (idx - pd - 1) % n
            here = base + k * chunk + o
        return ranges, here

    def raid5_remap(self, ev):
        dev, s, nr, op = ev['dev'], ev['sector'], ev['nr'], ev['op']
        md, asec = ev['old_dev'], ev['old_sector']
        if asec:
            self.raid5_learn(md, dev, s, asec)
        g = self.raid5_geom(md)
        if g['off'] is None or nr == 0:
            # no data remap seen yet: cannot place it
            src = self.flush_source(md) if nr == 0 else self.containing(md, asec, nr, op)
            self.remap_child_or_root(ev, src, md, None)
            return
        ranges, here = self.stripe_ranges(md, dev, s, nr)
        if asec == 0 and here is not None:
            asec = here
        src = None
        if asec or here is not None:
            src = self.containing(md, asec, nr, op)
        if src is not None:
            self.remap_child_or_root(ev, src, md, None)
            return
        # stripe I/O md does itself: for the oldest write (discard) in flight
        # at the array that touches this stripe (read-modify-write,
        # reconstruct-write, parity), else its own
        want = 'D' if op == 'D' else 'W'
        writes = [w for w in self.inflight(md) if w.op == want and w.nr and
                  any(w.sector < b and a < w.end for a, b in ranges)]
        cause = min(writes, key=lambda w: w.id) if writes else None
        self.remap_child_or_root(ev, None, md, cause)

    def remap_child_or_root(self, ev, src, issuer, cause):
        dev, s, nr, op = ev['dev'], ev['sector'], ev['nr'], ev['op']
        if src is not None:
            n = self.new_node(dev, s, nr, op, ev['pre'], ev['fua'], ev['ts'], src)
        else:
            n = self.new_node(dev, s, nr, op, ev['pre'], ev['fua'], ev['ts'])
            n.pid, n.comm = ev['pid'], ev['comm']
            n.issuer = issuer
            if cause is not None:
                n.cls = 'caused'
                n.cause = cause.root
        n.await_q = True

    def on_split(self, ev):
        dev, s, cut = ev['dev'], ev['sector'], ev['cut']
        if cut == s:
            # dm names the remainder: the pieces come as remaps (or, held,
            # are submitted below as they are)
            for n in self.inflight(dev):
                if n.sector <= s < n.end and n.op == ev['op']:
                    n.split = True
            return
        cand = [n for n in self.inflight(dev) if not n.await_q and n.rq is None and n.op == ev['op']
                and n.sector == s and cut < n.end]
        if not cand:
            return
        n = min(cand, key=lambda n: n.id)
        if n.parent is None and self.is_top(dev):
            n.whole = True  # md: the bio goes on as the remainder and completes last
            return
        # the block layer: the remainder goes on as a bio of its own, no queue event
        rest = self.new_node(dev, cut, n.end - cut, n.op, n.pre, n.fua, n.q, n.parent)
        rest.qev = n.qev
        if n.parent is None:
            rest.cls, rest.issuer, rest.pid, rest.comm = n.cls, n.issuer, n.pid, n.comm
            rest.cause = n.cause
        n.nr = cut - n.sector

    def on_bio_complete(self, ev):
        dev, s, nr, op = ev['dev'], ev['sector'], ev['nr'], ev['op']
        cand = [n for n in self.inflight(dev) if not n.await_q and n.rq is None and n.op == op]
        exact = [n for n in cand if n.sector == s and n.nr == nr]
        byend = [n for n in cand if n.end == s + nr]
        pick = exact or byend
        if pick:
            self.complete(min(pick, key=lambda n: n.id), ev['ts'])
            return
        if any(n.whole and n.sector <= s and s + nr <= n.end for n in cand):
            return      # a piece of a bio split at the top
        self.note('bio completion with no bio at %s' % dev)

    # ---- requests ----
    def rqs_at(self, dev):
        return self.rqs.setdefault(dev, [])

    def unplaced(self, dev, s, nr, op):
        cand = [n for n in self.inflight(dev) if not n.await_q and n.rq is None and n.sent is None
                and n.sector == s and n.nr == nr and n.op == op]
        return min(cand, key=lambda n: n.id) if cand else None

    def on_getrq(self, ev):
        dev, s, nr, op = ev['dev'], ev['sector'], ev['nr'], ev['op']
        r = Rq(dev, s, s + nr, op)
        self.rqs_at(dev).append(r)
        b = self.unplaced(dev, s, nr, op)
        if b is not None:
            b.rq = r
            r.nodes.append(b)

    def on_merge(self, ev, back):
        dev, s, nr, op = ev['dev'], ev['sector'], ev['nr'], ev['op']
        for r in self.rqs_at(dev):
            if r.live and not r.issued and r.op == op and (r.end == s if back else r.start == s + nr):
                if back:
                    r.end = s + nr
                else:
                    r.start = s
                b = self.unplaced(dev, s, nr, op)
                if b is not None:
                    b.rq = r
                    r.nodes.append(b)
                return
        self.note('merge with no request at %s' % dev)

    def on_rq_merge(self, ev):
        dev, s, op = ev['dev'], ev['sector'], ev['op']
        lst = self.rqs_at(dev)
        frm = next((r for r in lst if r.live and not r.issued and r.op == op and r.start == s), None)
        if frm is None:
            return
        into = next((r for r in lst if r is not frm and r.live and not r.issued and r.op == op and
                     (r.end == frm.start or r.start == frm.end)), None)
        if into is None:
            return
        if into.end == frm.start:
            into.end = frm.end
        else:
            into.start = frm.start
        for b in frm.nodes:
            b.rq = into
            into.nodes.append(b)
        frm.nodes = []
        frm.live = False

    def find_rq(self, dev, s, nr, op, issued):
        """A request at @s: of exactly that size first, else any."""
        cand = [r for r in self.rqs_at(dev) if r.live and r.issued == issued and r.op == op
                and r.start == s]
        exact = [r for r in cand if r.end - r.start == nr]
        pick = exact or cand
        return pick[0] if pick else None

    def on_issue(self, ev):
        dev, s, nr, op = ev['dev'], ev['sector'], ev['nr'], ev['op']
        r = self.find_rq(dev, s, nr, op, False)
        if r is None:
            # a request no bio started: a flush of the flush machinery, or a
            # driver's own command (SCSI passthrough)
            n = self.new_node(dev, s, nr, op, ev['pre'], ev['fua'], ev['ts'])
            n.pid, n.comm = ev['pid'], ev['comm']
            n.issuer = dev
            if op == 'F':
                # the flush is for a bio that asked for one and ends after it
                n.candidates = [b for b in self.inflight(dev) if (b.pre or b.fua) and b is not n]
                n.flush_for = True
            r = Rq(dev, s, s + nr, op)
            r.nodes.append(n)
            n.rq = r
            self.rqs_at(dev).append(r)
        r.issued = True
        for b in r.nodes:
            if b.sent is None:
                b.sent = ev['ts']

    def on_rq_remap(self, ev):
        """Request-based dm clones a request it issued onto a path."""
        dev, s, nr, op = ev['dev'], ev['sector'], ev['nr'], ev['op']
        old, olds = ev['old_dev'], ev['old_sector']
        cand = [r for r in self.rqs_at(old) if r.live and r.issued and r.op == op and r.start == olds
                and r.clone_of is None]
        if not cand:
            self.note('request remap with no request at %s' % old)
            return
        src = cand[-1]
        clone = Rq(dev, s, s + nr, op)
        clone.clone_of = src
        for b in src.nodes:
            c = self.new_node(dev, s, nr, op, ev['pre'], ev['fua'], ev['ts'], b)
            c.rq = clone
            clone.nodes.append(c)
        self.rqs_at(dev).append(clone)

    def drop_clones(self, r):
        """A request dm requeued: the clones it had that were never issued
        (rejected by their path) are gone."""
        for lst in self.rqs.values():
            for c in lst:
                if c.clone_of is r and c.live and not c.issued:
                    c.live = False
                    for n in c.nodes:
                        n.parent.children.remove(n)
                        self.nodes[n.dev].remove(n)
                        n.done = True
                    c.nodes = []

    def on_requeue(self, ev):
        dev, s, nr, op = ev['dev'], ev['sector'], ev['nr'], ev['op']
        r = self.find_rq(dev, s, nr, op, True)
        if r is None:
            return
        r.issued = False
        self.drop_clones(r)

    def on_rq_complete(self, ev):
        dev, s, nr, op = ev['dev'], ev['sector'], ev['nr'], ev['op']
        r = self.find_rq(dev, s, nr, op, True)
        if r is None and nr == 0:
            # an empty flush bio's request completes with no issue
            r = next((x for x in self.rqs_at(dev) if x.live and not x.issued and x.op == op and
                      x.start == s and x.end == s), None)
        if r is None:
            if nr:
                self.note('request completion with no request at %s' % dev)
            return      # dm's second completion of a request (+ 0)
        if nr and any(b.pre or b.fua for b in r.nodes) and self.zero_after(dev, s, op, ev['ts']):
            # the flush machinery finishes a FUA (or preflush) write with a
            # post-flush: the request completes its data, then once more with
            # + 0, when its bios end
            r.issued = True
            r.start = r.end = s
            return
        done = s + nr
        keep = []
        for b in r.nodes:
            if nr == 0 or done >= r.end or b.end <= done:
                self.complete(b, ev['ts'])
            else:
                keep.append(b)
        r.nodes = keep
        if nr and done < r.end:
            r.start = done
            return
        r.live = False
        self.rqs[dev].remove(r)

    def index_zero(self, events):
        """Where each device completes a request with + 0 (look-ahead)."""
        self.zero = {}
        for ev in events:
            if ev['kind'] == 'block_rq_complete':
                k = (ev['dev'], ev['sector'], ev['op'])
                self.zero.setdefault(k, []).append((ev['ts'], ev['nr']))

    def zero_after(self, dev, s, op, ts):
        """Whether the next completion at @s after @ts is a + 0 one."""
        for t, nr in self.zero.get((dev, s, op), []):
            if t > ts:
                return nr == 0
        return False

    def take(self, ev):
        k = ev['kind']
        if k == 'block_bio_queue':
            self.on_queue(ev)
        elif k == 'block_bio_remap':
            self.on_remap(ev)
        elif k == 'block_rq_remap':
            self.on_rq_remap(ev)
        elif k == 'block_split':
            self.on_split(ev)
        elif k == 'block_bio_complete':
            self.on_bio_complete(ev)
        elif k == 'block_getrq':
            self.on_getrq(ev)
        elif k == 'block_bio_backmerge':
            self.on_merge(ev, True)
        elif k == 'block_bio_frontmerge':
            self.on_merge(ev, False)
        elif k == 'block_rq_merge':
            self.on_rq_merge(ev)
        elif k == 'block_rq_issue':
            self.on_issue(ev)
        elif k == 'block_rq_requeue':
            self.on_requeue(ev)
        elif k == 'block_rq_complete':
            self.on_rq_complete(ev)

    # ---- look-ahead decisions, once every event is in ----
    def resolve(self):
        for n in self.roots:
            if n.cls is not None or n.candidates is None:
                if n.cls is None:
                    n.cls = 'own'
                continue
            # the bio it served waited for it: sent down (or, for a flush,
            # completed) only once it completed
            if n.flush_for:
                c = [u for u in n.candidates if n.c is not None and u.c is not None and u.c >= n.c]
            else:
                # its data went down (a preflush's flush may go first) after
                c = [u for u in n.candidates if n.c is not None and
                     ((data_sent(u) is not None and data_sent(u) >= n.c) or
                      (data_sent(u) is None and u.c is not None and u.c >= n.c))]
            if c:
                n.cls = 'caused'
                n.cause = min(c, key=lambda u: u.id).root
            else:
                n.cls = 'own'
        # I/O issued for a layer's own I/O is the layer's own too: caused
        # is what serves a top-level I/O, through any chain of causes
        for n in self.roots:
            if n.cls == 'caused' and not serves_top(n):
                n.cls = 'own'

    def walk(self, root):
        out = []
        todo = [root]
        while todo:
            n = todo.pop()
            out.append(n)
            todo.extend(n.children)
        return out


def serves_top(n):
    """Whether the chain of causes from root @n leads to a top-level I/O."""
    while n.cause is not None:
        n = n.cause
    return n.cls == 'top'


def qtime(n):
    """When @n was queued at its device: its queue event, else its entry
    (a remap into a partition or a request clone, which queue nothing; a
    request the flush machinery made)."""
    return n.qev if n.qev is not None else n.q


def data_sent(n):
    """When the first piece of @n's data went down, None if none did."""
    t = [c.q for c in n.children if c.nr]
    if n.rq is not None and n.sent is not None:
        t.append(n.sent)
    return min(t) if t else None


def dev_text(dev):
    return dev.replace(',', ':')


def parse(path):
    for line in open(path, errors='replace'):
        m = LINE.match(line)
        if not m:
            continue
        comm, pid, _cpu, sec, frac, kind, rest = m.groups()
        if not kind.startswith('block_') or kind in ('block_plug', 'block_unplug', 'block_dirty_buffer',
                                                    'block_touch_buffer'):
            continue
        w = rest.split()
        if len(w) < 2 or ',' not in w[0]:
            continue
        ts = int(sec) * 1000000000 + int(frac.ljust(9, '0')[:9])
        op, pre, fua = rwbs_parse(w[1])
        ev = {'kind': kind, 'ts': ts, 'pid': int(pid), 'comm': comm, 'dev': w[0],
              'op': op, 'pre': pre, 'fua': fua, 'rwbs': w[1]}
        if kind == 'block_split':
            m2 = SPLIT.search(rest)
            if not m2:
                continue
            ev['sector'], ev['cut'], ev['nr'] = int(m2.group(1)), int(m2.group(2)), 0
        elif kind in ('block_bio_remap', 'block_rq_remap'):
            m2 = REMAP.search(rest)
            if not m2:
                continue
            ev['sector'], ev['nr'] = int(m2.group(1)), int(m2.group(2))
            ev['old_dev'] = m2.group(3) + ',' + m2.group(4)
            ev['old_sector'] = int(m2.group(5))
        else:
            m2 = RANGE.search(rest)
            if not m2:
                continue
            ev['sector'], ev['nr'] = int(m2.group(1)), int(m2.group(2))
        # a flush request is issued at 0 and completes at -1; its clone is remapped at -1
        if ev['sector'] == NOSECTOR:
            ev['sector'] = 0
        if ev.get('old_sector') == NOSECTOR:
            ev['old_sector'] = 0
        yield ev


def op_name(n):
    if n.op == 'F' or (n.nr == 0 and (n.pre or n.op == 'W')):
        return 'flush'
    return {'R': 'read', 'W': 'write', 'D': 'discard'}.get(n.op, 'other')


def key(n):
    return {'dev': dev_text(n.dev), 'sector': None if op_name(n) == 'flush' and n.op == 'F' else n.sector,
            'bytes': n.nr * 512, 'op': op_name(n), 'q_ns': qtime(n)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('topo')
    ap.add_argument('report')
    ap.add_argument('-o', '--output', default='-')
    a = ap.parse_args()
    o = Oracle(load_topo(a.topo))
    events = list(parse(a.report))
    o.index_zero(events)
    for ev in events:
        o.take(ev)
    o.resolve()
    caused = {}
    for n in o.roots:
        if n.cause is not None:
            caused[n.cause.id] = caused.get(n.cause.id, 0) + 1
    out = sys.stdout if a.output == '-' else open(a.output, 'w')
    for n in o.roots:
        nodes = o.walk(n)
        layers = {}
        for x in nodes:
            lay = layers.setdefault(dev_text(x.dev), [qtime(x), x.c])
            lay[0] = min(lay[0], qtime(x))
            if x.c is None or lay[1] is None:
                lay[1] = None
            else:
                lay[1] = max(lay[1], x.c)
        rec = key(n)
        rec.update({'class': n.cls, 'comm': n.comm, 'pid': n.pid,
                    'issuer': dev_text(n.issuer) if n.issuer else None,
                    'done': n.done and all(x.done for x in nodes),
                    'cause': key(n.cause) if n.cause else None,
                    'caused': caused.get(n.id, 0), 'layers': layers})
        out.write(json.dumps(rec) + '\n')
    for k, v in sorted(o.notes.items()):
        print('oracle: %d x %s' % (v, k), file=sys.stderr)


if __name__ == '__main__':
    main()
