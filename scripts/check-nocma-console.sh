#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# check-nocma-console.sh CONSOLE: the console of the x86_64 boot without a
# CMA area and with bad dma_heap.carveout= (the kernel arguments below,
# which run_kunit.sh's kunit-nocma boot and make mutate's nocma stage both
# pass) has, for each bad argument, its one boot message and no heap.
# Prints what is missing and exits 1 when something is.
#
# The arguments, one per line for the callers (--args):
#   nokaslr, a range that is not RAM (the PCI hole of a 2 GiB guest), one
#   without @BASE, one that memmap= took from the kernel, one over the
#   kernel's image (at 16 MiB: nokaslr), a fifth, one more than the heap
#   takes, and one with no value at all.
set -u
if [ "${1:-}" = --args ]; then
	printf '%s\n' nokaslr \
		dma_heap.carveout=16M@0xc0000000:kunit-hole \
		dma_heap.carveout=16M \
		'memmap=16M$0x20000000' \
		dma_heap.carveout=16M@0x20000000:kunit-memmap \
		dma_heap.carveout=4M@0x1000000:kunit-kernel \
		dma_heap.carveout=16M@0xe0000000:kunit-fifth \
		dma_heap.carveout
	exit 0
fi
c=$1
bad=()
want() {
	grep -q -- "$1" "$c" || bad+=("no \"$1\"")
}
want 'dma_heap: carveout=16M@0xc0000000:kunit-hole: not all of it is System RAM .* (-22); no heap'
want 'dma_heap: carveout=16M: not SIZE@BASE\[:NAME\] (-22); no heap'
want 'dma_heap: carveout=16M@0x20000000:kunit-memmap: not all of it is System RAM .*memmap=.* (-22); no heap'
want 'dma_heap: carveout=4M@0x1000000:kunit-kernel: overlaps memory the kernel reserved at boot .* (-16); no heap'
want 'dma_heap: carveout=16M@0xe0000000:kunit-fifth: more than 4 carveouts; ignored'
want "Malformed early option 'dma_heap.carveout'"
[ "$(grep -c 'dma_heap: .*kunit-fifth' "$c")" = 1 ] ||
	bad+=("not one line for kunit-fifth")
! grep -q 'dma_heap: carveout kunit-\(hole\|memmap\|kernel\|fifth\):' "$c" ||
	bad+=("a heap was made of a bad range")
grep -q 'cma: Reserved' "$c" && bad+=("a CMA area was reserved")
[ ${#bad[@]} = 0 ] && exit 0
printf '%s\n' "${bad[@]}"
exit 1
