#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init of the file-loading benchmark's boot (selftests/run-bench-load.sh,
# busybox sh): makes an ext2 file system on the virtio disk, runs
# /bench/dma-heap-load-bench on it with the arguments in /bench/load-args
# and reboots, which -no-reboot turns into QEMU exiting.  The output goes
# to the second serial port (ttyS1), the kernel's log to the first.
/bin/busybox mount -t proc proc /proc
/bin/busybox --install -s /bin
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
[ -c /dev/ttyS1 ] && exec >/dev/ttyS1 2>&1 </dev/null

echo "@@ BOOT $(uname -r)"
echo "@@ CMDLINE $(cat /proc/cmdline)"
echo "@@ MEMINFO $(grep -E 'MemTotal|MemAvailable' /proc/meminfo | tr -s ' \n' ' ')"
mkdir -p /mnt
if mke2fs -q /dev/vda && mount -t ext2 /dev/vda /mnt; then
	# shellcheck disable=SC2046 # the arguments are words
	/bench/dma-heap-load-bench $(cat /bench/load-args) /mnt $(cat /bench/load-sizes)
	echo "@@ END rc=$?"
else
	echo "@@ LOAD-FAILED no ext2 file system on /dev/vda"
fi
echo "@@ DONE"
sleep 1
reboot -f
