#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""check-regions.py BOOT KTAP CONSOLE EXPECTED: what each device-tree
region of EXPECTED (kunit/arm64-regions.expected) became in boot BOOT.

A region marked "heap" must have passed
dma_heap_of_regions.a_region_is_the_heap_it_describes (its parameter is
the node's name); any other region must have skipped it (no heap) and the
console must have exactly one line that names the node and gives the
reason that EXPECTED has for it.  Prints one line per region, "1 TEXT"
when it holds and "0 TEXT" when not, for run_kunit.sh to count."""
import re
import sys

boot, ktap, console, expected = sys.argv[1:5]

params = {}
no_heap = set()
inside = False
for line in open(ktap, errors="replace"):
    s = line.strip()
    if s == "# Subtest: a_region_is_the_heap_it_describes":
        inside = True
        continue
    if not inside:
        continue
    # A parameter's result line has no SKIP directive: the case logs
    # "NODE: no heap" before it skips.
    m = re.match(r"# a_region_is_the_heap_it_describes: (\S+): no heap$", s)
    if m:
        no_heap.add(m.group(1))
        continue
    m = re.match(r"(not ok|ok) \d+ (\S+)", s)
    if m and m.group(2) == "a_region_is_the_heap_it_describes":
        break
    if m:
        params[m.group(2)] = m.group(1)
for node in no_heap:
    if params.get(node) == "ok":
        params[node] = "skip"

log = [l.rstrip("\n") for l in open(console, errors="replace")]
for line in open(expected):
    line = line.split("#", 1)[0].strip()
    if not line:
        continue
    node, want = line.split(None, 1)
    got = params.get(node, "missing")
    if want == "heap":
        print("%d %s: region %s is its heap (its case: %s)"
              % (got == "ok", boot, node, got))
        continue
    said = [l for l in log if node in l and want in l]
    ok = got == "skip" and len(said) == 1
    print("%d %s: region %s has no heap and one message \"%s\" (its case: %s; %d such lines)"
          % (ok, boot, node, want, got, len(said)))
