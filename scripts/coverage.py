#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Report the gcov line, branch and error-return coverage of a few files.

  coverage.py --src KDIR --build BUILD_DIR:GCDA_DIR [--build ...]
              --files FILE... [--markdown OUT.md] [--command CMD]
              [--reasons FILE] [--baseline FILE] [--write-baseline FILE]
              [--attribute NAME=BUILD_DIR:GCDA_DIR ...]

Each --build pairs an O= build directory (the .gcno files) with the .gcda
files copied out of that kernel's /sys/kernel/debug/gcov, laid out the same
way.  "gcov --json-format --stdout --branch-probabilities" reads each .gcda
with its .gcno, both copied to a temporary directory.  Source names are
made relative to KDIR (or else matched by their ending), so the lines of a
.c file #included into another count for their own file.  The builds are
united: a line is instrumented when any build has it and covered when its
count is above zero in any build; a line's branch counts are added up when
the lists have the same length, else the one with more taken is kept.

Rule "neighbour": gcc -O2 may merge a line into a neighbouring block in one
build only.  A line that a --build has no record of, but another has, adds
C to the united count if the nearest lines that --build records before and
after it, in its function, both count C and the run is straight: the line
before ends in "{" or is a statement, the lines between (it included) are
statements, the line after a statement, jump, if or switch.  A statement is
blank or ends in ";" or "," with no brace, is no label and starts with none
of case, default, if, else, for, while, do, switch nor the jumps (return,
goto, break, continue).  --builds with one BUILD_DIR record the same lines.

Error returns are found in the source text, comments stripped, on lines
that are neither preprocessor directives nor macro bodies (ending in "\\"):
  return -EXXX;     return ERR_PTR(-EXXX);
  NAME = -EXXX;     NAME = ERR_PTR(-EXXX);   (NAME first on the line, so
                    not a declaration; *err and p->ret count)
  goto LABEL;       (LABEL starting with err, fail or out_err)
A function starts on a line that begins at column 0 with a letter or "_",
has a "(" and does not end in ";" (the name is the word before the first
"("), if a line beginning with "{" follows before the next such line; a
line beginning with "}" ends it.  An error return is known by (file,
function, occurrence, code), occurrence counting the same code in the same
function from 0.

Whether an error return was reached is decided by the first rule that
applies, named in the report ("how").  gcc -O2 gives most error-return lines
no line record (a "return -EINVAL;" under an if becomes a constant argument
of the return value's PHI), so the lines around them must tell.
  line    The count of its line, or else of the nearest line with a count
          in its straight run of statements (no label, case or nested
          block) in a "{ ... }" under an if, as a "goto err;" after "ret =
          -ENOMEM;": reached iff above 0.  Else "cond", the nearest line
          before it with a count, must be a line of the condition of the if
          that it is directly under (or it is unknown); if cond's count is
          0, it is not reached.
  branch  cond's branches, 2 or more, were all taken: reached (the last line
          of a condition has an edge into the error path; gcov does not say
          which one, nor does "fallthrough").
  flow    C is cond's count and N that of the first line with a count after
          its block (which runs when the condition is false), if the block
          is a straight run, compared in each --build that has both lines:
          N < C in one is reached; N == C in all, with one of cond's 2
          branches never taken, is not reached.  Labels and loops can make
          N bigger, so N >= C alone tells nothing.
  unknown Otherwise: listed apart, neither reached nor a --baseline failure.
