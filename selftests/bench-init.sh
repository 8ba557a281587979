#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init of the benchmark boot's initramfs (busybox sh).  Mounts the pseudo
# filesystems, runs /bench/dma-heap-bench with the arguments in /bench/args
# and reboots, which -no-reboot turns into QEMU exiting.  The benchmark's
# output goes to the second serial port (ttyS1), the kernel's log to the
# first.  run-bench.sh reads the @@ lines.
/bin/busybox mount -t proc proc /proc
/bin/busybox --install -s /bin
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
[ -c /dev/ttyS1 ] && exec >/dev/ttyS1 2>&1 </dev/null

echo "@@ BOOT $(uname -r)"
echo "@@ CMDLINE $(cat /proc/cmdline)"
echo "@@ HEAPS $(ls /dev/dma_heap 2>/dev/null | tr '\n' ' ')"
echo "@@ MEMINFO $(grep -E 'MemTotal|MemAvailable|CmaTotal|CmaFree' /proc/meminfo | tr -s ' \n' ' ')"
cd /tmp || exit 1
echo "@@ BEGIN dma-heap-bench $(date +%s)"
# shellcheck disable=SC2046 # the arguments are words
/bench/dma-heap-bench $(cat /bench/args)
echo "@@ END dma-heap-bench rc=$? $(date +%s)"
echo "@@ MEMINFO $(grep -E 'MemAvailable|CmaFree' /proc/meminfo | tr -s ' \n' ' ')"
echo "@@ DONE"
sleep 1
reboot -f
