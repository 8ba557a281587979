#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write out the .gcda files that a boot printed to a serial port.

    gcov-extract.py LOG BUILD_DIR OUT_DIR

LOG holds "@@ GCDA <path>", base64 lines, "@@ GCDA-END" for each file, as
kunit/gcov/init.sh and selftests/init.sh print them; <path> is the file's
path under /sys/kernel/debug/gcov, which is the object's path in the build
directory the kernel was built in.  Each file is written to OUT_DIR at its
path relative to BUILD_DIR (made absolute).  Prints how many files were
written; exits 1 if none was.
"""
import base64
import os
import sys


def main():
    log, build, out = sys.argv[1:4]
    build = os.path.realpath(build).rstrip("/") + "/"
    path, chunks, written = None, [], 0
    with open(log, errors="replace") as f:
        for line in f:
            line = line.strip()
            if line.startswith("@@ GCDA "):
                path, chunks = line[len("@@ GCDA "):], []
            elif line == "@@ GCDA-END" and path:
                rel = path[len(build):] if path.startswith(build) else path.lstrip("/")
                dest = os.path.join(out, rel)
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                with open(dest, "wb") as g:
                    g.write(base64.b64decode("".join(chunks)))
                written += 1
                path = None
            elif path:
                chunks.append(line)
    print(written)
    return 0 if written else 1


if __name__ == "__main__":
    sys.exit(main())
