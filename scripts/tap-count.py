#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Count results for the final summary line.

  tap-count.py kunit JSON EXPECTED-SUITES [SUITE.CASE]
                                            counts a kunit.py --json file;
                                            SUITE.CASE must fail, and
                                            counts as passed if it did
  tap-count.py tap FILE...                  counts (K)TAP output
  tap-count.py sum FILE...                  adds up files of "P F S" counts

The first two print "passed failed skipped" for the leaves of the result
tree (a parameterised case counts once per parameter) and list each
failure, and each expected suite that did not run, on standard error.

A kunit.py JSON file is read with the KTAP next to it (NAME.ktap for
NAME.json): 6.1 prints a parameter's result without its SKIP directive,
so kunit.py has every skipped parameter as passed, but the case's
"# CASE: pass:P fail:F skip:S total:T" line has the skips.
"""
import json
import os
import re
import sys

SUITE = re.compile(r"^    # Subtest: (\S+)$")
PARAM_TOTALS = re.compile(r"^    # (\S+): pass:\d+ fail:\d+ skip:(\d+) total:\d+$")


def param_skips(ktap_path):
    """{(suite, case): parameters skipped} from a KUnit KTAP file."""
    skips = {}
    suite = None
    try:
        lines = open(ktap_path, errors="replace").read().splitlines()
    except OSError:
        return skips
    for line in lines:
        m = SUITE.match(line)
        if m:
            suite = m.group(1)
            continue
        m = PARAM_TOTALS.match(line)
        if m and suite and int(m.group(2)):
            skips[(suite, m.group(1))] = int(m.group(2))
    return skips


def count_json(path, expected_path, must_fail=None):
    passed = failed = skipped = 0
    try:
        with open(path) as f:
            root = json.load(f)
    except (OSError, ValueError) as e:
        print(f"no KUnit results: {e}", file=sys.stderr)
        return 0, 1, 0
    skips = param_skips(os.path.splitext(path)[0] + ".ktap")

    def walk(group, prefix):
        nonlocal passed, failed, skipped
        # A parameterised case (a group in a suite): its skipped
        # parameters are among those kunit.py has as passed.
        names = prefix.split(".")[:-1]
        if len(names) == 2 and tuple(names) in skips:
            ok = sum(c.get("status") == "PASS" for c in group.get("test_cases", []))
            moved = min(skips[tuple(names)], ok)
            passed -= moved
            skipped += moved
        for case in group.get("test_cases", []):
            status = case.get("status")
            if f"{prefix}{case.get('name')}" == must_fail:
                if status == "FAIL":
                    passed += 1
                else:
                    failed += 1
                    print(f"FAIL {must_fail}: {status}, but it must fail", file=sys.stderr)
                continue
            if status == "PASS":
                passed += 1
            elif status == "SKIP":
                skipped += 1
            else:
                failed += 1
                print(f"FAIL {prefix}{case.get('name')}: {status}", file=sys.stderr)
        for sub in group.get("sub_groups", []):
            walk(sub, f"{prefix}{sub.get('name')}.")

    walk(root, "")
    ran = {g.get("name") for g in root.get("sub_groups", [])}
    ran |= {c.get("name") for c in root.get("test_cases", [])}
    with open(expected_path) as f:
        for line in f:
            suite = line.split("#", 1)[0].strip()
            if suite and suite not in ran:
                failed += 1
                print(f"FAIL suite {suite} did not run", file=sys.stderr)
    return passed, failed, skipped


RESULT = re.compile(r"^(\s*)(not ok|ok)\b[^#]*(#\s*(\w+))?")


def count_tap(paths):
    """Leaves only: a result line whose subtests were printed before it at a
    deeper indentation is a parent, and counts through its children."""
    passed = failed = skipped = 0
    for path in paths:
        lines = open(path, errors="replace").read().splitlines()
        results = []
        for line in lines:
            m = RESULT.match(line)
            if m:
                results.append((len(m.group(1)), m.group(2), (m.group(4) or "").upper(), line))
        for i, (depth, status, directive, line) in enumerate(results):
            if i > 0 and results[i - 1][0] > depth:
                continue  # a parent of the results just before it
            if directive == "SKIP":
                skipped += 1
            elif status == "ok":
                passed += 1
            else:
                failed += 1
                print(f"FAIL {path}: {line.strip()}", file=sys.stderr)
    return passed, failed, skipped


def main(argv):
    if len(argv) >= 3 and argv[1] == "kunit":
        p, f, s = count_json(argv[2], argv[3], argv[4] if len(argv) > 4 else None)
    elif len(argv) >= 3 and argv[1] == "tap":
        p, f, s = count_tap(argv[2:])
    elif len(argv) >= 2 and argv[1] == "sum":
        p = f = s = 0
        for path in argv[2:]:
            a, b, c = (int(x) for x in open(path).read().split())
            p, f, s = p + a, f + b, s + c
    else:
        print(__doc__, file=sys.stderr)
        return 2
    print(p, f, s)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
