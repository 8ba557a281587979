#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Draw make bench's figure from its report.

  bench-plot.py REPORT.md OUT.png

REPORT.md is what selftests/run-bench.sh writes ($RESULTS/bench.md): its
"- date:" and "- accel:" lines and its table
"| what | heap | size | <other> p50 | ours p50 | x | ... |".  One panel per
heap kind (the system heap, the CMA heap, and system-contig, chunk and
carveout when the report has them), each with the median time of one
allocation against the buffer size, log-log:

  - the other side (upstream, or "base" with BENCH_BASE) and ours, each in
    one colour on every panel;
  - cold (the pool emptied by drop_caches first) solid, warm (allocated
    again once the pool has refilled after a free) dashed;
  - memset in userspace and the kernel's own zeroing (kzero) as grey
    reference lines: no allocation that zeroes its memory is faster.

Needs gnuplot (Debian's gnuplot-nox).  Exits non-zero when the report has
no allocation rows or gnuplot fails.
"""
import os
import re
import subprocess
import sys
import tempfile

# Heap name -> panel.  The CMA heap's rows are the default area's under
# upstream's name for it, "reserved"; default_cma_region (ours only) is the
# same area again and is left out.
PANELS = [
    ("system", ["system"], "system heap (pages, any order)"),
    ("cma", ["reserved", "linux,cma"], "CMA heap (one contiguous range)"),
    ("system-contig", ["system-contig"], "system-contig heap"),
    ("chunk", ["chunk"], "chunk heap (64 KiB chunks of CMA)"),
    ("carveout", ["carveout"], "carveout heap"),
]
SIDE_COLOUR = {"other": "#d95f02", "ours": "#1b9e77"}   # orange, teal
ROW = re.compile(r"^\|\s*([\w-]+)\s*\|\s*([\w,.-]*)\s*\|\s*(\d+)\s*(KiB|MiB)\s*\|"
                 r"\s*([^|]*)\|\s*([^|]*)\|")


def number(cell):
    try:
        return float(cell.strip())
    except ValueError:
        return None


def parse(path):
    other, meta, rows = "upstream", {}, {}
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        m = re.match(r"^- (date|accel|command): (.*)$", line)
        if m:
            meta.setdefault(m.group(1), m.group(2))
            continue
        m = re.match(r"^\| what \| heap \| size \| (\S+) p50 \|", line)
        if m:
            other = m.group(1)
            continue
        m = ROW.match(line)
        if not m:
            continue
        what, heap, n, unit, o, u = m.groups()
        kib = int(n) * (1024 if unit == "MiB" else 1)
        for side, cell in (("other", o), ("ours", u)):
            v = number(cell)
            if v is not None and v > 0:
                rows.setdefault((what, heap, side), {})[kib] = v
    return other, meta, rows


def q(text):
    """A gnuplot single-quoted string: a quote inside is doubled."""
    return "'%s'" % text.replace("'", "''")


def size_label(kib):
    return "%d MiB" % (kib // 1024) if kib >= 1024 else "%d KiB" % kib


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: bench-plot.py REPORT.md OUT.png")
    report, out = sys.argv[1:]
    other, meta, rows = parse(report)

    panels = []
    for _, heaps, title in PANELS:
        heap = next((h for h in heaps
                     if any(k[1] == h and k[0].startswith("alloc-") for k in rows)), None)
        if heap:
            panels.append((heap, title))
    if not panels:
        sys.exit("bench-plot: no alloc-warm/alloc-cold rows in %s" % report)

    tmp = tempfile.mkdtemp(prefix="bench-plot.")
    sizes = sorted({kib for v in rows.values() for kib in v})

    def data(key):
        pts = rows.get(key, {})
        if not pts:
            return None
        path = os.path.join(tmp, "%s_%s_%s.dat" % key)
        with open(path, "w") as f:
            for kib in sorted(pts):
                f.write("%d %.6f\n" % (kib, pts[kib]))
        return path

    # Reference lines: the same code in both boots, so one line each, from
    # our boot (the other boot's where ours has none).
    # Lines in the legend's order: it fills columns of two.
    lines = [
        ("other", "alloc-cold", 1, "%s, cold" % other),
        ("other", "alloc-warm", 2, "%s, warm" % other),
        ("ours", "alloc-cold", 1, "ours, cold"),
        ("ours", "alloc-warm", 2, "ours, warm"),
        ("ref", "memset", 3, "memset in userspace (the zeroing limit)"),
        ("ref", "kzero", 4, "the kernel's own zeroing (read of /dev/zero)"),
    ]
    ref_path = {}
    for what in ("memset", "kzero"):
        ref_path[what] = data((what, "", "ours")) or data((what, "", "other"))
    lines = [l for l in lines if l[0] != "ref" or ref_path[l[1]]]

    n = len(panels)
    width = max(1200, 560 * n + 100)
    gp = []
    gp.append("set terminal pngcairo size %d,720 font 'Sans,11' noenhanced" % width)
    gp.append("set output '%s'" % out)
    title = "Time to allocate one DMA-BUF heap buffer: %s Linux 6.1 and this series" % other
    accel = meta.get("accel", "").split(";")[0].strip()
    sub = "; ".join(x for x in ("QEMU " + accel if accel else "", meta.get("date", ""),
                                "median of the rounds, lower is faster") if x)
    gp.append("set multiplot title \"%s\\n%s\"" % (title, sub))
    gp.append("set logscale xy")
    gp.append("set grid xtics ytics lc rgb '#dddddd'")
    gp.append("set xtics (%s)" % ", ".join("'%s' %d" % (size_label(k), k) for k in sizes))
    gp.append("set xrange [%g:%g]" % (sizes[0] / 1.5, sizes[-1] * 1.5))
    gp.append("set format y '%g'")
    gp.append("set xlabel 'buffer size'")
    gp.append("unset key")
    style = {"other": "lw 2.5 pt 7 ps 0.9 lc rgb '%s'" % SIDE_COLOUR["other"],
             "ours": "lw 2.5 pt 5 ps 0.9 lc rgb '%s'" % SIDE_COLOUR["ours"],
             "memset": "lw 2 lc rgb '#999999'",
             "kzero": "lw 2 lc rgb '#444444'"}
    # The panels above, the shared legend and the definitions below.
    left, right, top, bottom = 0.07, 0.99, 0.86, 0.36
    step = (right - left) / n
    for i, (heap, ptitle) in enumerate(panels):
        gp.append("set lmargin at screen %.4f" % (left + i * step + (0.0 if i == 0 else 0.045)))
        gp.append("set rmargin at screen %.4f" % (left + (i + 1) * step - 0.015))
        gp.append("set tmargin at screen %.4f" % top)
        gp.append("set bmargin at screen %.4f" % bottom)
        gp.append("set title %s" % q(ptitle))
        gp.append("set ylabel '%s'" % ("time of one allocation (ms)" if i == 0 else ""))
        plots = []
        for side, what, dt, _ in lines:
            if side == "ref":
                plots.append("'%s' using 1:2 with lines dt %d %s notitle"
                             % (ref_path[what], dt, style[what]))
                continue
            path = data((what, heap, side))
            if path:
                plots.append("'%s' using 1:2 with linespoints dt %d %s notitle"
                             % (path, dt, style[side]))
        gp.append("plot " + ", ".join(plots))
    # The legend, drawn by hand below the panels (gnuplot's own key cannot
    # be shared by the panels of a multiplot): columns of two, the line's
    # sample and then its words; then what cold and warm mean.
    gp.append("unset title; unset xlabel; unset ylabel; unset grid; unset logscale")
    gp.append("set lmargin at screen 0; set rmargin at screen 1")
    gp.append("set tmargin at screen 0.3; set bmargin at screen 0")
    gp.append("set border 0; unset xtics; unset ytics; set xrange [0:1]; set yrange [0:1]")
    colx = [0.07, 0.27, 0.47]
    for i, (side, what, dt, t) in enumerate(lines):
        x, y = colx[min(i // 2, 2)], 0.25 - (i % 2) * 0.045
        st = style[what if side == "ref" else side]
        lw = re.search(r"lw \S+", st).group(0)
        lc = re.search(r"lc rgb '[^']*'", st).group(0)
        gp.append("set arrow %d from screen %.3f, screen %.3f to screen %.3f, screen %.3f "
                  "nohead dt %d %s %s" % (i + 1, x, y, x + 0.045, y, dt, lw, lc))
        if side != "ref":
            pt = re.search(r"pt \d+ ps \S+", st).group(0)
            gp.append("set label %d '' at screen %.3f, screen %.3f point %s %s"
                      % (i + 10, x + 0.0225, y, pt, lc))
        gp.append("set label %d %s at screen %.3f, screen %.3f left"
                  % (i + 20, q(t), x + 0.055, y))
    gp.append("set label 1 'cold: allocated once drop_caches has emptied the pool (or cache): "
              "pages from the page allocator or cma_alloc(), zeroed on the spot' "
              "at screen 0.07, screen 0.1")
    gp.append("set label 2 'warm: allocated again after a buffer of the same size was freed "
              "and the pool (or cache) refilled; %s has neither, so its warm is its cold' "
              "at screen 0.07, screen 0.055" % other)
    gp.append("plot NaN notitle")
    gp.append("unset multiplot")

    script = os.path.join(tmp, "plot.gp")
    with open(script, "w") as f:
        f.write("\n".join(gp) + "\n")
    rc = subprocess.call(["gnuplot", script])
    if rc:
        sys.exit("bench-plot: gnuplot failed (%s)" % script)
    for name in os.listdir(tmp):
        os.unlink(os.path.join(tmp, name))
    os.rmdir(tmp)


if __name__ == "__main__":
    main()
