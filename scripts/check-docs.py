#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the documentation's shape; prints what is wrong, exits 1 if any.

  scripts/check-docs.py

- no title or text in README.md or docs/ names an issue ("issue 12");
- no cell of a README.md table is longer than 200 characters;
- docs/performance.md is under 200 lines and shows docs/performance.png;
- docs/README.md lists every document of docs/, one line each;
- every link [..](path) and every `docs/...` or `selftests/...`, `scripts/...`
  path named in backquotes exists.
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
os.chdir(ROOT)
bad = []
docs = sorted(os.path.join("docs", f) for f in os.listdir("docs")
              if f.endswith(".md") or f in ("cover-letter.txt",))
texts = {p: open(p, encoding="utf-8").read() for p in ["README.md"] + docs}

for p, t in texts.items():
    for n, line in enumerate(t.splitlines(), 1):
        if re.search(r"\bissues? #?[0-9]", line, re.I):
            bad.append("%s:%d: names an issue: %s" % (p, n, line.strip()[:80]))

for n, line in enumerate(texts["README.md"].splitlines(), 1):
    if line.startswith("|"):
        for cell in line.strip().strip("|").split("|"):
            if len(cell.strip()) > 200:
                bad.append("README.md:%d: a table cell of %d characters" % (n, len(cell.strip())))

perf = texts["docs/performance.md"]
if len(perf.splitlines()) >= 200:
    bad.append("docs/performance.md: %d lines, not under 200" % len(perf.splitlines()))
if "(performance.png)" not in perf:
    bad.append("docs/performance.md: does not show performance.png")

index = texts["docs/README.md"]
for f in sorted(os.listdir("docs")):
    if f == "README.md" or f.endswith(".png"):
        continue
    if index.count("](%s)" % f) != 1:
        bad.append("docs/README.md: %s is not listed once" % f)

for p, t in texts.items():
    base = os.path.dirname(p)
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", t):
        if "://" in target:
            continue
        if not os.path.exists(os.path.join(base, target)):
            bad.append("%s: link to a missing %s" % (p, target))
    for target in re.findall(r"`((?:docs|selftests|scripts|kunit)/[\w./-]+)`", t):
        # The kernel tree's own scripts are named too.
        if re.match(r"scripts/(Makefile|kconfig/|kernel-doc|checkpatch)", target):
            continue
        if not os.path.exists(target):
            bad.append("%s: names a missing %s" % (p, target))

for b in bad:
    print(b)
print("check-docs: %d problem%s" % (len(bad), "" if len(bad) == 1 else "s"))
sys.exit(1 if bad else 0)
