#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init of the kselftest boot's initramfs (busybox sh).  Mounts the pseudo
# filesystems, runs every binary listed in /tests/list, runs a kmemleak
# scan, and reboots, which -no-reboot turns into QEMU exiting.  Test output
# goes to the second serial port (ttyS1; on arm64 a virtio console, hvc0),
# the kernel's log to the first, so that they never interleave.  run-selftests.sh parses the @@ markers.
/bin/busybox mount -t proc proc /proc
/bin/busybox --install -s /bin
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t debugfs debugfs /sys/kernel/debug
mount -t tmpfs tmpfs /tmp
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
[ -c /dev/ttyS1 ] && exec >/dev/ttyS1 2>&1 </dev/null
# arm64 (QEMU virt, one PL011): a virtio console instead.
[ -c /dev/hvc0 ] && exec >/dev/hvc0 2>&1 </dev/null

echo "@@ BOOT $(uname -r)"

# Fault injection for dma-heap-test's fail-nth loops: failslab and
# fail_page_alloc also fail allocations that may sleep, highmem ones and
# order 0, and print nothing (verbose=2, the default, dumps a stack per
# failure).  Probability stays 0: only /proc/thread-self/fail-nth fails
# anything, and only in the task that wrote to it.
F=/sys/kernel/debug
if [ -d $F/failslab ] && [ -d $F/fail_page_alloc ]; then
	echo N >$F/failslab/ignore-gfp-wait
	echo 0 >$F/failslab/verbose
	echo N >$F/fail_page_alloc/ignore-gfp-wait
	echo N >$F/fail_page_alloc/ignore-gfp-highmem
	echo 0 >$F/fail_page_alloc/min-order
	echo 0 >$F/fail_page_alloc/verbose
	fs="" fp=""
	for k in ignore-gfp-wait verbose probability; do
		fs="$fs $k=$(cat $F/failslab/$k)"
	done
	for k in ignore-gfp-wait ignore-gfp-highmem min-order verbose probability; do
		fp="$fp $k=$(cat $F/fail_page_alloc/$k)"
	done
	echo "@@ FAULTS failslab:$fs; fail_page_alloc:$fp"
fi
# The heaps built as modules (selftests/kernel.config), before anything
# looks for heaps; a module that does not load leaves its heap missing,
# which run-selftests.sh reports.
for m in /tests/heaps/*.ko; do
	[ ! -f "$m" ] || insmod "$m" || echo "@@ INSMOD $m failed"
done
# DMA_HEAP_IOCTL_RW_FILE's tests: an ext2 file system made on the first
# virtio disk, the second left raw (run-selftests.sh's make_disks).
if [ -b /dev/vda ] && mke2fs -q /dev/vda && mkdir -p /mnt/ext2 &&
   mount -t ext2 /dev/vda /mnt/ext2; then
	echo "@@ DISKS ext2 on /dev/vda at /mnt/ext2, raw /dev/vdb"
else
	echo "@@ DISKS none"
fi
echo "@@ CMA $(ls $F/cma 2>/dev/null | tr '\n' ' ')"
echo "@@ HEAPS $(ls /dev/dma_heap 2>/dev/null | tr '\n' ' ')"
echo "@@ DRI $(ls /dev/dri 2>/dev/null | tr '\n' ' ')"
cd /tmp || exit 1
for t in $(cat /tests/list); do
	echo "@@ BEGIN $t $(date +%s)"
	# shellcheck disable=SC2046
	"/tests/$t" $(cat "/tests/$t.args" 2>/dev/null)
	echo "@@ END $t rc=$? $(date +%s)"
done

# kmemleak only reports objects older than 5 s, found unreferenced in a
# scan: scan, wait, scan again, then print what it found.  Not in a boot
# whose initramfs has /tests/no-kmemleak (run-selftests.sh's swiotlb boot:
# the scans of the debug kernel take minutes).
if [ -e /tests/no-kmemleak ]; then
	echo "@@ NOKMEMLEAK"
else
	echo "@@ BEGIN kmemleak $(date +%s)"
	if [ -w /sys/kernel/debug/kmemleak ]; then
		echo scan >/sys/kernel/debug/kmemleak
		sleep 6
		echo scan >/sys/kernel/debug/kmemleak
		cat /sys/kernel/debug/kmemleak
		echo "@@ END kmemleak rc=0 $(date +%s)"
	else
		echo "@@ END kmemleak rc=1 $(date +%s)"
	fi
fi
# The gcov data of our objects (scripts/coverage.sh), base64 between
# markers that scripts/gcov-extract.py reads.
if [ -d /sys/kernel/debug/gcov ]; then
	for f in $(find /sys/kernel/debug/gcov -name '*.gcda'); do
		echo "@@ GCDA ${f#/sys/kernel/debug/gcov}"
		base64 "$f"
		echo "@@ GCDA-END"
	done
fi
echo "@@ MEMINFO $(grep -E 'MemAvailable|CmaFree' /proc/meminfo | tr -s ' \n' ' ')"
echo "@@ DONE"
sleep 1
reboot -f
