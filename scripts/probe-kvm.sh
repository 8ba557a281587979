#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Print "kvm" when KVM can boot and power off the given KUnit kernel within a
# short timeout, "tcg" otherwise.  DMA_HEAPS_ACCEL=tcg|kvm skips the probe.
set -u
bzimage=$1

if [ -n "${DMA_HEAPS_ACCEL:-}" ]; then
	echo "$DMA_HEAPS_ACCEL"
	exit 0
fi
# The answer holds until the machine reboots.
cache=${DMA_HEAPS_CACHE:-$HOME/.cache/dma-heaps}/accel
boot=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null)
if [ -f "$cache" ] && [ "$(head -n1 "$cache")" = "$boot" ]; then
	tail -n1 "$cache"
	exit 0
fi
if [ ! -w /dev/kvm ] || [ ! -r /dev/kvm ]; then
	echo tcg
	exit 0
fi
# Seen here: nested KVM that spins at the first instruction; a kernel that
# boots under KVM runs its (filtered-out) KUnit run in a few seconds.
out=$(timeout 20 qemu-system-x86_64 -accel kvm -cpu host -nodefaults -m 512 \
	-nographic -no-reboot -serial stdio -bios qboot.rom -kernel "$bzimage" \
	-append "console=ttyS0 kunit.filter_glob=dma_heap_probe_none kunit_shutdown=poweroff" \
	</dev/null 2>&1)
if [ $? = 0 ] && grep -q 'TAP version' <<<"$out"; then
	accel=kvm
else
	accel=tcg
fi
mkdir -p "$(dirname "$cache")"
printf '%s\n%s\n' "$boot" "$accel" >"$cache"
echo "$accel"
