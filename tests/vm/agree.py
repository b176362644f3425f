#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""I/O by I/O, blkstack's rows (convert --to jsonl) against the oracle's
truth (oracle.py) of the same recording.

    agree.py ORACLE.jsonl BLKSTACK.jsonl [--min PERCENT] [--diff N]

An I/O is the same in both when its root is: device, entry time and
operation.  It agrees when both give it the same class (top, caused, own),
the same cause for a caused I/O (the causing I/O's root device and entry
time), and the same devices reached.  Rows of blkstack that the oracle does
not have count against the agreement, as do the oracle's I/Os that blkstack
lacks.  Times at each layer (first entry, last completion) are compared on
the I/Os that agree and reported beside.

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
        elif t['class'] == 'caused' and cause(o) != (t['cause']['dev'], t['cause']['q_ns']):
            differ('other cause', t, o)
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
    print('oracle   top %d caused %d own %d' % (count_t['top'], count_t['caused'], count_t['own']))
    print('blkstack top %d caused %d own %d' % (count_o['top'], count_o['caused'], count_o['own']))
    for why, n in diffs.most_common():
        print('differ %d %s' % (n, why))
    for e in examples:
        print('example ' + e)
    return 0 if pct >= a.min else 1


if __name__ == '__main__':
    sys.exit(main())
