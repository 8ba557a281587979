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

# The scatterlist entries of a buffer of each size from each heap: a
# kretprobe on dma_buf_map_attachment() records the sg_table's nents and
# orig_nents (struct sg_table: sgl, then two u32) while dma-heap-bench -S
# imports each buffer into vgem.
t=/sys/kernel/tracing
if [ -s /bench/sg-args ] && mount -t tracefs tracefs $t 2>/dev/null &&
	[ -w $t/kprobe_events ] &&
	echo 'r:dmaheap_sg dma_buf_map_attachment nents=+8($retval):u32 orig=+12($retval):u32' >$t/kprobe_events &&
	echo 1 >$t/events/kprobes/dmaheap_sg/enable; then
	# shellcheck disable=SC2046 # the arguments are words
	/bench/dma-heap-bench $(cat /bench/sg-args)
	echo 0 >$t/events/kprobes/dmaheap_sg/enable
	echo >$t/kprobe_events
	echo >$t/trace
fi

# Where cma_alloc() spends its time: the function_graph tracer, from
# cma_alloc() and only through the functions below (each traced function
# costs the tracer's entry and exit, so few are traced), while
# dma-heap-bench -T allocates and frees buffers of each size one at a time,
# as the alloc rows do.  Before that, our CMA heaps' cache is turned off,
# so that every buffer is a cma_alloc(), and drop_caches empties every
# pool.
if [ -s /bench/trace-args ] && { [ -e $t/trace ] || mount -t tracefs tracefs $t 2>/dev/null; } &&
	[ -w $t/set_graph_function ]; then
	p=/sys/module/cma_heap/parameters/cache_max_mb
	[ -w $p ] && echo 0 >$p
	echo 2 >/proc/sys/vm/drop_caches
	echo cma_alloc >$t/set_graph_function
	for f in cma_alloc mutex_lock alloc_contig_range \
		start_isolate_page_range drain_all_pages __drain_all_pages \
		free_contig_range \
		__alloc_contig_migrate_range lru_cache_disable \
		lru_add_drain_all isolate_migratepages_range migrate_pages \
		reclaim_clean_pages_from_list test_pages_isolated \
		isolate_freepages_range undo_isolate_page_range; do
		echo $f >>$t/set_ftrace_filter 2>/dev/null
	done
	echo 4096 >$t/buffer_size_kb
	echo function_graph >$t/current_tracer
	echo >$t/trace
	echo 1 >$t/tracing_on
	# shellcheck disable=SC2046 # the arguments are words
	/bench/dma-heap-bench $(cat /bench/trace-args)
	echo 0 >$t/tracing_on
	echo "@@ TRACE BEGIN $(cat $t/set_ftrace_filter | tr '\n' ' ')"
	cat $t/trace
	echo "@@ TRACE END"
	echo nop >$t/current_tracer
fi
echo "@@ DONE"
sleep 1
reboot -f
