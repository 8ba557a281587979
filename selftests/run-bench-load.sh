#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The file-loading benchmark (make bench-load, and the end of make bench):
# DMA_HEAP_IOCTL_RW_FILE against read() into the buffer's mapping, read()
# into anonymous memory then memcpy(), and O_DIRECT read() into anonymous
# memory, side by side in one boot of our bench kernel (allnoconfig +
# selftests/bench.config, in $DMA_HEAPS_CACHE/build-bench, as
# run-bench.sh's), on an ext2 file system that the guest makes on a virtio
# disk (a new sparse file in the boot's run directory).  Prints a markdown
# table, also written to $RESULTS/bench-load.md, and a plot,
# $RESULTS/bench-load.png.  Not part of make test.
#
#   run-bench-load.sh [MiB ...]  file sizes (default BENCH_LOAD_SIZES or
#                                "64 256 1024")
#   BENCH_LOAD_ROUNDS=n   rounds per way, the median reported (default 3)
#   BENCH_LOAD_HEAP=name  the heap (default system)
#   BENCH_LOAD_MEM=MiB    guest memory (default 4096: a 1 GiB buffer, as
#                         much anonymous memory, and the file's page cache)
#   BENCH_TIMEOUT=s       bound on the QEMU run (default 1800)
#   SKIP_PREPARE=1        use $KDIR as it is (no scripts/prepare-tree.sh)
set -eu
. "$(dirname "$0")/../scripts/common.sh"

HERE=$REPO/selftests
B=$DMA_HEAPS_CACHE/build-bench
SIZES=${*:-${BENCH_LOAD_SIZES:-64 256 1024}}
ROUNDS=${BENCH_LOAD_ROUNDS:-3}
HEAP=${BENCH_LOAD_HEAP:-system}
MEM=${BENCH_LOAD_MEM:-4096}
TIMEOUT=${BENCH_TIMEOUT:-1800}
total=0
for s in $SIZES; do
	[[ $s =~ ^[1-9][0-9]*$ ]] || die "bench-load: not a size in MiB: $s"
	total=$((total + s))
done
if ! [[ $ROUNDS =~ ^[1-9][0-9]?$ ]] || [ "$ROUNDS" -gt 16 ]; then
	die "bench-load: BENCH_LOAD_ROUNDS must be 1..16"
fi

[ "${SKIP_PREPARE:-0}" = 1 ] || "$REPO/scripts/prepare-tree.sh"
echo "bench-load: building our kernel in $B"
build_small_kernel "$KDIR" "$B" "$HERE/bench.config" ||
	die "bench-load: the kernel did not build (bench.config)"
bin=$B/dma-heap-load-bench
gcc -static -O2 -Wall -Wextra -isystem "$B/hdr/include" -o "$bin" \
	"$HERE/dma-heap-load-bench.c" || die "bench-load: building dma-heap-load-bench failed"
gcc -O2 -o "$B/gen_init_cpio" "$KDIR/usr/gen_init_cpio.c"
busybox=$(command -v busybox) || die "bench-load: no busybox (busybox-static)"

run=$B/run-load
rm -rf "$run"
mkdir -p "$run" "$RESULTS"
echo "-r $ROUNDS -H $HEAP" >"$run/load-args"
echo "$SIZES" >"$run/load-sizes"
{
	echo "dir /dev 0755 0 0"
	echo "nod /dev/console 0600 0 0 c 5 1"
	for d in /bin /proc /sys /bench; do echo "dir $d 0755 0 0"; done
	echo "file /bin/busybox $busybox 0755 0 0"
	echo "slink /bin/sh busybox 0777 0 0"
	echo "file /init $HERE/bench-load-init.sh 0755 0 0"
	echo "file /bench/load-args $run/load-args 0644 0 0"
	echo "file /bench/load-sizes $run/load-sizes 0644 0 0"
	echo "file /bench/dma-heap-load-bench $bin 0755 0 0"
} >"$run/initramfs.list"
"$B/gen_init_cpio" "$run/initramfs.list" >"$run/initramfs.cpio"
# The files and ext2's own blocks, with room.
truncate -s "$((total + total / 4 + 256))M" "$run/disk.img"

accel=$(qemu_accel)
cpu=()
[ "$accel" = kvm ] && cpu=(-cpu host)
qemu=(qemu-system-x86_64 -accel "$accel" "${cpu[@]}" -m "$MEM" -smp 2
	-nodefaults -nographic -no-reboot -monitor none -bios qboot.rom)
