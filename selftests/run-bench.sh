#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The allocation benchmark (make bench): upstream's DMA-BUF heaps next to
# ours, in the same QEMU machine.
#
# Builds two non-debug kernels (allnoconfig + selftests/bench.config): the
# unmodified Debian 6.1 tree (tag "debian" of $KDIR, as a git worktree in
# $DMA_HEAPS_CACHE/linux-upstream), which has upstream's heaps, and $KDIR
# with our series.  Boots each with a static busybox and
# selftests/dma-heap-bench (built once, against our UAPI headers: the
# allocation ABI is the same) and prints the medians side by side as a
# markdown table, also written to $RESULTS/bench.md, from which
# selftests/bench-plot.py draws $RESULTS/bench.png.  Not part of make test:
# it measures, it does not judge.  Exits non-zero when a boot did not run to
# the end.
#
#   run-bench.sh [size ...]  sizes to measure, 4K or 1M or 1 (MiB), or
#                        BENCH_SIZES (default "4K 64K 1M 8M 64M")
#   BENCH_ROUNDS=n        timed rounds after the warm-up (default 100, so
#                         that the p99 is not the slowest round)
#   BENCH_OUR_ARGS=args   more kernel arguments for our boot only, such as
#                         system_heap.pool_max_mb=0 (no pool)
#   BENCH_CACHE_MB=n      cma_heap.cache_max_mb of our boot: the CMA heaps'
#                         cache of freed ranges, off by default in the
#                         kernel (default 128; 0 measures ours without it)
#   BENCH_TRACE=sizes     sizes at which cma_alloc() is traced in each boot,
#                         after the timed part (default "4K 1M 16M"; empty:
#                         no tracing), BENCH_TRACE_COUNT buffers each,
#                         allocated and freed one at a time (default 8)
#   BENCH_MAX_BUSY=pct    the most CPU time, in percent of the host's CPUs,
#                         that other processes may use before a boot; the
#                         benchmark waits up to a minute for it, then
#                         refuses to run (default 15)
#   BENCH_ALLOW_BUSY=1    run anyway, saying so in the report
#   BENCH_CMA=size        cma= of both boots (default 256M)
#   BENCH_TIMEOUT=s       bound on each QEMU run (default 900)
#   BENCH_MEM=MiB         guest memory (default 2048)
#   BENCH_SMP=n           guest CPUs (default 2)
#   BENCH_BASE=ref        compare ours with this commit of $KDIR instead of
#                         upstream's heaps (tag debian), such as the series
#                         without its last patch, to measure what that patch
#                         costs; the base boot gets ours' arguments too
#   SKIP_PREPARE=1        use $KDIR as it is (no scripts/prepare-tree.sh)
#   DMA_HEAPS_ACCEL=tcg|kvm  skips the KVM probe
set -eu

# The exact command, for the report: the settings given, then the script.
command=""
for v in KDIR DMA_HEAPS_CACHE JOBS SKIP_PREPARE DMA_HEAPS_ACCEL BENCH_SIZES \
	BENCH_ROUNDS BENCH_CMA BENCH_TIMEOUT BENCH_MEM BENCH_SMP BENCH_CACHE_MB BENCH_OUR_ARGS \
	BENCH_TRACE BENCH_TRACE_COUNT BENCH_MAX_BUSY BENCH_ALLOW_BUSY BENCH_BASE; do
	[ -z "${!v:-}" ] || command+="$v=$(printf '%q' "${!v}") "
