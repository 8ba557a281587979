#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Mutants of the series' production code, and their results.

  mutate.py files                 the production files the series adds or
                                  changes (baseline..HEAD of $KDIR, no test
                                  file), restricted by $MUTATE_FILES
  mutate.py plan                  the mutants to run, one per line:
                                  ID FILE PATCH (cached results left out
                                  unless $MUTATE_FORCE=1; $MUTATE_IDS,
                                  $MUTATE_LIMIT restrict)
  mutate.py fingerprint           the hash of the tests and the harness's
                                  inputs that a boot reads
  mutate.py judge STAGE JSON CONSOLE RC GLOB
                                  "killed WHY" or "survived" for one boot
  mutate.py record ID STATUS TIME WHY...
  mutate.py report [--baseline]   docs/mutation.md (and kunit/mutation-baseline)
  mutate.py sample N SEED         N ids of kunit/mutation-baseline, chosen by SEED

Mutants come from spatch (scripts/mutation/*.cocci, one operator per
file, scripts/mutation/mut.py): each rule is run in find mode over the
file as $KDIR's HEAD holds it, then once per point it found in mutate
mode, whose diff is the mutant.  A mutant's id is a hash of its file, its
rule, the function it is in, the lines it removes and adds, and its rank
among mutants of those same five: it does not change when lines move.
Generated mutants are cached per content of the file (its blob), results
per mutant and blob in $DMA_HEAPS_CACHE/mutate/results/BLOB/ID.json.  A
survivor is run again when the tests changed (the blobs of every *test*
and *kunit* file the series has); a killed mutant is kept.
"""
import fnmatch
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.environ.get("DMA_HEAPS_CACHE",
                       os.path.join(os.environ.get("XDG_CACHE_HOME",
                                                   os.path.expanduser("~/.cache")),
                                    "dma-heaps"))
KDIR = os.environ.get("KDIR", os.path.join(CACHE, "linux"))
MDIR = os.path.join(CACHE, "mutate")
COCCI = os.path.join(REPO, "scripts", "mutation")
BASE = os.environ.get("MUTATE_BASE", "baseline")
EQUIV = os.path.join(REPO, "kunit", "mutation-equivalent")
BASELINE = os.path.join(REPO, "kunit", "mutation-baseline")
# The operators, in the order of the report; a mutant that two make (the
# same mutated file) belongs to the first.
OPERATORS = ["error-return", "negate", "bound", "release", "refcount",
             "zeroing", "sync", "sync-dir"]
TEST_FILE = re.compile(r"(test|kunit)[^/]*\.[ch]$")
def git(*args, cwd=KDIR):
    return subprocess.run(["git", *args], cwd=cwd, check=True,
                          capture_output=True, text=True).stdout


def production_files():
    out = git("diff", "--name-only", "--diff-filter=AM", BASE, "HEAD", "--", "*.c")
    files = [f for f in out.split() if not TEST_FILE.search(f)]
    want = os.environ.get("MUTATE_FILES", "").split()
    if want:
        files = [f for f in files
                 if any(f == w or f.endswith("/" + w) or fnmatch.fnmatch(f, w)
                        for w in want)]
    return files


def blob(path):
    return git("rev-parse", f"HEAD:{path}").strip()


def added_lines(path):
    """The lines of path the series added, or None when it added the file."""
    try:
        git("cat-file", "-e", f"{BASE}:{path}")
    except subprocess.CalledProcessError:
        return None
    lines = set()
    for m in re.finditer(r"^@@ -\S+ \+(\d+)(?:,(\d+))? @@", git(
            "diff", "-U0", BASE, "HEAD", "--", path), re.M):
        start, n = int(m.group(1)), int(m.group(2) or 1)
        lines.update(range(start, start + n))
    return lines


def tests_fingerprint():
    out = git("ls-tree", "-r", "HEAD", "--", "drivers/dma-buf")
    h = hashlib.sha1()
    for line in sorted(out.splitlines()):
        if TEST_FILE.search(line):
            h.update(line.encode())
    for f in ("kunitconfig", "kunit/qemu_x86_64.py", "kunit/qemu_arm64.py",
              "kunit/arm64.config", "kunit/arm64-selftest.config",
              "kunit/arm64-regions.dtsi", "kunit/arm64-regions.expected",
              "scripts/check-regions.py", "scripts/check-regions-console.sh"):
        with open(os.path.join(REPO, f), "rb") as fh:
            h.update(fh.read())
    return h.hexdigest()[:12]


def rules(cocci):
    return list(dict.fromkeys(re.findall(r'want\("([^"]+)"', open(cocci).read())))


def spatch(cocci, path, cwd, env, out=None):
    cmd = ["nice", "spatch", "--very-quiet", "--no-includes", "--sp-file", cocci, path]
    if out:
        cmd += ["-o", out]
    e = dict(os.environ, MUT_PY=COCCI, **env)
    return subprocess.run(cmd, cwd=cwd, env=e, capture_output=True, text=True)


def norm(lines):
    return " ".join(" ".join(lines).split())


def generate(path):
    """The mutants of path as HEAD holds it: a list of dicts, cached."""
    b = blob(path)
    cache = os.path.join(MDIR, "gen", b + ".json")
    stamp = hashlib.sha1()
    for f in sorted(os.listdir(COCCI)):
        stamp.update(open(os.path.join(COCCI, f), "rb").read())
    stamp = stamp.hexdigest()[:12]
    if os.path.exists(cache):
        with open(cache) as f:
            data = json.load(f)
        if data.get("operators") == stamp and data.get("path") == path:
            return data["mutants"]
    only = added_lines(path)
    mutants = []
    seen = set()
    ranks = {}
    with tempfile.TemporaryDirectory(prefix="mutate-") as tmp:
        src = os.path.join(tmp, path)
        os.makedirs(os.path.dirname(src), exist_ok=True)
        text = git("show", f"HEAD:{path}")
        with open(src, "w") as f:
            f.write(text)
        for op in OPERATORS:
            cocci = os.path.join(COCCI, op + ".cocci")
            for rule in rules(cocci):
                r = spatch(cocci, path, tmp, {"MUT_MODE": "find", "MUT_FIND": rule})
                if r.returncode:
                    sys.exit(f"spatch {op}.cocci ({rule}) failed on {path}:\n{r.stderr}")
                points = [json.loads(l[4:]) for l in r.stdout.splitlines()
                          if l.startswith("MUT ")]
                points = list({(p["line"], p["col"]): p for p in points}.values())
                points.sort(key=lambda p: (p["line"], p["col"]))
                for p in points:
                    if only is not None and p["line"] not in only:
                        continue
                    out = os.path.join(tmp, "out.c")
                    r = spatch(cocci, path, tmp, {"MUT_MODE": "mutate", "MUT_RULE": rule,
                                                  "MUT_LINE": str(p["line"]),
                                                  "MUT_COL": str(p["col"])}, out)
                    if r.returncode or not os.path.exists(out):
                        continue
                    new = open(out).read()
                    os.unlink(out)
                    if new == text or new in seen:
                        continue
                    seen.add(new)
                    d = subprocess.run(["diff", "-u", "--label", "a/" + path, "--label",
                                        "b/" + path, src, "-"], input=new,
                                       capture_output=True, text=True).stdout
                    minus = [l[1:] for l in d.splitlines()[2:]
                             if l.startswith("-")]
                    plus = [l[1:] for l in d.splitlines()[2:] if l.startswith("+")]
                    key = (path, rule, p["func"], norm(minus), norm(plus))
                    k = ranks[key] = ranks.get(key, -1) + 1
                    mid = hashlib.sha1("\0".join(map(str, key + (k,))).encode()
                                       ).hexdigest()[:12]
                    mutants.append({"id": mid, "file": path, "op": op, "rule": rule,
                                    "line": p["line"], "func": p["func"],
                                    "minus": norm(minus), "plus": norm(plus),
                                    "patch": d})
    os.makedirs(os.path.dirname(cache), exist_ok=True)
    with open(cache + ".tmp", "w") as f:
        json.dump({"path": path, "operators": stamp, "mutants": mutants}, f)
    os.replace(cache + ".tmp", cache)
    return mutants


def result_path(m):
    return os.path.join(MDIR, "results", blob(m["file"]), m["id"] + ".json")


def load_result(m):
    try:
        with open(result_path(m)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def all_mutants():
    return [m for f in production_files() for m in generate(f)]


def equivalents():
    eq = {}
    try:
        for line in open(EQUIV):
            line = line.strip()
            if line and not line.startswith("#"):
                mid, _, why = line.partition(" ")
                eq[mid] = why.strip()
    except OSError:
        pass
    return eq


def cmd_plan():
    ids = set(os.environ.get("MUTATE_IDS", "").split())
    limit = int(os.environ.get("MUTATE_LIMIT", "0") or 0)
    force = os.environ.get("MUTATE_FORCE") == "1"
    fp = tests_fingerprint()
    eq = equivalents()
    pdir = os.path.join(MDIR, os.environ.get("MUTATE_SLOT", "") + "patches")
    os.makedirs(pdir, exist_ok=True)
    n = 0
    for m in all_mutants():
        if ids and m["id"] not in ids:
            continue
        if not ids and m["id"] in eq:
            continue
        r = load_result(m)
        if r and not force and (r["status"] != "survived" or r.get("tests") == fp):
            continue
        patch = os.path.join(pdir, m["id"] + ".patch")
        with open(patch, "w") as f:
            f.write(m["patch"])
        print(m["id"], m["file"], patch, m["op"], m["line"], sep="\t")
        n += 1
        if limit and n >= limit:
            break


def cmd_judge(stage, jpath, console, rc, glob):
    """Whether one boot killed the mutant: a case failed, kunit.py failed
    (crash, timeout, no results), an expected suite did not run, or the
    console has a kernel report (scripts/kernel_log.py)."""
    failed = []
    ran = set()
    try:
        root = json.load(open(jpath))
    except (OSError, ValueError):
        root = None

    def walk(g, prefix):
        for c in g.get("test_cases", []):
            if c.get("status") not in ("PASS", "SKIP"):
                # A case that crashed may have no name: its suite's.
                failed.append(f"{prefix}{c['name']}" if c.get("name")
                              else f"{prefix.rstrip('.') or 'the kernel'} (a case crashed)")
        for s in g.get("sub_groups", []):
            if prefix == "":
                ran.add(s["name"])
            walk(s, f"{prefix}{s['name']}.")

    if root:
        walk(root, "")
    if failed:
        print(f"killed {stage}: {failed[0]} failed" +
              (f" (+{len(failed) - 1} more)" if len(failed) > 1 else ""))
        return
    suite_glob = glob.split(".", 1)[0] if glob else "*"
    expected = [l.split("#", 1)[0].strip()
                for l in open(os.path.join(REPO, "kunit", "expected-suites"))]
    missing = [s for s in expected if s and fnmatch.fnmatchcase(s, suite_glob)
               and s not in ran]
    bad = subprocess.run([os.path.join(REPO, "scripts", "kernel_log.py"), stage, console],
                         capture_output=True, text=True)
    if bad.returncode:
        lines = [l[2:] for l in bad.stdout.splitlines() if l.startswith("# ")]
        print(f"killed {stage}: kernel report: {(lines or ['?'])[0][:160]}")
        return
    if rc != "0":
        timeout = "timeout" if re.search(r"[Tt]imed? ?out|timeout",
                                         open(console, errors="replace").read()[-2000:]
                                         if os.path.exists(console) else "") else ""
        print(f"{'timeout' if timeout else 'killed'} {stage}: kunit.py exec exited {rc}")
        return
    if missing:
        print(f"killed {stage}: suite {missing[0]} did not run")
        return
    print("survived")


def cmd_record(mid, status, secs, why):
    for m in all_mutants():
        if m["id"] == mid:
            break
    else:
        sys.exit(f"no mutant {mid}")
    path = result_path(m)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    r = {"id": mid, "file": m["file"], "line": m["line"], "op": m["op"],
         "status": status, "by": why, "time": int(secs),
         "tests": tests_fingerprint(), "commit": git("rev-parse", "HEAD").strip()}
    with open(path + ".tmp", "w") as f:
        json.dump(r, f)
    os.replace(path + ".tmp", path)


def cmd_report(baseline):
    eq = equivalents()
    rows = {}
    survivors = []
    untested = 0
    killed_ids = []
    files = production_files()
    mutants = {f: generate(f) for f in files}
    for f in files:
        for m in mutants[f]:
            r = load_result(m)
            key = (f, m["op"])
            row = rows.setdefault(key, [0, 0, 0, 0, 0, 0])
            row[0] += 1
            if m["id"] in eq:
                row[3] += 1
                survivors.append((m, None, eq[m["id"]]))
            elif not r:
                row[5] += 1
                untested += 1
            elif r["status"] in ("killed", "timeout"):
                row[1] += 1
                killed_ids.append(m)
            elif r["status"] == "survived":
                row[2] += 1
                survivors.append((m, r, None))
            else:
                row[4] += 1
    out = ["# Mutation testing", "",
           "Made by `make mutate` (`scripts/mutate.sh`); do not edit.  Each mutant is one",
           "change that `spatch` makes with an operator of `scripts/mutation/`; it is",
           "killed when a KUnit case or a kselftest fails, the kernel reports (BUG,",
           "WARNING, KASAN, lockdep, kmemleak: `scripts/kernel_log.py`), or a boot",
           "hangs (its guest idle for 40 s, or past its timeout).  The boots, in order,",
           "until one kills it: the mutated file's own suites, every suite, the swiotlb",
           "boot, the nocma, init or arm64 boots for some files (arm64: the device-tree",
           "code of `carveout_heap.c` and `contiguous.c`, with the regions of",
           "`kunit/arm64-regions.dtsi`), and last the kselftest kernel",
           "with `dma-heap-test` (leaks, memory cgroups, module unload).",
           "`docs/harness.md` and `scripts/mutate.sh` say more.  `make test` runs one",
           "killed mutant of `kunit/mutation-baseline`, chosen by the commit id, in the",
           "stage that killed it, and fails if it survives.", "",
           f"Tree: `{git('rev-parse', '--short', 'HEAD').strip()}`.", "",
           "| file | operator | made | killed | survived | equivalent | not built | not run |",
           "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    tot = [0] * 6
    for (f, op), row in sorted(rows.items(), key=lambda kv: (kv[0][0], OPERATORS.index(kv[0][1]))):
        out.append(f"| `{f}` | {op} | " + " | ".join(map(str, row)) + " |")
        tot = [a + b for a, b in zip(tot, row)]
    out.append("| **all** | | " + " | ".join(f"**{x}**" for x in tot) + " |")
    done = tot[1] + tot[2]
    out += ["", f"Killed {tot[1]} of the {done} non-equivalent mutants run"
            + (f" ({100 * tot[1] // done}%)" if done else "") + "."]
    out += ["", "## Survivors and equivalent mutants", ""]
    if not survivors:
        out.append("None.")
    for m, r, why in sorted(survivors, key=lambda s: (s[0]["file"], s[0]["line"])):
        change = f"`{m['minus']}` → `{m['plus']}`" if m["plus"] else f"`{m['minus']}` removed"
        what = f"equivalent: {why}" if why is not None else "**survived**"
        out.append(f"- `{m['id']}` {m['file']}:{m['line']} ({m['func']}, {m['op']}): "
                   f"{change}: {what}")
    with open(os.path.join(REPO, "docs", "mutation.md"), "w") as f:
        f.write("\n".join(out) + "\n")
    if baseline:
        with open(BASELINE, "w") as f:
            f.write("# Killed mutants (scripts/mutate.py report --baseline): "
                    "ID FILE OPERATOR STAGE (the boot that killed it)\n")
            for m in sorted(killed_ids, key=lambda m: (m["file"], m["id"])):
                stage = load_result(m)["by"].split(":", 1)[0]
                f.write(f"{m['id']} {m['file']} {m['op']} {stage}\n")
    print(f"{tot[0]} mutants: {tot[1]} killed, {tot[2]} survived, {tot[3]} equivalent, "
          f"{tot[4]} not built, {tot[5]} not run")


def cmd_sample(n, seed):
    ids = []
    for line in open(BASELINE):
        # Not those only the kselftest stage kills: its kernel and boot
        # take some 8 minutes, more than make test has left.
        if line.strip() and not line.startswith("#") and \
                not line.rstrip().endswith(" kselftest"):
            ids.append(line.split())
    ids.sort(key=lambda x: hashlib.sha1((seed + x[0]).encode()).hexdigest())
    for x in ids[:n]:
        print(" ".join(x))


def main():
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "files":
        print("\n".join(production_files()))
    elif cmd == "plan":
        cmd_plan()
    elif cmd == "fingerprint":
        print(tests_fingerprint())
    elif cmd == "judge":
        cmd_judge(*sys.argv[2:7])
    elif cmd == "record":
        cmd_record(sys.argv[2], sys.argv[3], sys.argv[4], " ".join(sys.argv[5:]))
    elif cmd == "report":
        cmd_report("--baseline" in sys.argv)
    elif cmd == "sample":
        cmd_sample(int(sys.argv[2]), sys.argv[3])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
