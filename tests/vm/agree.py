#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""I/O by I/O, blkstack's rows (convert --to jsonl) against the oracle's
truth (oracle.py) of the same recording.

    agree.py ORACLE.jsonl BLKSTACK.jsonl [--min PERCENT] [--diff N]

An I/O is the same in both when its root is: device, queue time (q_ns)
and operation.  It agrees when both give it the same class (top, caused,
own, unexplained), the same cause where the oracle knows one (the causing
I/O's root device and queue time: blkstack's "cause" object), and the same
devices reached.  Rows of blkstack that the oracle does not have count
against the agreement, as do the oracle's I/Os that blkstack lacks.  Times
at each layer (first queue, last completion) are compared on the I/Os that
agree and reported beside.  A cause of blkstack's names its I/O twice, by
number ("io") and by device and queue time: where that row is there, the
two must name the same row, or the file fails whatever its agreement.

Prints "agree PERCENT N OF M", per-class counts of both, and the first N
differences; exits 1 when the agreement is below --min (default 99.5).
"""
import argparse
import collections
import json
import sys


def load(path):
    rows = []
    for line in open(path):
        line = line.strip()
        if line:
            rows.append(json.loads(line))
    return rows


def ident(r):
    return (r['dev'], r['q_ns'], r['op'])


def devices(r):
    if isinstance(r['layers'], dict):
        return sorted(r['layers'])
    return sorted({lay['dev'] for lay in r['layers']})


def times(r):
    if isinstance(r['layers'], dict):
        return {d: tuple(v) for d, v in r['layers'].items()}
    return {lay['dev']: (lay['q_ns'], lay['c_ns']) for lay in r['layers']}


def cause(r):
    c = r.get('cause')
    return (c['dev'], c['q_ns']) if c else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('oracle')
    ap.add_argument('blkstack')
    ap.add_argument('--min', type=float, default=99.5)
    ap.add_argument('--diff', type=int, default=10)
    a = ap.parse_args()
    truth = load(a.oracle)
    ours = load(a.blkstack)
    if ours and 'class' not in ours[0]:
        print('agree: %s has no "class" field: not a blkstack jsonl of this version' % a.blkstack)
        return 2
    byid = collections.defaultdict(list)
    for r in ours:
        byid[ident(r)].append(r)
    rows = {r['io']: r for r in ours}
    wrong_io = [r for r in ours if r.get('cause') and r['cause']['io'] in rows and
                (rows[r['cause']['io']]['dev'], rows[r['cause']['io']]['q_ns']) != cause(r)]
    agree = 0
    timed = 0
    diffs = collections.Counter()
    examples = []
    count_t = collections.Counter(r['class'] for r in truth)
    count_o = collections.Counter(r['class'] for r in ours)

    def differ(why, t, o):
        diffs[why] += 1
        if len(examples) < a.diff:
            examples.append('%s: oracle %s / blkstack %s' % (
                why, json.dumps({k: t.get(k) for k in ('dev', 'sector', 'bytes', 'op', 'q_ns', 'class',
                                                       'cause', 'comm')}) if t else '-',
                json.dumps({k: o.get(k) for k in ('dev', 'sector', 'bytes', 'op', 'q_ns', 'class', 'cause',
                                                  'comm')} | {'devs': devices(o)}) if o else '-'))

    for t in truth:
        cand = byid.get(ident(t))
        if not cand:
            differ('missing in blkstack', t, None)
            continue
        o = cand.pop(0)
        if o['class'] != t['class']:
            differ('class %s, blkstack %s' % (t['class'], o['class']), t, o)
        elif t['cause'] and cause(o) != (t['cause']['dev'], t['cause']['q_ns']):
            differ('other cause' if cause(o) else 'no cause', t, o)
        elif devices(o) != devices(t):
            differ('devices %s, blkstack %s' % (','.join(devices(t)), ','.join(devices(o))), t, o)
        else:
            agree += 1
            if times(o) == times(t):
                timed += 1
            else:
                diffs['times differ (not counted)'] += 1
    extra = [r for v in byid.values() for r in v]
    for o in extra:
        differ('not in the oracle', None, o)
    total = len(truth) + len(extra)
    pct = 100.0 * agree / total if total else 100.0
    print('agree %.2f%% %d of %d (times equal at every layer: %d)' % (pct, agree, total, timed))
    print('oracle   top %d caused %d own %d unexplained %d' % (
        count_t['top'], count_t['caused'], count_t['own'], count_t['unexplained']))
    print('blkstack top %d caused %d own %d unexplained %d' % (
        count_o['top'], count_o['caused'], count_o['own'], count_o['unexplained']))
    for why, n in diffs.most_common():
        print('differ %d %s' % (n, why))
    for e in examples:
        print('example ' + e)
    for r in wrong_io[:a.diff]:
        print('cause names two rows: io %d (%s) / dev %s q_ns %d' % (
            r['cause']['io'], rows[r['cause']['io']]['dev'], r['cause']['dev'], r['cause']['q_ns']))
    if wrong_io:
        print('differ %d causes whose io and dev, q_ns name different rows' % len(wrong_io))
        return 1
    return 0 if pct >= a.min else 1


if __name__ == '__main__':
    sys.exit(main())
