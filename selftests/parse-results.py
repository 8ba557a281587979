#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn what the kselftest boot printed into one TAP document.

  parse-results.py --tests "A B C" --heaps "system cma" --faults 0|1
                   --qemu-rc N --timeout S TESTS_LOG CONSOLE_LOG

TESTS_LOG is the second serial port: /init's @@ markers around each test
binary's output and the kmemleak report.  CONSOLE_LOG is the kernel's log.
Each binary becomes a parent result with its own results indented below it
(upstream's dmabuf-heap.c prints no TAP: its "Testing ...: OK" lines become
the results), followed by a leaf result saying whether it ran to the end.
Harness-level checks (heaps present, boot completed, kernel log clean,
kmemleak report empty, fault injection set up for the fail-nth loops) are
leaf results too, so tap-count.py counts a kernel WARNING or a missing
binary as a failure.  The fail-nth loops' step counts ("failnth heap=...")
are repeated as comments at the end.  Prints the TAP; exits 1
when anything failed.
"""
import argparse
import os
import re
import sys

# The kernel log is judged by scripts/kernel_log.py, shared with the KUnit
# boots of run_kunit.sh.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
from kernel_log import bad_lines  # noqa: E402

MARK = re.compile(r"^@@ (\w+)\s?(.*)$")


class Tap:
    def __init__(self):
        self.lines = []
        self.n = 0
        self.failed = 0

    def result(self, ok, desc, directive=""):
        self.n += 1
        if not ok:
            self.failed += 1
        d = f" # {directive}" if directive else ""
        self.lines.append(f"{'ok' if ok else 'not ok'} {self.n} {desc}{d}")

    def comment(self, text):
        for line in text.splitlines():
            self.lines.append(f"# {line}")

    def raw(self, line):
        self.lines.append(line)

    def dump(self):
        return "\n".join(["TAP version 13", f"1..{self.n}"] + self.lines) + "\n"


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read().replace("\r", "").splitlines()
    except OSError:
        return []


def sections(lines):
    """The @@ BEGIN/END sections of the test log, the other markers."""
    secs, marks, cur, body = {}, {}, None, []
    for line in lines:
        m = MARK.match(line)
        if not m:
            if cur:
                body.append(line)
            continue
        kind, rest = m.group(1), m.group(2)
        if kind == "BEGIN":
            cur, body = rest.split()[0], []
        elif kind == "END" and cur:
            rc = re.search(r"rc=(\d+)", rest)
            secs[cur] = (body, int(rc.group(1)) if rc else None)
            cur = None
        else:
            marks[kind] = rest
    if cur:  # began, never ended: crashed or timed out inside
        secs[cur] = (body, None)
    return secs, marks


RESULT = re.compile(r"^(not ok|ok)\s+(\d+)")
PLAN = re.compile(r"^1\.\.(\d+)")


def harness_binary(tap, name, body, rc):
    """A kselftest_harness binary: its TAP indented under a parent."""
    results = []
    plan = None
    for line in body:
        tap.raw("  " + line)
        m = RESULT.match(line)
        if m:
            results.append(m.group(1) == "ok")
        m = PLAN.match(line)
        if m:
            plan = int(m.group(1))
    ok = rc == 0 and plan is not None and plan == len(results) and all(results)
    tap.result(ok, f"{name}")
    tap.result(rc == 0 and plan is not None and plan == len(results) and plan > 0,
               f"{name}: ran to the end (exit {rc}, plan {plan}, {len(results)} results)")


def upstream_binary(tap, name, body, rc, heaps_found):
    """Upstream's dmabuf-heap.c: "Testing heap: X" then "  Testing ...: OK"."""
    heap = None
    tested = []
    sub = []
    for line in body:
        tap.raw("  # " + line)
        m = re.match(r"^Testing heap: (\S+)", line)
        if m:
            heap = m.group(1)
            tested.append(heap)
            continue
        m = re.match(r"^\s+Testing (.*?):\s*(.*)$", line)
        if m and heap:
            desc, verdict = m.group(1), m.group(2)
            ok = "OK" in verdict and "FAIL" not in verdict and "skipping" not in verdict
            sub.append((ok, f"{heap}: {desc}" + ("" if ok else f" ({verdict.strip()})")))
    for i, (ok, desc) in enumerate(sub, 1):
        tap.raw(f"  {'ok' if ok else 'not ok'} {i} {desc}")
    tap.result(rc == 0 and sub and all(ok for ok, _ in sub), name)
    missing = [h for h in heaps_found if h not in tested]
    tap.result(rc == 0 and not missing and bool(tested),
               f"{name}: exit {rc}, tested every heap"
               + (f" (not tested: {' '.join(missing)})" if missing else ""))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tests", default="")
    ap.add_argument("--heaps", default="")
    ap.add_argument("--faults", type=int, default=0,
                    help="1: the kernel has fault injection; /init must set it up")
    ap.add_argument("--gcov", type=int, default=0,
                    help="1: the kernel has gcov; /init must write its data out")
    ap.add_argument("--kmemleak", type=int, default=1,
                    help="0: the boot ran without kmemleak (the swiotlb boot)")
    ap.add_argument("--qemu-rc", type=int, default=0)
    ap.add_argument("--timeout", type=int, default=0)
    ap.add_argument("tests_log")
    ap.add_argument("console_log")
    a = ap.parse_args()

    tap = Tap()
    secs, marks = sections(read(a.tests_log))
    console = read(a.console_log)
    heaps_found = marks.get("HEAPS", "").split()

    tap.result("BOOT" in marks, f"boot: /init started ({marks.get('BOOT', 'no output')})")
    # The heaps the config builds are registered: the system,
    # system-contig, chunk and carveout heaps by name (a device tree's
    # carveout by its node's, carveout@ADDRESS), the CMA heap as any other
    # heap (its name is its CMA area's) but a further carveout (carveout-*,
    # the swiotlb boot's carveout-big).
    named = ("system", "system-contig", "chunk", "carveout")
    for h in a.heaps.split():
        if h == "cma":
            others = [x for x in heaps_found
                      if x not in named and not x.startswith("carveout-")
                      and not x.startswith("carveout@")]
            tap.result(bool(others), f"heap: a CMA heap is registered ({' '.join(others) or 'none'})")
        elif h == "carveout":
            found = [x for x in heaps_found
                     if x == h or x.startswith("carveout@")]
            tap.result(bool(found), f"heap: a carveout heap is registered ({' '.join(found) or 'none'})")
        else:
            tap.result(h in heaps_found, f"heap: {h} is registered")
    tap.result(bool(marks.get("DRI", "").split()), f"vgem: /dev/dri has {marks.get('DRI', '') or 'nothing'}")
    if a.faults:
        # What the fail-nth loops rely on: see selftests/init.sh.
        f = marks.get("FAULTS", "")
        want = ["failslab: ignore-gfp-wait=N verbose=0 probability=0",
                "fail_page_alloc: ignore-gfp-wait=N ignore-gfp-highmem=N min-order=0 verbose=0 probability=0"]
        tap.result(all(w in f for w in want),
                   f"fault injection: set up for fail-nth ({f or 'no @@ FAULTS from /init'})")

    for t in a.tests.split():
        if t not in secs:
            tap.result(False, f"{t}: did not run")
            continue
        body, rc = secs[t]
        if t == "dmabuf-heap":
            upstream_binary(tap, t, body, rc, heaps_found)
        else:
            harness_binary(tap, t, body, rc)

    body, rc = secs.get("kmemleak", ([], None))
    leaks = [line for line in body if line.strip()]
    if leaks:
        tap.comment("\n".join(leaks[:200]))
    if a.kmemleak:
        tap.result(rc == 0 and not leaks,
                   "kmemleak: report empty" if rc == 0 else "kmemleak: no report")

    if a.gcov:
        n = sum(1 for line in read(a.tests_log) if line.startswith("@@ GCDA "))
        tap.result(n > 0, f"gcov: data of {n} objects written out")

    bad, _ = bad_lines(console)
    if bad:
        tap.comment("kernel log:\n" + "\n".join(bad[:100]))
    tap.result(not bad, f"kernel log: no BUG, WARNING, KASAN, lockdep or kmemleak report ({len(bad)} lines)")

    timed_out = a.qemu_rc in (124, 137)
    tap.result("DONE" in marks and not timed_out,
               "boot: ran to the end and powered off"
               + (f" (timed out after {a.timeout}s)" if timed_out else "")
               + ("" if "DONE" in marks else " (no @@ DONE)"))
    failnth = [line.split(":", 3)[-1].strip() for body, _ in secs.values()
               for line in body if "failnth heap=" in line]
    if failnth:
        tap.comment("fail-nth loops:\n" + "\n".join(failnth))
    retried = [line for line in console if "VM_FAULT_OOM leaked out" in line]
    if retried:
        tap.comment(f"{len(retried)} console lines 'Huh VM_FAULT_OOM leaked out to the #PF handler. "
                    "Retrying PF' (a page fault whose allocation fail-nth failed, retried; rate-limited)")
    if "CMA" in marks:
        tap.comment("CMA areas: " + marks["CMA"])
    if "MEMINFO" in marks:
        tap.comment("meminfo at the end: " + marks["MEMINFO"])
    sys.stdout.write(tap.dump())
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
