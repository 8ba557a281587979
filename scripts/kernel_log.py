#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Find what the kernel printed when something went wrong that no test saw.

  kernel_log.py NAME CONSOLE    checks one boot's console

Prints one TAP result for the console ("ok"/"not ok"), the offending lines
as TAP comments, and exits 1 when there are any.  An empty or missing
console is a failure too (the boot left nothing to check).

selftests/parse-results.py imports bad_lines() for the kselftest boot, so
both harnesses judge a kernel log the same way.
"""
import os
import re
import sys

# What the kernel prints when something is wrong: BUG (with KASAN, sleeping
# in atomic context, bad page state...), WARNING (with lockdep's reports and
# suspicious RCU usage), oopses and panics, UBSAN, kmemleak, list debugging,
# and DMA-API debug errors (kernel/dma/debug.c's err_printk prints
# "DMA-API: <driver> <device>: <what>" and then a WARNING).
BAD = re.compile(
    r"BUG:|WARNING:|KASAN:|kernel BUG|Kernel panic|Oops|general protection fault"
    r"|possible circular locking|possible recursive locking|inconsistent lock state"
    r"|suspicious RCU usage|sleeping function called from invalid context"
    r"|INFO: trying to register|turning off the locking correctness validator"
    r"|INFO: possible|INFO: task .* blocked|suspected memory leak"
    r"|kmemleak: .*(disabled|Cannot)|list_(add|del) corruption|Call Trace:"
    r"|UBSAN:|Out of memory|oom-kill|invalid opcode|DMA-API: ")
# Lines the pattern would otherwise catch that say nothing is wrong.
BENIGN = re.compile(
    r"lockdep: |Lock dependency validator|lock debugging|in-kernel lock dependency"
    r"|MAX_LOCKDEP|kmemleak: Kernel memory leak detector initialized"
    r"|DMA-API: (preallocated \d+ debug entries|debugging enabled by kernel config"
    r"|Mapped at:|dma_debug_entry pool grown)")

# Known warnings, each allowed only as this exact message line (the line
# after "[ cut here ]").  Its WARNING line and call trace are allowed with
# it; anything else bad inside the same block still counts.
ALLOWED_WARNINGS = {
    # None.  DMA-API debug's "cacheline tracking EEXIST, overlapping
    # mappings aren't supported" used to be allowed here for the attach
    # suite's four attachments mapped at once; they now map to the device
    # only, which DMA-API debug does not track by cacheline, so the warning
    # is gone and would fail a boot again.
}

TIME = re.compile(r"^\[\s*\d+\.\d+\]\s?")
CUT = "------------[ cut here ]------------"
END_TRACE = re.compile(r"^---\[ end trace [0-9a-f]+ \]---")
FAULT_INJECTION = "FAULT_INJECTION: forcing a failure"
# The allocator's own report of a failed allocation (warn_alloc()), with a
# stack dump: what an allocation without __GFP_NOWARN prints when fail-nth
# fails it, such as the vzalloc() in gen_pool_add() that the carveout
# heap's registration test fails.  A failure is not a bug; the OOM killer
# and "Out of memory" still are.
ALLOC_FAILURE = re.compile(r": (vmalloc error: size|page allocation failure: order)")
# dma-heap-init-test's take=class and take=kobj boots (run_kunit.sh) have
# dma_heap_init() create a name in sysfs that is taken, and sysfs says so
# with a stack dump.  Allowed only in a boot whose command line has
# dma_heap_init_test.take=, and only for those two names.
INIT_TAKE = "dma_heap_init_test.take="
TAKEN_NAME = re.compile(r"sysfs: cannot create duplicate filename '/(class|kernel)/dma_heap'")


def strip(line):
    return TIME.sub("", line.rstrip("\r\n").replace("\r", ""))


def bad_lines(lines):
    """The lines of a console that report a problem, and the allowed
    warnings seen (as a list of messages).

    Fault injection ("FAULT_INJECTION: forcing a failure", then a stack
    dump) is what the error-path tests ask for: its call trace is not an
    error, nor is that of the allocator's report of a failed allocation.  A warning block whose message is in ALLOWED_WARNINGS is not
    either, except for other bad lines inside it."""
    bad, allowed = [], []
    block = None  # None outside a warning; else [message, allowed?]
    fault_dump = False  # a fault injection's stack dump is pending
    take_boot = False  # the command line has INIT_TAKE
    for raw in lines:
        line = strip(raw)
        if line.startswith("Kernel command line:") and INIT_TAKE in line:
            take_boot = True
        if take_boot and TAKEN_NAME.search(line):
            fault_dump = True
            allowed.append(line)
            continue
        if line == CUT:
            block = [None, False]
            continue
        if block is not None and block[0] is None:
            block[0] = line
            block[1] = line in ALLOWED_WARNINGS
            if block[1]:
                allowed.append(line)
                continue
        if END_TRACE.match(line):
            block = None
            continue
        if FAULT_INJECTION in line or ALLOC_FAILURE.search(line):
            fault_dump = True
            continue
        if line.strip() == "</TASK>":
            fault_dump = False
        if not BAD.search(line) or BENIGN.search(line):
            continue
        if block is not None and block[1] and (
                line.startswith("WARNING: ") or line.strip() == "Call Trace:"):
            continue
        if fault_dump and block is None and line.strip() == "Call Trace:":
            continue
        bad.append(line)
    return bad, allowed


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read().splitlines()
    except OSError:
        return None


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    name, path = argv[1], argv[2]
    lines = read(path)
    if not lines:
        print(f"not ok 1 {name}: console is clean (no console: {path})")
        return 1
    bad, allowed = bad_lines(lines)
    for msg in sorted(set(allowed)):
        print(f"# {name}: allowed ({allowed.count(msg)}x): {msg}")
    for line in bad[:100]:
        print(f"# {name}: {line}")
    if len(bad) > 100:
        print(f"# {name}: ... {len(bad) - 100} more")
    print(f"{'not ok' if bad else 'ok'} 1 {name}: console is clean "
          f"(no BUG, WARNING, KASAN, lockdep, UBSAN, kmemleak or DMA-API report; "
          f"{len(bad)} bad lines in {os.path.basename(path)})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
