#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init of the KUnit boots' initramfs (kunit/gcov/qemu-system-x86_64): after
# the suites, write every .gcda file the kernel has to the second serial
# port, base64 between "@@ GCDA <path>" and "@@ GCDA-END", then reboot,
# which -no-reboot turns into QEMU exiting.
/bin/busybox mount -t proc proc /proc
/bin/busybox --install -s /bin
mount -t sysfs sysfs /sys
mount -t debugfs debugfs /sys/kernel/debug
{
	echo "@@ GCOV BEGIN"
	for f in $(find /sys/kernel/debug/gcov -name '*.gcda'); do
		echo "@@ GCDA ${f#/sys/kernel/debug/gcov}"
		base64 "$f"
		echo "@@ GCDA-END"
	done
	echo "@@ GCOV END"
} >/dev/ttyS1 2>&1
reboot -f
