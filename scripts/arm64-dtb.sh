#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/arm64-dtb.sh OUT.dtb QEMU-ARGS...: QEMU's own device tree for
# the virt machine that QEMU-ARGS (-machine virt, -cpu, -m, -smp) describe,
# dumped with -machine dumpdtb=, with the /reserved-memory regions of
# kunit/arm64-regions.dtsi (DMA_HEAPS_DT_REGIONS= another file) and its
# /memreserve/ entries added, for a boot to take with -dtb.  QEMU still
# fills in /chosen (command line, initramfs) of a tree it is given.
set -eu
. "$(dirname "$0")/common.sh"

out=$1
shift
regions=${DMA_HEAPS_DT_REGIONS:-$REPO/kunit/arm64-regions.dtsi}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
qemu-system-aarch64 "$@" -machine dumpdtb="$tmp/virt.dtb" -nographic \
	-nodefaults </dev/null >"$tmp/qemu.log" 2>&1 || {
	cat "$tmp/qemu.log" >&2
	exit 1
}
# The dumped tree as source, then the regions: dtc merges a second
# definition of / into the first.  The regions' /memreserve/ entries go
# right after /dts-v1/;, where dtc takes them (before any node).
dtc -q -I dtb -O dts -o "$tmp/virt.dts" "$tmp/virt.dtb"
{
	sed -n 1p "$tmp/virt.dts"
	grep '^/memreserve/' "$regions" || true
	sed 1d "$tmp/virt.dts"
	grep -v '^/memreserve/' "$regions"
} >"$tmp/all.dts"
dtc -q -I dts -O dtb -o "$out" "$tmp/all.dts"
