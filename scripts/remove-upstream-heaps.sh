#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Remove upstream's DMA-BUF heaps implementation from a kernel tree, so that
# our series can add its own.  Run from the top of the tree.  Only the
# framework, the heaps and their Kconfig/Makefile lines go; the userspace
# conformance test in tools/testing/selftests/dmabuf-heaps/ stays.
set -eu

test -f drivers/dma-buf/dma-heap.c || { echo "not a tree with dma-heaps: $(pwd)" >&2; exit 1; }

rm -f drivers/dma-buf/dma-heap.c include/linux/dma-heap.h \
	include/uapi/linux/dma-heap.h
rm -rf drivers/dma-buf/heaps

# drivers/dma-buf/Makefile: the two obj- lines that build the framework.
sed -i '/^obj-\$(CONFIG_DMABUF_HEAPS)[[:space:]]/d' drivers/dma-buf/Makefile

# drivers/dma-buf/Kconfig: the DMABUF_HEAPS menuconfig block (up to the
# next blank line) and the line that sources the heaps' Kconfig.
sed -i -e '/^menuconfig DMABUF_HEAPS$/,/^$/d' \
	-e '\#^source "drivers/dma-buf/heaps/Kconfig"$#{N;d}' drivers/dma-buf/Kconfig

# Debian's .gitignore ignores everything at the top level of the tree (its
# packaging repository holds only debian/); drop that block so that git
# sees the files our series adds.
sed -i '/^# Debian packaging: ignore everything at the top level/,/^!\/debian\/$/d' .gitignore
sed -i '${/^#$/d}' .gitignore

if grep -rq 'DMABUF_HEAPS\b\|dma-heap\.h\|dma-buf/heaps' \
	drivers/dma-buf/Makefile drivers/dma-buf/Kconfig; then
	echo "leftover dma-heap references" >&2
	exit 1
fi