done
command+=$(printf '%q' "$0")
[ $# = 0 ] || command+=$(printf ' %q' "$@")

. "$(dirname "$0")/../scripts/common.sh"

HERE=$REPO/selftests
UP_SRC=$DMA_HEAPS_CACHE/linux-upstream
UP_B=$DMA_HEAPS_CACHE/build-bench-upstream
OUR_SRC=$KDIR
OUR_B=$DMA_HEAPS_CACHE/build-bench
SIZES=${*:-${BENCH_SIZES:-4K 64K 1M 8M 64M}}
SIZES=${SIZES//,/ }
ROUNDS=${BENCH_ROUNDS:-100}
CACHE_MB=${BENCH_CACHE_MB-128}
OUR_ARGS="cma_heap.cache_max_mb=$CACHE_MB${BENCH_OUR_ARGS:+ $BENCH_OUR_ARGS}"
TRACE=${BENCH_TRACE-4K 1M 16M}
TRACE=${TRACE//,/ }
TRACE_COUNT=${BENCH_TRACE_COUNT:-8}
MAX_BUSY=${BENCH_MAX_BUSY:-15}
TIMEOUT=${BENCH_TIMEOUT:-900}
MEM=${BENCH_MEM:-2048}
SMP=${BENCH_SMP:-2}
CMDLINE="console=ttyS0 cma=${BENCH_CMA:-256M} rdinit=/init"

max=0
for s in $SIZES; do
	[[ $s =~ ^[1-9][0-9]*[KM]?$ ]] || die "bench: not a size (4K, 1M or 1): $s"
	mib=${s%[KM]}
	[ "${s: -1}" != K ] || mib=$(((mib + 1023) / 1024))
	[ "$mib" -le "$max" ] || max=$mib
done
if ! [[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || [ "$ROUNDS" -gt 1000 ]; then
	die "bench: BENCH_ROUNDS must be 1..1000"
fi
[[ $CACHE_MB =~ ^[0-9]+$ ]] || die "bench: BENCH_CACHE_MB must be a number of MiB"
[[ $TRACE_COUNT =~ ^[1-9][0-9]*$ ]] && [ "$TRACE_COUNT" -le 64 ] ||
	die "bench: BENCH_TRACE_COUNT must be 1..64"
[[ $MAX_BUSY =~ ^[0-9]+$ ]] || die "bench: BENCH_MAX_BUSY must be a percentage"
for s in $TRACE; do
	[[ $s =~ ^[1-9][0-9]*[KM]?$ ]] || die "bench: not a size in BENCH_TRACE: $s"
done
# udmabuf refuses buffers above its size_limit_mb (64 by default).
[ "$max" -le 64 ] || CMDLINE="$CMDLINE udmabuf.size_limit_mb=$max"

"$REPO/scripts/install-deps.sh" gnuplot-nox
[ "${SKIP_PREPARE:-0}" = 1 ] || "$REPO/scripts/prepare-tree.sh"
[ -f "$OUR_SRC/Makefile" ] || die "bench: no kernel tree in $OUR_SRC"

# The upstream tree: a worktree of $KDIR at tag debian.  A worktree whose
# repository went away (prepare-tree.sh made $KDIR anew) is made again.
if [ -e "$UP_SRC/.git" ] && ! git -C "$UP_SRC" rev-parse -q --verify HEAD >/dev/null 2>&1; then
	echo "bench: $UP_SRC is a stale worktree, making it again"
	rm -rf "$UP_SRC"
fi
if [ ! -e "$UP_SRC" ]; then
	git -C "$KDIR" worktree prune
	echo "bench: checking out tag debian of $KDIR in $UP_SRC"
	git -C "$KDIR" worktree add -q --detach "$UP_SRC" debian
fi
[ -z "$(git -C "$UP_SRC" status --porcelain --untracked-files=no)" ] ||
	die "bench: $UP_SRC has local changes"
# The other side: upstream's heaps, or with BENCH_BASE a commit of ours,
# checked out in the same worktree (its build then rebuilds what differs).
BASE=${BENCH_BASE:-debian}
UP_NAME=upstream
[ "$BASE" = debian ] || UP_NAME=base
want=$(git -C "$KDIR" rev-parse "$BASE^{commit}") || die "bench: no commit $BASE in $KDIR"
if [ "$(git -C "$UP_SRC" rev-parse HEAD)" != "$want" ]; then
	echo "bench: checking out $BASE in $UP_SRC"
	git -C "$UP_SRC" checkout -q --detach "$want"
fi

# Configure and build one kernel and install its UAPI headers.  An option of
# the fragment that the tree has but the result lacks is a missing
# dependency; one the tree does not have is only reported.
build() {
	local name=$1 src=$2 b=$3

	echo "bench: building the $name kernel in $b"
	build_small_kernel "$src" "$b" "$HERE/bench.config" ||
		die "bench: the $name kernel did not build (bench.config, bzImage or headers_install)"
}

start=$(date +%s)
build $UP_NAME "$UP_SRC" "$UP_B"
build ours "$OUR_SRC" "$OUR_B"
built=$(date +%s)

# The benchmark, once, against our headers; gen_init_cpio from our tree.
bin=$OUR_B/dma-heap-bench
gcc -static -O2 -Wall -Wextra -isystem "$OUR_B/hdr/include" -o "$bin" \
	"$HERE/dma-heap-bench.c" || die "bench: building dma-heap-bench failed"
gcc -O2 -o "$OUR_B/gen_init_cpio" "$OUR_SRC/usr/gen_init_cpio.c"
busybox=$(command -v busybox) || die "bench: no busybox (busybox-static)"
! readelf -l "$busybox" | grep -q INTERP || die "bench: $busybox is not static (busybox-static)"

# One initramfs per kernel: they differ only in the label.
initramfs() {
	local label=$1 b=$2

	echo "-l $label -r $ROUNDS $SIZES" >"$b/bench.args"
	echo "-S -l $label $SIZES" >"$b/sg.args"
	if [ -n "$TRACE" ]; then
		echo "-l $label -T $TRACE_COUNT $TRACE" >"$b/trace.args"
	else
		: >"$b/trace.args"
	fi
	{
		echo "dir /dev 0755 0 0"
		echo "nod /dev/console 0600 0 0 c 5 1"
		echo "nod /dev/null 0666 0 0 c 1 3"
		for d in /bin /proc /sys /tmp /bench; do echo "dir $d 0755 0 0"; done
		echo "file /bin/busybox $busybox 0755 0 0"
		echo "slink /bin/sh busybox 0777 0 0"
		echo "file /init $HERE/bench-init.sh 0755 0 0"
		echo "file /bench/args $b/bench.args 0644 0 0"
		echo "file /bench/trace-args $b/trace.args 0644 0 0"
		echo "file /bench/sg-args $b/sg.args 0644 0 0"
		echo "file /bench/dma-heap-bench $bin 0755 0 0"
	} >"$b/initramfs.list"
	"$OUR_B/gen_init_cpio" "$b/initramfs.list" >"$b/initramfs.cpio"
}
initramfs $UP_NAME "$UP_B"
initramfs ours "$OUR_B"

accel=$(qemu_accel)
cpu=()
[ "$accel" = kvm ] && cpu=(-cpu host)
qemu=(qemu-system-x86_64 -accel "$accel" "${cpu[@]}" -m "$MEM" -smp "$SMP"
	-nodefaults -nographic -no-reboot -monitor none -bios qboot.rom)

# The share of the host's CPU time that was busy over two seconds, in
# percent: what other processes take from the emulator.
host_busy() {
	local a b
	read -ra a < <(grep '^cpu ' /proc/stat)
	sleep 2
	read -ra b < <(grep '^cpu ' /proc/stat)
	# user nice system idle iowait irq softirq steal
	awk -v u="$((b[1] + b[2] + b[3] + b[6] + b[7] + b[8] - a[1] - a[2] - a[3] - a[6] - a[7] - a[8]))" \
		-v t="$((b[1] + b[2] + b[3] + b[4] + b[5] + b[6] + b[7] + b[8] - a[1] - a[2] - a[3] - a[4] - a[5] - a[6] - a[7] - a[8]))" \
		'BEGIN { printf "%d", t ? 100 * u / t + 0.5 : 0 }'
}

# Wait up to a minute for the host to be idle enough; refuse, unless told
# not to.  Sets busy_<name> for the report.
wait_idle() {
	local name=$1 busy tries=0

	busy=$(host_busy)
	while [ "$busy" -gt "$MAX_BUSY" ] && [ $tries -lt 30 ]; do
		[ $tries = 0 ] && echo "bench: the host's CPUs are ${busy}% busy, waiting (BENCH_MAX_BUSY=$MAX_BUSY)"
		tries=$((tries + 1))
		busy=$(host_busy)
	done
	printf -v "busy_$name" '%s' "$busy"
	if [ "$busy" -gt "$MAX_BUSY" ]; then
		[ "${BENCH_ALLOW_BUSY:-0}" = 1 ] ||
			die "bench: the host's CPUs are ${busy}% busy before the $name boot: another build or test is running (BENCH_ALLOW_BUSY=1 runs anyway)"
		echo "bench: the host's CPUs are ${busy}% busy; running anyway (BENCH_ALLOW_BUSY=1)"
	fi
}

# Boot one kernel; its logs end up in $b/run and $RESULTS.
status=0
boot() {
	local name=$1 b=$2 run=$2/run qrc=0 cmdline=$CMDLINE busy

	rm -rf "$run"
	mkdir -p "$run"
	: >"$run/console.log"
	: >"$run/bench.log"
	[ "$name" = upstream ] || cmdline+=" $OUR_ARGS"
	wait_idle "$name"
	busy=busy_$name
	echo "bench: booting the $name kernel under QEMU ($accel, timeout ${TIMEOUT}s, host ${!busy}% busy)"
	timeout -k 10 "$TIMEOUT" "${qemu[@]}" \
		-serial "file:$run/console.log" -serial "file:$run/bench.log" \
		-kernel "$b/arch/x86/boot/bzImage" -initrd "$b/initramfs.cpio" \
		-append "$cmdline" </dev/null >"$run/qemu.log" 2>&1 || qrc=$?
	cp "$run/console.log" "$RESULTS/bench-$name-console.log"
	cp "$run/bench.log" "$RESULTS/bench-$name.log"
	if ! grep -q '^@@ DONE' "$run/bench.log"; then
		echo "bench: the $name boot did not run to the end (QEMU exit $qrc); see $run" >&2
		status=1
	fi
	if grep -qE 'BUG:|WARNING:|Oops|Kernel panic' "$run/console.log"; then
		echo "bench: the $name kernel logged a BUG/WARNING/Oops; see $run/console.log" >&2
		status=1
	fi
}
mkdir -p "$RESULTS"
rm -f "$RESULTS/bench.md"
load=$(cut -d' ' -f1-3 /proc/loadavg)
date=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
boot $UP_NAME "$UP_B"
boot ours "$OUR_B"
end=$(date +%s)

# The table: one row per measurement and heap, matched by name.
BENCH_COMMAND=$command BENCH_DATE=$date \
BENCH_ACCEL=$accel BENCH_QEMU="${qemu[*]} -kernel bzImage -initrd initramfs.cpio" \
BENCH_CMDLINE=$CMDLINE BENCH_ROUNDS=$ROUNDS BENCH_LOAD=$load \
BENCH_OUR_ARGS="$OUR_ARGS" \
BENCH_BUSY="$UP_NAME $(eval echo "\${busy_$UP_NAME:-?}")%, ours ${busy_ours:-?}%" \
BENCH_UP_NAME=$UP_NAME \
BENCH_UP_DESC="$UP_SRC ($BASE, $(git -C "$UP_SRC" rev-parse --short HEAD))" \
BENCH_OUR_DESC="$OUR_SRC ($(git -C "$OUR_SRC" describe --tags --always --dirty 2>/dev/null || echo '?'))" \
python3 - "$UP_B/run/bench.log" "$OUR_B/run/bench.log" "$RESULTS/bench.md" <<'EOF'
import os
import re
import sys

up_log, our_log, out = sys.argv[1:4]
env = os.environ
ORDER = ["memset", "kzero", "udmabuf-create", "udmabuf-close", "alloc", "alloc-warm",
         "alloc-cold", "close", "touch", "sync", "steady"]
line_re = re.compile(r"^@@ BENCH (\S+) (\S+) (\d+) (.*)$")
sg_re = re.compile(r"^@@ SG (\S+) (\S+) (\d+) (.*)$")


def parse(path):
    res, boot, raw, sg = {}, "?", [], {}
    try:
        lines = open(path, errors="replace").read().splitlines()
    except OSError:
        lines = []
    for line in lines:
        line = line.rstrip("\r")
        if line.startswith("@@ BOOT "):
            boot = line[8:].strip()
        m = sg_re.match(line)
        if m:
            raw.append(line)
            _, heap, size, rest = m.groups()
            sg[(int(size), heap)] = rest.strip()
            continue
        m = line_re.match(line)
        if not m:
            continue
        raw.append(line)
        _, name, size, rest = m.groups()
        what, _, heap = name.partition(":")
        f = rest.split()
        if f[0] == "skipped":
            cell = None, None, "skipped (%s)" % (f[1] if len(f) > 1 else "?")
        else:
            try:
                cell = float(f[0]), float(f[2]), None
            except (IndexError, ValueError):
                cell = None, None, "?"
        res[(int(size), what, heap)] = cell
    return res, boot, raw, sg


up, up_boot, up_raw, up_sg = parse(up_log)
ours, our_boot, our_raw, our_sg = parse(our_log)


def key(k):
    size, what, heap = k
    i = ORDER.index(what) if what in ORDER else len(ORDER)
    # memset and udmabuf first, then each heap's rows
    return (size, heap != "", heap, i, what)


def size_name(kib):
    return "%d MiB" % (kib // 1024) if kib % 1024 == 0 else "%d KiB" % kib


def ms(cell, i):
    if cell is None:
        return "-"
    if cell[2] is not None:
        return cell[2]
    return "%.3f" % cell[i]


md = []
md.append("# DMA-BUF heap allocation benchmark")
md.append("")
md.append("- command: `%s`" % env["BENCH_COMMAND"])
md.append("- date: %s" % env["BENCH_DATE"])
md.append("- accel: %s; load average before the boots: %s; host CPUs "
          "busy just before each boot: %s"
          % (env["BENCH_ACCEL"], env["BENCH_LOAD"], env["BENCH_BUSY"]))
md.append("- QEMU: `%s`" % env["BENCH_QEMU"])
md.append("- kernel command line: `%s`, and for ours `%s`"
          % (env["BENCH_CMDLINE"], env["BENCH_OUR_ARGS"]))
UP = env["BENCH_UP_NAME"]
md.append("- %s: %s, uname -r %s" % (UP, env["BENCH_UP_DESC"], up_boot))
md.append("- ours: %s, uname -r %s" % (env["BENCH_OUR_DESC"], our_boot))
md.append("- times: median and 99th percentile (the slowest round below 100 "
          "rounds) of %s rounds after a warm-up, in ms; lower is faster; "
          "x: %s's median over ours" % (env["BENCH_ROUNDS"], UP))
md.append("")
md.append("| what | heap | size | %s p50 | ours p50 | x | %s p99 | ours p99 |" % (UP, UP))
md.append("|------|------|-----:|-------------:|---------:|--:|-------------:|---------:|")
for k in sorted(set(up) | set(ours), key=key):
    size, what, heap = k
    u = up.get(k)
    o = ours.get(k)
    ratio = ""
    if u and o and u[0] and o[0]:
        ratio = "%.1f" % (u[0] / o[0])
    md.append("| %s | %s | %s | %s | %s | %s | %s | %s |"
              % (what, heap, size_name(size), ms(u, 0), ms(o, 0), ratio,
                 ms(u, 1), ms(o, 1)))
if not up and not ours:
    md.append("| (no results) | | | | | | | |")


# Scatterlist entries per buffer, as vgem saw them when it imported one.
if up_sg or our_sg:
    md.append("")
    md.append("## Scatterlist entries per buffer")
    md.append("")
    md.append("The orig_nents of the sg_table that dma_buf_map_attachment() "
              "returned when vgem imported one buffer of each size, fresh "
              "from the heap (a kprobe event; dma-heap-bench -S); fewer is "
              "better for a device.")
    md.append("")
    md.append("| heap | size | %s | ours |" % UP)
    md.append("|------|-----:|---------:|-----:|")
    for size, heap in sorted(set(up_sg) | set(our_sg),
                             key=lambda k: (k[1], k[0])):
        md.append("| %s | %s | %s | %s |"
                  % (heap, size_name(size), up_sg.get((size, heap), "-"),
                     our_sg.get((size, heap), "-")))

# The traces of cma_alloc(): per call, the time of each traced function
# inside it (inclusive; a function called twice counts twice).
trace_re = re.compile(r"^\s*\d+\)\s+(?:[-+!#*@$]\s*)?([\d.]+) us\s+\|\s*(.*)$")


def parse_trace(path):
    calls, loops, cur, stack, tracing = [], [], None, [], False
    try:
        lines = open(path, errors="replace").read().splitlines()
    except OSError:
        return calls, loops
    for line in lines:
        line = line.rstrip("\r")
        if line.startswith("@@ LOOP "):
            f = line.split()
            loops.append((f[2], int(f[3]), int(f[4])))
            continue
        if line.startswith("@@ TRACE BEGIN"):
            tracing = True
            continue
        if line.startswith("@@ TRACE END"):
            tracing = False
            continue
        if not tracing:
            continue
        m = trace_re.match(line)
        if m:
            us, body = float(m.group(1)), m.group(2).strip()
        else:
            m = re.match(r"^\s*\d+\)\s+\|\s*(.*)$", line)
            if not m:
                continue
            us, body = None, m.group(1).strip()
        # "f() {" opens f, "}" closes the last one opened, "f();" is a leaf.
        n = re.match(r"^(\S+)\(\) \{$", body)
        if n:
            if n.group(1) == "cma_alloc":
                cur, stack = {}, []
            if cur is not None:
                stack.append(n.group(1))
            continue
        if cur is None or us is None:
            continue
        if body.startswith("}"):
            if not stack:
                cur = None
                continue
            name = stack.pop()
        else:
            n = re.match(r"^(\S+)\(\);$", body)
            if not n:
                continue
            name = n.group(1)
        cur[name] = cur.get(name, 0.0) + us
        if name == "cma_alloc" and not stack:
            calls.append(cur)
            cur = None
    return calls, loops


def median(v):
    v = sorted(v)
    n = len(v)
    return 0.0 if not n else (v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2)


def trace_table(who, path):
    calls, loops = parse_trace(path)
    if not calls or not loops:
        return []
    out = ["", "### %s" % who, ""]
    # The calls come in the order of the LOOP lines: sizes in turn.
    groups, i = [], 0
    for heap, kib, n in loops:
        groups.append((heap, kib, calls[i:i + n]))
        i += n
    names = ["cma_alloc"]
    for c in calls:
        for k in c:
            if k not in names:
                names.append(k)
    head = "| function |" + "".join(" %s, µs | share |" % size_name(kib)
                                    for _, kib, _ in groups)
    out.append(head)
    out.append("|---|" + "---:|---:|" * len(groups))
    for k in names:
        row = "| %s |" % k
        for _, _, cs in groups:
            tot = median([c.get("cma_alloc", 0.0) for c in cs])
            v = median([c.get(k, 0.0) for c in cs])
            row += " %.0f | %s |" % (v, "%.0f%%" % (100 * v / tot) if tot else "-")
        out.append(row)
    out.append("")
    out.append("Calls per size: %s." % ", ".join("%s %d (heap %s)" % (size_name(kib), len(cs), heap)
                                                for heap, kib, cs in groups))
    return out


tr = trace_table(UP, up_log) + trace_table("ours", our_log)
if tr:
    md.append("")
    md.append("## Where cma_alloc() spends its time")
    md.append("")
    md.append("The function_graph tracer from cma_alloc(), through the traced "
              "functions only, while buffers of each size are allocated and "
              "freed one at a time as in the alloc rows (our cache off, the "
              "pools emptied first): the median per call of each function's "
              "inclusive time, and its share of cma_alloc()'s median.  Tracing "
              "adds its own cost to each traced call; untraced times are in "
              "the table above.")
    md.extend(tr)
print("\n".join(md))

md.append("")
md.append("What the rows time: see the comment at the top of "
          "selftests/dma-heap-bench.c.  The raw lines (size KiB, median "
          "ms, GB/s, p99 ms):")
md.append("")
md.append("```")
md.extend(up_raw + our_raw)
md.append("```")
with open(out, "w") as f:
    f.write("\n".join(md) + "\n")
EOF
# The plot, from the report: one panel per heap kind, cold and warm
# allocation of both kernels, memset and the kernel's zeroing as limits.
rm -f "$RESULTS/bench.png"
python3 "$HERE/bench-plot.py" "$RESULTS/bench.md" "$RESULTS/bench.png" ||
	echo "bench: the plot failed" >&2
echo "bench: build $((built - start))s, boots $((end - built))s ($accel); table in $RESULTS/bench.md, plot in $RESULTS/bench.png, logs in $RESULTS/bench-*.log"
exit "$status"
