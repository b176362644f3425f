#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
#
# check-layout.py - the include graph of src/ follows the data flow.
#
# Reads every `#include "..."` between the files of src/ and fails when:
#  - a file includes a header of a folder that src/README.md does not let
#    its folder use (the "may use" column of the table there: an arrow up
#    the stages, such as a reader including a command's header);
#  - the modules (x.c and x.h together) include each other in a circle;
#  - an include names a file that does not exist, a file of src/ sits in
#    no folder of the table, or is not in src/Makefile.am (the tarball of
#    make dist would lack it).
# The table in src/README.md is the one source of the rules, so the
# documentation and the check cannot drift apart. Exit 0 or 1.
import os
import re
import sys

top = os.environ.get("top_srcdir") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
src = os.path.join(top, "src")
failed = []


def fail(msg):
    failed.append(msg)
    print("FAIL: check-layout: " + msg, file=sys.stderr)


def read_rules():
    """folder -> set of folders it may use, from src/README.md's table"""
    rules = {}
    with open(os.path.join(src, "README.md"), encoding="utf-8") as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) < 4 or not re.fullmatch(r"`?[a-z]+/`?", cells[0]):
                continue
            folder = cells[0].strip("`/")
            uses = set(re.findall(r"\b([a-z]+)/", cells[-1]))
            rules[folder] = uses
    return rules


rules = read_rules()
if not rules:
    fail("no table of folders found in src/README.md")
    sys.exit(1)
for folder, uses in rules.items():
    for u in uses - set(rules):
        fail(f"src/README.md lets {folder}/ use {u}/, which is not a folder of the table")

with open(os.path.join(src, "Makefile.am"), encoding="utf-8") as f:
    listed = set(re.findall(r"[\w./-]+\.[ch]\b", f.read()))

# module ("track/tracker") -> set of modules it includes
graph = {}
include_re = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
for dirpath, _, names in os.walk(src):
    for name in sorted(names):
        if not name.endswith((".c", ".h")):
            continue
        path = os.path.join(dirpath, name)
        rel = os.path.relpath(path, src)
        folder = rel.split(os.sep)[0] if os.sep in rel else None
        if folder not in rules:
            fail(f"src/{rel} is in no folder of src/README.md's table")
            continue
        if rel not in listed:
            fail(f"src/{rel} is not listed in src/Makefile.am")
        mod = os.path.splitext(rel)[0]
        deps = graph.setdefault(mod, set())
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                m = include_re.match(line)
                if not m or m.group(1) == "config.h":
                    continue
                inc = m.group(1)
                if not os.path.isfile(os.path.join(src, inc)):
                    fail(f"src/{rel}:{n}: includes \"{inc}\", which is not a file of src/ "
                         "(name it from src/: \"folder/name.h\")")
                    continue
                to = inc.split("/")[0]
                if to != folder and to not in rules[folder]:
                    fail(f"src/{rel}:{n}: {folder}/ includes {inc}, but src/README.md "
                         f"lets {folder}/ use only {', '.join(sorted(rules[folder])) or 'nothing'}")
                dep = os.path.splitext(inc)[0]
                if dep != mod:
                    deps.add(dep)

# circles between modules (depth-first search, colours)
state = {}
stack = []


def visit(m):
    state[m] = 1
    stack.append(m)
    for d in sorted(graph.get(m, ())):
        if state.get(d) == 1:
            fail("circular includes: " + " -> ".join(stack[stack.index(d):] + [d]))
        elif d not in state:
            visit(d)
    stack.pop()
    state[m] = 2


sys.setrecursionlimit(10000)
for m in sorted(graph):
    if m not in state:
        visit(m)

if failed:
    sys.exit(1)
print(f"PASS: check-layout: {len(graph)} modules in {len(rules)} folders, "
      f"{sum(len(d) for d in graph.values())} includes, no circle, no arrow against the stages")