load=$(cut -d' ' -f1-3 /proc/loadavg)
date=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
echo "bench-load: booting under QEMU ($accel, host load $load)"
qrc=0
timeout -k 10 "$TIMEOUT" "${qemu[@]}" \
	-serial "file:$run/console.log" -serial "file:$run/load.log" \
	-drive "file=$run/disk.img,format=raw,if=none,id=disk" \
	-device virtio-blk-pci,drive=disk \
	-kernel "$B/arch/x86/boot/bzImage" -initrd "$run/initramfs.cpio" \
	-append "console=ttyS0 rdinit=/init" </dev/null >"$run/qemu.log" 2>&1 || qrc=$?
cp "$run/load.log" "$RESULTS/bench-load.log"
grep -q '^@@ LOAD-DONE' "$run/load.log" ||
	die "bench-load: the boot did not run to the end (QEMU exit $qrc); see $run"
! grep -qE 'BUG:|WARNING:|Oops|Kernel panic' "$run/console.log" ||
	die "bench-load: the kernel logged a BUG/WARNING/Oops; see $run/console.log"

# The table: per size and cache state, each way's median and the ratios.
BENCH_CMD="${*:+$*}" BENCH_DATE=$date BENCH_LOAD=$load BENCH_ACCEL=$accel \
BENCH_KERNEL="$(git -C "$KDIR" describe --tags --always --dirty 2>/dev/null || echo '?')" \
BENCH_ROUNDS=$ROUNDS BENCH_HEAP=$HEAP BENCH_MEM=$MEM \
python3 - "$run/load.log" "$RESULTS/bench-load.md" "$run/load.dat" "$run/load.gp" \
	"$RESULTS/bench-load.png" <<'PY'
import os
import sys

env = os.environ
rows = {}
for line in open(sys.argv[1], errors="replace"):
    f = line.split()
    if len(f) == 8 and f[:2] == ["@@", "LOAD"]:
        rows[(int(f[2]), f[3], f[4])] = (float(f[5]), float(f[6]), int(f[7]))
out = ["File loading: %s heap, %s, %s rounds per way (median), guest %s MiB, "
       "kernel %s, %s, host load %s." % (env["BENCH_HEAP"], env["BENCH_ACCEL"],
                                          env["BENCH_ROUNDS"], env["BENCH_MEM"],
                                          env["BENCH_KERNEL"], env["BENCH_DATE"],
                                          env["BENCH_LOAD"]),
       "",
       "| file | page cache | (a) read() into the mapping, ms | (b) read() + memcpy(), ms "
       "| (c) O_DIRECT read(), ms | (d) RW_FILE, ms | (a)/(d) | (d)/(c) "
       "| Cached growth in (d), KiB |",
       "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
for size in sorted({k[0] for k in rows}):
    for state in ("cold", "warm"):
        r = [rows.get((size, state, w)) for w in ("read", "copy", "odirect", "rwfile")]
        if None in r:
            continue
        out.append("| %d MiB | %s | %.1f | %.1f | %.1f | %.1f | %.2fx | %.2f | %d |" % (
            size, state, r[0][0], r[1][0], r[2][0], r[3][0],
            r[0][0] / r[3][0], r[3][0] / r[2][0], r[3][2]))
text = "\n".join(out) + "\n"
open(sys.argv[2], "w").write(text)
print(text, end="")

# The plot's data: one block per way and cache state, size against ms.
ways = [("read", "(a) read() into the mapping"), ("copy", "(b) read() + memcpy()"),
        ("odirect", "(c) O_DIRECT read()"), ("rwfile", "(d) RW_FILE")]
with open(sys.argv[3], "w") as f:
    for state in ("cold", "warm"):
        for w, _ in ways:
            f.write("# %s %s\n" % (w, state))
            for size in sorted({k[0] for k in rows}):
                if (size, state, w) in rows:
                    f.write("%d %.3f\n" % (size, rows[(size, state, w)][0]))
            f.write("\n\n")
plots, i = [], 0
for state, dash in (("cold", 1), ("warm", 2)):
    for n, (w, title) in enumerate(ways):
        plots.append("'%s' index %d with linespoints lc %d dt %d pt 7 title '%s, %s'" % (
            sys.argv[3], i, n + 1, dash, title, state))
        i += 1
open(sys.argv[4], "w").write("""set terminal pngcairo size 900,560 font ',10'
set output '%s'
set termoption noenhanced
set logscale xy
set xrange [48:1400]
set xlabel 'file size (MiB)'
set ylabel 'ms to load the file into a system heap buffer (median)'
set title 'Loading a file into a heap buffer (make bench-load, %s, cold solid, warm dashed)'
set key top left
set grid
set xtics (64, 256, 1024)
plot %s
""" % (sys.argv[5], env["BENCH_ACCEL"], ", \\\n     ".join(plots)))
PY
if command -v gnuplot >/dev/null && gnuplot "$run/load.gp"; then
	echo "bench-load: the plot is $RESULTS/bench-load.png"
else
	echo "bench-load: no plot (gnuplot, Debian's gnuplot-nox, missing or failed)"
fi