"Not compiled" is an error return whose function no build has a count for
(as when #if leaves it out), or one directly under an if of whose
condition and straight run of statements no line has a count while its
function has counts: the compiler proved the condition false and left it
out (as "size > SIZE_MAX" where size_t is 64-bit); the others are
compiled.

--reasons FILE has lines "FILE:FUNCTION: reason" (and # comments), given in
the Markdown report next to the function's uncovered lines.
--write-baseline FILE writes the reached error returns, sorted, one
"file<TAB>function<TAB>occurrence<TAB>code" a line.  --baseline FILE checks
its entries for FILE...: one not reached (or compiled) is a regression,
exit 1; one now unknown is reported only; one whose error return no longer
exists is "gone".

--attribute NAME=BUILD_DIR:GCDA_DIR, repeatable, is one run (a boot of one
test) to attribute error returns to: the rules above decide, on that run's
data alone, which error returns it reaches, and the Markdown report gets a
column "Reached by" with the NAMEs that do (those sharing a first word
grouped: "KUnit a, b; kselftest c").  Listed apart: the error returns
reached by the --builds but by no single run (the "neighbour" rule and
branch counts added up over builds can decide what no run decides alone),
and those a run reaches but the --builds do not (or not decidedly).

Prints a line per file, how the error returns were decided, the lines
"neighbour" counted and the totals; exits 2 on missing or unreadable data.
"""
import argparse
import collections
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

GCOV = ["gcov", "--json-format", "--stdout", "--branch-probabilities"]
COMMENT_OR_STRING = re.compile(
    r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|/\*.*?\*/|//[^\n]*', re.S)
STRING = re.compile(r'"(?:\\.|[^"\\])*"')
ERRNO = r"-E[A-Z0-9]+\b"
ERROR_RETURN = re.compile(
    rf"\breturn\s+(?:ERR_PTR\(\s*)?{ERRNO}"
    rf"|^[\w*.>-]+\s*=\s*(?:ERR_PTR\(\s*{ERRNO}\s*\)|{ERRNO})\s*;"
    r"|\bgoto\s+(?:err|fail|out_err)\w*\s*;")
FUNCTION_START = re.compile(r"(?=[A-Za-z_])[^(;=]*?\b(\w+)\s*\(")
IF_START = re.compile(r"(?:\}\s*)?(?:else\s+)?if\s*\(")
STATEMENT = re.compile(  # or a blank line; not a label, nor under if, for...
    r"(?!(?:case|default|if|else|for|while|do|switch)\b|\w+\s*:)(?:[^{}]*[;,])?")
JUMP = re.compile(r"(?:return|goto|break|continue)\b")
FALLS_INTO = re.compile(r"(?:if|switch)\s*\(")  # entered only from the line before
HOWS = ("line", "branch", "flow", "unknown", "not compiled")


class Failure(Exception):
    """The coverage data is missing or unreadable."""


class Coverage:
    """The united gcov data and the error returns of the files asked for."""

    def __init__(self, kdir, files):
        self.kdir = os.path.realpath(kdir)
        self.files = list(dict.fromkeys(os.path.normpath(f) for f in files))
        self.counts = {}        # (file, line) -> execution count
        self.branches = {}      # (file, line) -> branch counts
        self.builds = []        # (name, {(file, line) -> count}) per --build
        self.verdicts = {}      # error return -> (reached, how, evidence)
        self.runs = []          # NAMEs of --attribute, in order
        self.reached_by = {}    # error return -> NAMEs of --attribute
        self.undecided = collections.Counter()  # error return -> runs unknown
        self.inferred = collections.Counter()  # (file, line) -> by "neighbour"
        self.rescued = []       # (file, line) covered only by those counts
        self.sources = {f: read_source(self.kdir, f) for f in self.files}
        self.returns = [r for f in self.files
                        for r in error_returns(f, self.sources[f])]

    def source_path(self, cwd, name):
        """The file asked for that gcov's source name is, or None."""
        path = os.path.realpath(os.path.join(cwd, name))
        rel = os.path.relpath(path, self.kdir)
        if rel in self.files:
            return rel
        return max((f for f in self.files if path.endswith("/" + f)),
                   key=len, default=None)

    def add(self, name, docs):
        """Add the line and branch counts of one build's gcov JSON documents."""
        build = {}
        self.builds.append((name, build))
        for doc in docs:
            cwd = doc.get("current_working_directory", "")
            for entry in doc["files"]:
                path = self.source_path(cwd, entry["file"])
                for line in entry["lines"] if path else []:
                    key = (path, line["line_number"])
                    self.counts[key] = self.counts.get(key, 0) + line["count"]
                    build[key] = build.get(key, 0) + line["count"]
                    taken = [b["count"] for b in line["branches"]]
                    if taken:
                        self.branches[key] = merge_branches(
                            self.branches.get(key, []), taken)

    def finish(self):
        """After the last add, count lines by "neighbour"; decide error returns."""
        for path, (_, build) in ((p, b) for b in self.builds for p in self.files):
            lines = self.lines(path)
            mine = [n for n in lines if (path, n) in build]
            for before, after in zip(mine, mine[1:]):
                count = build[path, before]
                if count == build[path, after] and self.straight(path, before, after):
                    for n in lines[lines.index(before) + 1:lines.index(after)]:
                        self.inferred[path, n] += count
        self.rescued = sorted(k for k, c in self.inferred.items()
                              if c and not self.counts[k])
        self.counts.update((k, self.counts[k] + c) for k, c in self.inferred.items())
        self.verdicts = {r: self.decide(r[0], r[4]) for r in self.returns}

    def straight(self, path, before, after):
        """Whether lines before to after are a straight run, as "neighbour" says."""
        run = self.sources[path][before - 1:after]
        code, funcs = [c for c, _ in run], {func for _, func in run}
        plain = [bool(STATEMENT.fullmatch(c)) and not JUMP.match(c) for c in code]
        return (len(funcs) == 1 and "" not in funcs and all(plain[1:-1])
                and (plain[0] or code[0].endswith("{"))
                and bool(STATEMENT.fullmatch(code[-1]) or FALLS_INTO.match(code[-1])))

    def line(self, path, number):
        """(code, function) of a source line, empty past the end of the file."""
        source = self.sources[path]
        return source[number - 1] if number <= len(source) else ("", "")

    def lines(self, path):
        """The instrumented line numbers of a file, in order."""
        return sorted(n for f, n in self.counts if f == path)

    def body(self, path, number):
        """{line: count} of the function that line number is in."""
        names = [None] + [func for _, func in self.sources[path]] + [None]
        first = last = number
        while names[first - 1] == names[number]:
            first -= 1
        while names[last + 1] == names[number]:
            last += 1
        return {n: self.counts[path, n] for n in self.lines(path)
                if first <= n <= last}

    def condition(self, path, number):
        """(first, last, end, stop) when line number is directly under an if:
        the lines of its condition, the last line of its block if straight
        (else None), and the line after its run of statements in "{ }"."""
        code = [""] + [c for c, _ in self.sources[path]] + ["}"]
        last = number - 1
        while last > 0 and STATEMENT.fullmatch(code[last]):
            last -= 1
        first, depth, braced = last, 0, code[last].endswith("{")
        while first > 0:
            text = STRING.sub('""', code[first])
            depth += text.count(")") - text.count("(")
            if depth <= 0:
                break
            first -= 1
        if (depth or not IF_START.match(code[first])
                or not code[last].rstrip("{ ").endswith(")")
                or not braced and any(code[last + 1:number])):
            return None
        stop = number + 1
        while braced and STATEMENT.fullmatch(code[stop]):
            stop += 1
        end = number if not braced else stop if code[stop].startswith("}") else None
        return first, last, end, stop

    def decide(self, path, number):
        """(reached: True, False or None, how, evidence) by the rules above."""
        count = self.counts.get((path, number))
        if count is not None:
            return count > 0, "line", f"{count}"
        body, found = self.body(path, number), self.condition(path, number)
        if not body:
            return False, "not compiled", "no counts in the function"
        first, last, end, stop = found or (0, 0, None, 0)
        near = [n for n in body if last < n < stop]  # its straight run
        if near:
            return body[near[0]] > 0, "line", f"L{near[0]}: {body[near[0]]}"
        cond = max((n for n in body if first <= n <= last), default=None)
        if cond is None and found:
            return False, "not compiled", "no count in its if or its block: compiled out"
        if cond is None:
            return None, "unknown", "not directly under an if with a count"
        if not body[cond]:
            return False, "line", f"L{cond}: 0"
        taken = self.branches.get((path, cond), [])
        if len(taken) >= 2 and all(taken):
            return True, "branch", f"L{cond}: {taken}"
        after = min((n for n in body if end and n > end), default=None)
        pairs = [(name, b[path, cond], b.get((path, after)))
                 for name, b in self.builds if (path, cond) in b]
        for name, c, n in pairs:
            if n is not None and n < c:
                return True, "flow", f"L{cond}: {c} > L{after}: {n} in {name}"
        if (len(taken) == 2 and 0 in taken and after
                and all(n == c for _, c, n in pairs)):
            return False, "flow", f"L{cond}: {taken} = L{after} in every build"
        return None, "unknown", f"L{cond}: {taken}, L{after}: {body.get(after)}"

    def attribute(self, name, run):
        """Add name to the reached_by of the error returns that run, the
        Coverage of one --attribute alone, reaches."""
        self.runs.append(name)
        for ret in self.returns:
            self.reached_by.setdefault(ret, [])
            if run.verdicts[ret][0]:
                self.reached_by[ret].append(name)
            elif run.verdicts[ret][0] is None:
                self.undecided[ret] += 1

    def stats(self, path):
        """[covered, lines, taken, branches, reached, compiled] and the
        number of error returns of each of HOWS."""
        lines = [self.counts[path, n] for n in self.lines(path)]
        taken = [c for (f, _), cs in self.branches.items() if f == path for c in cs]
        mine = [v for r, v in self.verdicts.items() if r[0] == path]
        hows = [sum(v[1] == how for v in mine) for how in HOWS]
        return [sum(c > 0 for c in lines), len(lines), sum(c > 0 for c in taken),
                len(taken), sum(v[0] is True for v in mine),
                len(mine) - hows[-1]] + hows


def gcov_build(option, spec):
    """(name, gcov's JSON documents) of an option's BUILD_DIR:GCDA_DIR."""
    build, sep, gcda_dir = spec.partition(":")
    if not sep:
        raise Failure(f"{option} {spec}: not BUILD_DIR:GCDA_DIR")
    return os.path.basename(gcda_dir.rstrip("/")), gcov_objects(build, gcda_dir)


def run_gcov(objdir, gcda):
    """gcov's JSON documents for the .gcda and .gcno files in objdir."""
    proc = subprocess.run(GCOV + ["-o", objdir, os.path.basename(gcda)],
                          cwd=objdir, capture_output=True, text=True)
    if proc.returncode:
        raise Failure(f"gcov failed on {gcda}: {proc.stderr.strip()}")
    try:  # one JSON document a line, one line per object
        return [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    except ValueError as e:
        raise Failure(f"gcov's JSON for {gcda}: {e}") from e


def gcov_objects(build, gcda_dir):
    """gcov's JSON documents for every .gcda under gcda_dir."""
    gcdas = sorted(os.path.join(d, f) for d, _, files in os.walk(gcda_dir)
                   for f in files if f.endswith(".gcda"))
    if not gcdas:
        raise Failure(f"no .gcda files under {gcda_dir}: coverage not collected")
    docs = []
    with tempfile.TemporaryDirectory(prefix="coverage.") as tmp:
        for gcda in gcdas:
            rel = os.path.relpath(gcda, gcda_dir)
            objdir = os.path.join(tmp, os.path.dirname(rel))
            os.makedirs(objdir, exist_ok=True)
            gcno = os.path.join(build, rel[:-4] + "gcno")
            if not os.path.isfile(gcno):
                raise Failure(f"no {gcno} for {gcda}")
            shutil.copy(gcno, objdir)
            shutil.copy(gcda, objdir)
            docs += run_gcov(objdir, gcda)
    return docs


def merge_branches(a, b):
    """One line's branch counts from two objects or builds."""
    if len(a) == len(b):
        return [x + y for x, y in zip(a, b)]
    return max(a, b, key=lambda counts: (sum(c > 0 for c in counts), len(counts)))


def strip_comments(text):
    """text with each comment blanked out, its newlines kept."""
    def blank(m):
        s = m.group(0)
        return s if s[0] in "\"'" else " " + "\n" * s.count("\n")
    return COMMENT_OR_STRING.sub(blank, text)


def functions(lines):
    """The function each line is in ("" outside any), by the heuristic above."""
    names, header, current = [], None, ""
    for number, line in enumerate(lines):
        start = FUNCTION_START.match(line)
        if start and not line.rstrip().endswith(";"):
            header = (number, start.group(1))
        if line.startswith("{") and header:
            current = header[1]
            names[header[0]:] = [current] * (number - header[0])
        names.append(current)
        if line.startswith("}"):
            header, current = None, ""
    return names


def read_source(kdir, path):
    """(code, function) of each line of a source file, comments stripped."""
    with open(os.path.join(kdir, path), encoding="utf-8", errors="replace") as f:
        lines = strip_comments(f.read()).split("\n")
    return [(" ".join(line.split()), func)
            for line, func in zip(lines, functions(lines))]


def error_returns(path, source):
    """(file, function, occurrence, code, line) of each error return."""
    seen, found = {}, []
    for number, (code, func) in enumerate(source, 1):
        if (code.startswith("#") or code.endswith("\\")
                or not ERROR_RETURN.search(STRING.sub('""', code))):
            continue
        occurrence = seen.get((func, code), 0)
        seen[func, code] = occurrence + 1
        found.append((path, func, occurrence, code, number))
    return found


def pct(part, whole):
    """part/whole as a percentage rounded down, "n/a" for nothing."""
    return f"{int(1000 * part / whole) / 10:.1f}%" if whole else "n/a"


def summary(s):
    """A file's or the total's figures for standard output."""
    return (f"lines {s[0]}/{s[1]} ({pct(s[0], s[1])}), "
            f"branches {s[2]}/{s[3]} ({pct(s[2], s[3])}), "
            f"error returns {s[4]}/{s[5]} reached")


def decided(s):
    """How a file's or the total's error returns were decided."""
    return (f"decided by line {s[6]}, branch {s[7]}, flow {s[8]}; "
            f"unknown {s[9]}; not compiled {s[10]}")


def neighbours(cov):
    """How many lines the "neighbour" rule counted."""
    return (f"{len(cov.inferred)} lines counted from their neighbours in a build "
            f"that has no record of them, {len(cov.rescued)} of them covered only so")


def uncovered_ranges(cov, path):
    """[first, last, function] of each run of uncovered lines of a function."""
    ranges, running = [], False
    for number in cov.lines(path):
        func = cov.line(path, number)[1]
        if cov.counts[path, number]:
            running = False
        elif running and ranges[-1][2] == func:
            ranges[-1][1] = number
        else:
            ranges.append([number, number, func])
            running = True
    return ranges


def code_cell(code):
    """Code for Markdown, also in a table cell."""
    return "`" + code.replace("|", "\\|") + "`"


def markdown_files(stats, total):
    """The per-file table."""
    rows = ["| File | Lines | Line % | Branches | Branch % |", "|---|---|---|---|---|"]
    for path, s in list(stats.items()) + [("**TOTAL**", total)]:
        rows.append(f"| {path} | {s[0]}/{s[1]} | {pct(s[0], s[1])} "
                    f"| {s[2]}/{s[3]} | {pct(s[2], s[3])} |")
    return rows


def names_cell(names):
    """NAMEs of --attribute, those sharing a first word grouped."""
    groups = {}
    for name in names:
        first, _, rest = name.partition(" ")
        groups.setdefault(first, []).append(rest)
    return "; ".join(first + (" " + ", ".join(rests) if any(rests) else "")
                     for first, rests in groups.items()) or "none"


def reached_by_cell(cov, ret):
    """The runs that reach an error return, and how many cannot tell."""
    undecided = cov.undecided[ret]
    return names_cell(cov.reached_by[ret]) + (
        f"; undecided in {undecided}" if undecided else "")


def unattributed(cov):
    """The error returns reached, but by no --attribute alone."""
    return [r for r in cov.returns if cov.verdicts[r][0] and not cov.reached_by[r]]


def return_item(cov, ret):
    """An error return and its verdict, for a Markdown list."""
    _, how, evidence = cov.verdicts[ret]
    return f"{ret[0]}:{ret[4]} ({ret[1]}): {code_cell(ret[3])}, {how}: {evidence}"


def markdown_returns(cov, total):
    """The error-return table (with "Reached by" if there are --attribute
    runs), and those unknown, not compiled and reached by no run."""
    runs = cov.runs
    cols = ["File", "Function", "Line", "Code", "Reached", "How", "Counts"]
    cols += ["Reached by"] if runs else []
    rows = ["## Error returns", "", f"{total[4]} of {total[5]} compiled reached; "
            f"{decided(total)}."]
    if runs:
        silent = [n for n in runs if not any(n in r for r in cov.reached_by.values())]
        rows += ["", "Reached by: the runs whose gcov data alone, by the same "
                 "rules, says reached; \"undecided in N\": in N other runs the "
                 "rules say unknown (as when a run takes some branches of a "
                 "condition only), so a run not listed may reach it still.  "
                 f"The runs are {names_cell(runs)}."
                 + (f"  Of them, {names_cell(silent)} reach"
                    f"{'es' if len(silent) == 1 else ''} no error return."
                    if silent else "")]
    rows += ["", "| " + " | ".join(cols) + " |", "|---" * len(cols) + "|"]
    apart = {"unknown": [], "not compiled": []}
    for ret in cov.returns:
        reached, how, evidence = cov.verdicts[ret]
        row = f"| {ret[0]} | {ret[1]} | {ret[4]} | {code_cell(ret[3])} |"
        if how in apart:
            apart[how].append(f"{row} {evidence} |")
        else:
            by = f" {reached_by_cell(cov, ret)} |" if runs else ""
            rows.append(f"{row} {'yes' if reached else 'no'} | {how} | {evidence} |{by}")
    for how, found in apart.items():
        rows += ["", f"### {how.capitalize()}", "", "| File | Function | Line "
                 "| Code | Counts |", "|---|---|---|---|---|"] + found if found else []
    if runs:
        rows += ["", "### Reached by no single run", ""]
        rows += [f"- {return_item(cov, r)}" for r in unattributed(cov)] or [
            "None: each error return reached is reached by one run alone."]
        # A line that one build has no record of is decided by its
        # condition's branches in that build alone, by its count in the
        # union: the two can differ.
        rows += [f"- Not reached in the union, but by {names_cell(cov.reached_by[r])}: "
                 f"{return_item(cov, r)}"
                 for r in cov.returns if not cov.verdicts[r][0] and cov.reached_by[r]]
    return rows


def markdown_uncovered(cov, reasons):
    """Each file's uncovered line ranges with their first line and reason."""
    rows = ["## Uncovered lines"]
    for path in cov.files:
        ranges = uncovered_ranges(cov, path)
        rows += ["", f"### {path}", ""]
        if not ranges:
            rows.append("All instrumented lines covered." if cov.lines(path)
                        else "No instrumented lines.")
        for first, last, func in ranges:
            span = f"{first}-{last}" if last > first else f"{first}"
            reason = reasons.get((path, func), "(no reason given)")
            rows.append(f"- {span} ({func or 'outside functions'}): "
                        f"{code_cell(cov.line(path, first)[0])} — {reason}")
    return rows


def write_markdown(path, command, cov, stats, total, reasons):
    """Write the Markdown report."""
    rows = ["# Coverage", "", "```sh", command, "```", ""]
    rescued = ", ".join(f"{f}:{n}" for f, n in cov.rescued) or "none"
    rows += markdown_files(stats, total) + ["", f"{neighbours(cov)}: {rescued}.", ""]
    rows += markdown_returns(cov, total) + [""]
    rows += markdown_uncovered(cov, reasons)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(rows) + "\n")


def read_lines(path):
    """The lines of a file, without empty lines and # comments."""
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f
                if line.strip() and not line.lstrip().startswith("#")]


def read_reasons(path):
    """{(file, function): reason} from a --reasons file."""
    reasons = {}
    for line in read_lines(path):
        file, _, rest = line.partition(":")
        func, sep, reason = rest.partition(":")
        if not sep:
            raise Failure(f"{path}: not FILE:FUNCTION: REASON: {line}")
        reasons[file.strip(), func.strip()] = reason.strip()
    return reasons


def read_baseline(path):
    """(file, function, occurrence, code) of each --baseline entry."""
    entries = []
    for line in read_lines(path):
        fields = line.split("\t")
        if len(fields) != 4 or not fields[2].isdigit():
            raise Failure(f"{path}: not file, function, occurrence, code: {line}")
        entries.append((fields[0], fields[1], int(fields[2]), fields[3]))
    return entries


def check_baseline(cov, entries):
    """Print the baseline's error returns no longer reached or now unknown;
    True if none is no longer reached."""
    current = {r[:4]: r for r in cov.returns}
    checked = [e for e in entries if e[0] in cov.files]
    lost = unknown = gone = 0
    for path, func, occurrence, code in checked:
        ret = current.get((path, func, occurrence, code))
        if ret is None:
            gone += 1
            print(f"coverage: baseline error return gone: {path} {func}: {code}")
            continue
        reached, how, evidence = cov.verdicts[ret]
        where = f"{path}:{ret[4]} {func}: {code} ({how}: {evidence})"
        if reached is None:
            unknown += 1
            print(f"coverage: baseline error return now unknown: {where}")
        elif not reached:
            lost += 1
            print(f"coverage: error return no longer reached: {where}")
    print(f"coverage: {len(checked)} baseline error returns checked, "
          f"{lost} no longer reached, {unknown} unknown, {gone} gone")
    return lost == 0


def write_baseline(path, cov):
    """Write the reached error returns as a baseline."""
    reached = sorted(r[:4] for r in cov.returns if cov.verdicts[r][0])
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(f"{p}\t{func}\t{n}\t{code}\n" for p, func, n, code in reached)


def parse_args():
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--src", required=True, help="kernel source tree")
    parser.add_argument("--build", required=True, action="append",
                        metavar="BUILD_DIR:GCDA_DIR")
    parser.add_argument("--files", required=True, nargs="+",
                        help="source files, relative to --src")
    parser.add_argument("--markdown", metavar="OUT.md")
    parser.add_argument("--command", help="the command shown in the report")
    parser.add_argument("--reasons", metavar="FILE")
    parser.add_argument("--baseline", metavar="FILE")
    parser.add_argument("--write-baseline", metavar="FILE")
    parser.add_argument("--attribute", action="append",
                        metavar="NAME=BUILD_DIR:GCDA_DIR")
    return parser.parse_args()


def run(args):
    """Collect, report and check; the exit status."""
    cov = Coverage(args.src, args.files)
    for spec in args.build:
        cov.add(*gcov_build("--build", spec))
    cov.finish()
    for spec in args.attribute or []:
        name, sep, build = spec.partition("=")
        if not sep:
            raise Failure(f"--attribute {spec}: not NAME=BUILD_DIR:GCDA_DIR")
        alone = Coverage(args.src, args.files)
        alone.add(*gcov_build(f"--attribute {name}=", build))
        alone.finish()
        cov.attribute(name, alone)
    reasons = read_reasons(args.reasons) if args.reasons else {}
    entries = read_baseline(args.baseline) if args.baseline else []
    stats = {path: cov.stats(path) for path in cov.files}
    for path, s in stats.items():
        if not s[1]:
            print(f"coverage: no gcov lines for {path}", file=sys.stderr)
        print(f"coverage: {path}: {summary(s)}; {decided(s)}")
    total = [sum(column) for column in zip(*stats.values())]
    if args.markdown:
        write_markdown(args.markdown, args.command or shlex.join(sys.argv),
                       cov, stats, total, reasons)
    if args.write_baseline:
        write_baseline(args.write_baseline, cov)
    ok = check_baseline(cov, entries) if args.baseline else True
    if cov.runs:
        print(f"coverage: {len(cov.runs)} runs to attribute error returns to; "
              f"{len(unattributed(cov))} error returns reached by none alone")
    print(f"coverage: error returns {decided(total)}")
    print(f"coverage: {neighbours(cov)}")
    print(f"coverage: {summary(total)}")
    return 0 if ok else 1


def main():
    """Run, turning missing or unreadable data into exit status 2."""
    try:
        return run(parse_args())
    except (Failure, OSError) as e:
        print(f"coverage: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
