// SPDX-License-Identifier: GPL-2.0
/*
 * dma-heap-bench: how fast a kernel allocates, maps and frees DMA-BUF heap
 * buffers, next to udmabuf and plain memset in the same machine.
 *
 * Run by selftests/run-bench.sh in a QEMU boot of upstream's Debian 6.1
 * kernel and of ours, so that the two heap implementations can be compared
 * side by side on the same (virtual) hardware.  For each size, after one
 * warm-up round, it times ROUNDS rounds and prints the median and the 99th
 * percentile (the slowest round below 100 rounds) of:
 *
 *   alloc:<heap>       DMA_HEAP_IOCTL_ALLOC right after the close() of the
 *                      last buffer: a heap that zeroes freed memory later
 *                      has had no time to
 *   alloc-warm:<heap>  the same, once the heap's pool has settled (its
 *                      worker has zeroed what the last close() freed; the
 *                      debugfs files dma_heap_system_pool and
 *                      dma_heap_cma_cache say so) and 1 ms
 *                      more: an application that frees a buffer and
 *                      allocates the next one a frame later
 *   alloc-cold:<heap>  the same, once the pool has settled and then
 *                      drop_caches=2 has emptied it (the shrinkers empty
 *                      every pool): the page allocator's pages, zeroed
 *   close:<heap>       close() of that dma-buf: where the pages are freed
 *   touch:<heap>       mmap() of a fresh buffer plus a first write to each page
 *                      (inside DMA_BUF_IOCTL_SYNC start/end)
 *   sync:<heap>        DMA_BUF_IOCTL_SYNC start and end, read and write, on a
 *                      mapped buffer with no device attached: the cost of
 *                      begin_cpu_access and end_cpu_access themselves
 *   steady:<heap>      STEADY_COUNT rounds of alloc, mmap, touch, munmap,
 *                      close, back to back, timed as a whole: the time per
 *                      buffer, where deferred work cannot hide
 *   udmabuf-create     UDMABUF_CREATE on a sealed memfd: where shmem allocates
 *                      and zeroes the pages, the other way to get a dma-buf
 *   udmabuf-close      close() of the udmabuf and of its memfd
 *   memset             memset() of an already faulted-in buffer: what plain
 *                      zeroing costs in this machine, the bound for the above
 *   kzero              read() of /dev/zero into such a buffer: the kernel's
 *                      own zeroing (clear_user(), a page at a time), as the
 *                      heaps' __GFP_ZERO and clear_page() do it
 *
 * One line per result, on stdout:
 *
 *   @@ BENCH <label> <what> <size_kib> <median_ms> <GB/s> <p99_ms>
 *   @@ BENCH <label> <what> <size_kib> skipped <errno name>
 *
 * GB/s is the size over the median time, 1 GB being 1e9 bytes.  A result is
 * skipped, not failed, when the kernel refuses the allocation (ENOMEM from a
 * CMA area too small for the size, udmabuf's size limit, no /dev/udmabuf).
 * Lines starting with '#' are for people (the fastest and slowest round).
 *
 * Usage: dma-heap-bench [-l label] [-r rounds] [size ...]
 *        dma-heap-bench -T buffers [size ...]
 *        dma-heap-bench -S [-l label] [size ...]
 * The second form only allocates and frees that many buffers of each size,
 * one at a time, from every CMA heap but default_cma_region (ours: the
 * default area again), printing "@@ LOOP <heap> <size_kib> <buffers>":
 * bench-init.sh traces * cma_alloc() while it runs.
 * The third form counts the scatterlist entries of a buffer of each size
 * from every heap, as a device sees them: it imports the buffer into vgem
 * (DRM_IOCTL_PRIME_FD_TO_HANDLE, which attaches and maps it) and reads the
 * orig_nents of the sg_table that dma_buf_map_attachment() returned from
 * the kprobe event dmaheap_sg, which bench-init.sh sets up, in
 * /sys/kernel/tracing/trace.  One line per buffer:
 *
 *   @@ SG <label> <heap> <size_kib> <entries>
 *   @@ SG <label> <heap> <size_kib> skipped <errno name>
 * The label defaults to uname -r, the rounds to 10, the size to 64M; a size
 * is a number of KiB with K or of MiB with M or no suffix.
 * Only the uapi struct dma_heap_allocation_data and DMA_HEAP_IOCTL_ALLOC,
 * which upstream and we share, are used.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <drm/drm.h>
#include <linux/dma-buf.h>
#include <linux/dma-heap.h>
#include <linux/udmabuf.h>

#include "dma-heap-util.h"

#define UDMABUF_DEV	"/dev/udmabuf"
#define MAX_ROUNDS	1000
#define MAX_SIZES	16
#define DEFAULT_ROUNDS	10
#define DEFAULT_KIB	(64UL * 1024)
#define MAX_KIB		(1024UL * 1024 * 1024)
#define STEADY_COUNT	20
#define POOL_DEBUGFS	"/sys/kernel/debug/dma_heap_system_pool"
#define CMA_CACHE_DEBUGFS "/sys/kernel/debug/dma_heap_cma_cache"
#define MAX_TRACE	64
#define VGEM_DEV	"/dev/dri/card0"
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const char *label;
static int rounds = DEFAULT_ROUNDS;

static const struct {
	int err;
	const char *name;
} errno_names[] = {
	{ EPERM, "EPERM" },
	{ ENOENT, "ENOENT" },
	{ EIO, "EIO" },
	{ ENXIO, "ENXIO" },
	{ EBADF, "EBADF" },
	{ ENOMEM, "ENOMEM" },
	{ EACCES, "EACCES" },
	{ EFAULT, "EFAULT" },
	{ EBUSY, "EBUSY" },
	{ ENODEV, "ENODEV" },
	{ EINVAL, "EINVAL" },
	{ EMFILE, "EMFILE" },
	{ ENOTTY, "ENOTTY" },
	{ EFBIG, "EFBIG" },
	{ ENOSPC, "ENOSPC" },
	{ ENOSYS, "ENOSYS" },
	{ EOVERFLOW, "EOVERFLOW" },
	{ EOPNOTSUPP, "EOPNOTSUPP" },
};

static const char *errno_name(int err)
{
	static char buf[16];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(errno_names); i++)
		if (errno_names[i].err == err)
			return errno_names[i].name;
	snprintf(buf, sizeof(buf), "E%d", err);
	return buf;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* "what" or "what:heap" */
static const char *name_of(const char *what, const char *heap)
{
	static char buf[320];

	if (!heap)
		return what;
	snprintf(buf, sizeof(buf), "%s:%s", what, heap);
	return buf;
}

/* Print the median and 99th percentile of @n rounds (sorts @ns). */
static void report(const char *what, const char *heap, size_t len,
		   uint64_t *ns, int n)
{
	const char *name = name_of(what, heap);
	double median_ns, median_ms, p99_ms;

	qsort(ns, n, sizeof(*ns), cmp_u64);
	if (n % 2)
		median_ns = ns[n / 2];
	else
		median_ns = (ns[n / 2 - 1] + ns[n / 2]) / 2.0;
	median_ms = median_ns / 1e6;
	p99_ms = ns[(n * 99 + 99) / 100 - 1] / 1e6;
	printf("# %s %s %zu KiB: min %.3f ms, max %.3f ms, %d rounds\n",
	       label, name, len / 1024, ns[0] / 1e6, ns[n - 1] / 1e6, n);
	if (median_ns > 0)
		printf("@@ BENCH %s %s %zu %.3f %.2f %.3f\n", label, name,
		       len / 1024, median_ms, len / median_ns, p99_ms);
	else
		printf("@@ BENCH %s %s %zu %.3f inf %.3f\n", label, name,
		       len / 1024, median_ms, p99_ms);
}

static void skip(const char *what, const char *heap, size_t len, int err)
{
	printf("@@ BENCH %s %s %zu skipped %s\n", label, name_of(what, heap),
	       len / 1024, errno_name(err));
}

/*
 * Wait until the heaps' pools and caches have settled: nothing waiting to
 * be zeroed (ours; upstream has no pool and no such files), at most a
 * second, then 1 ms more.
 */
static void settle(void)
{
	long pool, cache;
	int tries;

	for (tries = 0; tries < 1000; tries++) {
		pool = unzeroed_pages(POOL_DEBUGFS);
		cache = unzeroed_pages(CMA_CACHE_DEBUGFS);
		if (pool <= 0 && cache <= 0)
			break;
		usleep(1000);
	}
	usleep(1000);
}

/* Empty every pool: the shrinkers run on drop_caches=2. */
static void drop_pools(void)
{
	FILE *f = fopen("/proc/sys/vm/drop_caches", "w");

	if (f) {
		fputs("2\n", f);
		fclose(f);
	}
}

/* heap_alloc(), timed into *@ns unless @ns is NULL. */
static int timed_alloc(int heap_fd, size_t len, uint64_t *ns)
{
	uint64_t t0 = now_ns();
	int fd = heap_alloc(heap_fd, len);

	if (ns)
		*ns = now_ns() - t0;
	return fd;
}

enum alloc_mode { BACK_TO_BACK, WARM, COLD };

/* alloc:<heap> and close:<heap>, alloc-warm:<heap>, alloc-cold:<heap> */
static void bench_heap_alloc(int heap_fd, const char *heap, size_t len,
			     enum alloc_mode mode)
{
	static const char * const names[] = { "alloc", "alloc-warm",
					       "alloc-cold" };
	uint64_t alloc_ns[MAX_ROUNDS], close_ns[MAX_ROUNDS], t0;
	int r, fd;

	for (r = -1; r < rounds; r++) {
		if (mode != BACK_TO_BACK)
			settle();
		if (mode == COLD)
			drop_pools();
		fd = timed_alloc(heap_fd, len, r < 0 ? NULL : &alloc_ns[r]);
		if (fd < 0) {
			skip(names[mode], heap, len, -fd);
			if (mode == BACK_TO_BACK)
				skip("close", heap, len, -fd);
			return;
		}
		t0 = now_ns();
		close(fd);
		if (r >= 0)
			close_ns[r] = now_ns() - t0;
	}
	report(names[mode], heap, len, alloc_ns, rounds);
	if (mode == BACK_TO_BACK)
		report("close", heap, len, close_ns, rounds);
}

/* Map @fd, write to each page inside a CPU-access section, unmap. */
static int touch(int fd, size_t len, char v)
{
	size_t ps = sysconf(_SC_PAGESIZE), off;
	volatile char *p;	/* every first write must happen */

	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	buf_sync(fd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE);
	for (off = 0; off < len; off += ps)
		p[off] = v;
	buf_sync(fd, DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE);
	munmap((void *)p, len);
	return 0;
}

/*
 * steady:<heap>: STEADY_COUNT buffers allocated, touched and freed back to
 * back, per round; the time per buffer.
 */
static void bench_heap_steady(int heap_fd, const char *heap, size_t len)
{
	uint64_t steady_ns[MAX_ROUNDS], t0;
	int r, i, fd, err;

	for (r = -1; r < rounds; r++) {
		t0 = now_ns();
		for (i = 0; i < STEADY_COUNT; i++) {
			fd = heap_alloc(heap_fd, len);
			if (fd < 0) {
				skip("steady", heap, len, -fd);
				return;
			}
			err = touch(fd, len, (char)i);
			close(fd);
			if (err) {
				skip("steady", heap, len, -err);
				return;
			}
		}
		if (r >= 0)
			steady_ns[r] = (now_ns() - t0) / STEADY_COUNT;
	}
	report("steady", heap, len, steady_ns, rounds);
}

/*
 * sync:<heap>: DMA_BUF_IOCTL_SYNC start and end (read and write) on a
 * buffer that is mapped and touched: begin_cpu_access and end_cpu_access
 * with no device attached.
 */
static void bench_heap_sync(int heap_fd, const char *heap, size_t len)
{
	uint64_t sync_ns[MAX_ROUNDS], t0;
	int r, fd, err;
	void *p;

	fd = heap_alloc(heap_fd, len);
	if (fd < 0) {
		skip("sync", heap, len, -fd);
		return;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		err = errno;
		close(fd);
		skip("sync", heap, len, err);
		return;
	}
	memset(p, 1, len);
	for (r = -1; r < rounds; r++) {
		t0 = now_ns();
		buf_sync(fd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW);
		buf_sync(fd, DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW);
		if (r >= 0)
			sync_ns[r] = now_ns() - t0;
	}
	munmap(p, len);
	close(fd);
	report("sync", heap, len, sync_ns, rounds);
}

/* touch:<heap>: mmap and a first write to each page of a fresh buffer */
static void bench_heap_touch(int heap_fd, const char *heap, size_t len)
{
	uint64_t touch_ns[MAX_ROUNDS], t0, t1;
	int r, fd, err;

	for (r = -1; r < rounds; r++) {
		fd = heap_alloc(heap_fd, len);
		if (fd < 0) {
			skip("touch", heap, len, -fd);
			return;
		}
		t0 = now_ns();
		err = touch(fd, len, (char)r);
		t1 = now_ns();
		close(fd);
		if (err) {
			skip("touch", heap, len, -err);
			return;
		}
		if (r >= 0)
			touch_ns[r] = t1 - t0;
	}
	report("touch", heap, len, touch_ns, rounds);
}

static void bench_heap(const char *heap, size_t len)
{
	int heap_fd, err;

	heap_fd = heap_open(heap);
	if (heap_fd < 0) {
		err = errno;
		skip("alloc", heap, len, err);
		skip("alloc-warm", heap, len, err);
		skip("alloc-cold", heap, len, err);
		skip("close", heap, len, err);
		skip("touch", heap, len, err);
		skip("sync", heap, len, err);
		skip("steady", heap, len, err);
		return;
	}
	bench_heap_alloc(heap_fd, heap, len, BACK_TO_BACK);
	bench_heap_alloc(heap_fd, heap, len, WARM);
	bench_heap_alloc(heap_fd, heap, len, COLD);
	bench_heap_touch(heap_fd, heap, len);
	bench_heap_sync(heap_fd, heap, len);
	bench_heap_steady(heap_fd, heap, len);
	close(heap_fd);
}

/*
 * kzero: read() of /dev/zero into an already faulted-in buffer: the kernel
 * zeroing @len bytes of memory with its own instructions (clear_user(), a
 * page at a time), as __GFP_ZERO's clear_page() does, next to memset's.
 */
static void bench_kzero(size_t len)
{
	uint64_t kzero_ns[MAX_ROUNDS], t0, t1;
	size_t done;
	ssize_t n;
	char *p;
	int r, fd;

	fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		skip("kzero", NULL, len, errno);
		return;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (p == MAP_FAILED) {
		skip("kzero", NULL, len, errno);
		close(fd);
		return;
	}
	memset(p, 1, len);
	for (r = -1; r < rounds; r++) {
		t0 = now_ns();
		for (done = 0; done < len; done += n) {
			n = read(fd, p + done, len - done);
			if (n <= 0) {
				skip("kzero", NULL, len, n < 0 ? errno : EIO);
				munmap(p, len);
				close(fd);
				return;
			}
		}
		t1 = now_ns();
		if (r >= 0)
			kzero_ns[r] = t1 - t0;
	}
	munmap(p, len);
	close(fd);
	report("kzero", NULL, len, kzero_ns, rounds);
}

/* A sealed memfd of @len bytes, as UDMABUF_CREATE wants it, or -errno. */
static int sealed_memfd(size_t len)
{
	int fd, err;

	fd = memfd_create("dma-heap-bench", MFD_ALLOW_SEALING | MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, len) < 0 || fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK) < 0) {
		err = errno;
		close(fd);
		return -err;
	}
	return fd;
}

/* udmabuf-create and udmabuf-close */
static void bench_udmabuf(size_t len)
{
	uint64_t create_ns[MAX_ROUNDS], close_ns[MAX_ROUNDS], t0, t1;
	struct udmabuf_create create;
	int dev, memfd, buf, r, err;

	dev = open(UDMABUF_DEV, O_RDWR | O_CLOEXEC);
	if (dev < 0) {
		err = errno;
		goto skip;
	}
	for (r = -1; r < rounds; r++) {
		memfd = sealed_memfd(len);
		if (memfd < 0) {
			err = -memfd;
			goto skip_close;
		}
		memset(&create, 0, sizeof(create));
		create.memfd = memfd;
		create.flags = UDMABUF_FLAGS_CLOEXEC;
		create.offset = 0;
		create.size = len;
		t0 = now_ns();
		buf = ioctl(dev, UDMABUF_CREATE, &create);
		t1 = now_ns();
		if (buf < 0) {
			err = errno;
			close(memfd);
			goto skip_close;
		}
		if (r >= 0)
			create_ns[r] = t1 - t0;
		t0 = now_ns();
		close(buf);
		close(memfd);
		if (r >= 0)
			close_ns[r] = now_ns() - t0;
	}
	close(dev);
	report("udmabuf-create", NULL, len, create_ns, rounds);
	report("udmabuf-close", NULL, len, close_ns, rounds);
	return;

skip_close:
	close(dev);
skip:
	skip("udmabuf-create", NULL, len, err);
	skip("udmabuf-close", NULL, len, err);
}

/* memset of a faulted-in buffer: the zeroing bandwidth of this machine */
static void bench_memset(size_t len)
{
	uint64_t memset_ns[MAX_ROUNDS], t0, t1;
	char *p;
	int r;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (p == MAP_FAILED) {
		skip("memset", NULL, len, errno);
		return;
	}
	memset(p, 1, len);
	for (r = -1; r < rounds; r++) {
		t0 = now_ns();
		memset(p, 0, len);
		/* The buffer is never read: keep the stores. */
		__asm__ __volatile__("" : : "r"(p) : "memory");
		t1 = now_ns();
		if (r >= 0)
			memset_ns[r] = t1 - t0;
	}
	munmap(p, len);
	report("memset", NULL, len, memset_ns, rounds);
}

/*
 * -T: @n buffers of @len from every CMA heap, each freed before the next is
 * allocated, as the alloc rows do, so that each is a cma_alloc() of the
 * range the last one gave back.  For tracing cma_alloc().
 */
static void trace_loop(char **heaps, int nheaps, size_t len, int n)
{
	int heap_fd, fd, h, got;

	for (h = 0; h < nheaps; h++) {
		/* Ours only: the default area's second name. */
		if (!strcmp(heaps[h], "system") ||
		    !strcmp(heaps[h], "default_cma_region"))
			continue;
		heap_fd = heap_open(heaps[h]);
		if (heap_fd < 0)
			continue;
		for (got = 0; got < n; got++) {
			fd = heap_alloc(heap_fd, len);
			if (fd < 0)
				break;
			close(fd);
		}
		printf("@@ LOOP %s %zu %d\n", heaps[h], len / 1024, got);
		close(heap_fd);
	}
}

/* The sg entries of one buffer of @len from @heap, imported into vgem. */
static void sg_entries(int drm_fd, const char *heap, size_t len)
{
	int heap_fd, fd, err = 0;
	long entries = -ENOENT;

	heap_fd = heap_open(heap);
	if (heap_fd < 0) {
		err = errno;
		goto out;
	}
	fd = heap_alloc(heap_fd, len);
	close(heap_fd);
	if (fd < 0) {
		err = -fd;
		goto out;
	}
	entries = dmabuf_sg_entries(drm_fd, fd);
	close(fd);
	if (entries < 0)
		err = -entries;
out:
	if (err)
		printf("@@ SG %s %s %zu skipped %s\n", label, heap, len / 1024,
		       errno_name(err));
	else
		printf("@@ SG %s %s %zu %ld\n", label, heap, len / 1024,
		       entries);
}

static int parse_ulong(const char *s, unsigned long max, unsigned long *val)
{
	char *end;

	errno = 0;
	*val = strtoul(s, &end, 10);
	return errno || end == s || *end || *val == 0 || *val > max ? -1 : 0;
}

/* A size: KiB with K, MiB with M or no suffix; in KiB, or 0. */
static unsigned long parse_size(const char *arg)
{
	unsigned long val, mult = 1024;
	char num[32];
	size_t n = strlen(arg);

	if (!n || n >= sizeof(num))
		return 0;
	memcpy(num, arg, n + 1);
	if (num[n - 1] == 'K' || num[n - 1] == 'M') {
		mult = num[n - 1] == 'K' ? 1 : 1024;
		num[n - 1] = '\0';
	}
	if (parse_ulong(num, MAX_KIB / mult, &val))
		return 0;
	return val * mult;
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [-l label] [-r rounds] [-T buffers] [-S] [size[K|M] ...]\n",
		prog);
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long sizes[MAX_SIZES] = { DEFAULT_KIB }, val;
	char *heaps[MAX_HEAPS];
	struct utsname uts;
	int nsizes = 1, nheaps, opt, i, s, ntrace = 0, sg = 0, drm_fd, drm_err;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "l:r:T:Sh")) != -1) {
		switch (opt) {
		case 'S':
			sg = 1;
			break;
		case 'T':
			if (parse_ulong(optarg, MAX_TRACE, &val))
				usage(argv[0]);
			ntrace = val;
			break;
		case 'l':
			label = optarg;
			break;
		case 'r':
			if (parse_ulong(optarg, MAX_ROUNDS, &val))
				usage(argv[0]);
			rounds = val;
			break;
		default:
			usage(argv[0]);
		}
	}
	if (optind < argc) {
		if (argc - optind > MAX_SIZES)
			usage(argv[0]);
		for (nsizes = 0; optind < argc; optind++) {
			val = parse_size(argv[optind]);
			if (!val || val * 1024 % sysconf(_SC_PAGESIZE))
				usage(argv[0]);
			sizes[nsizes++] = val;
		}
	}
	if (!label || !*label || strchr(label, ' ')) {
		if (label || uname(&uts) < 0)
			usage(argv[0]);
		label = strdup(uts.release);
	}

	nheaps = find_heaps(heaps, MAX_HEAPS);
	if (ntrace) {
		for (s = 0; s < nsizes; s++)
			trace_loop(heaps, nheaps, sizes[s] * 1024, ntrace);
		return 0;
	}
	if (sg) {
		drm_fd = open(VGEM_DEV, O_RDWR);
		drm_err = drm_fd < 0 ? errno : 0;
		for (s = 0; s < nsizes; s++)
			for (i = 0; i < nheaps; i++) {
				if (drm_fd >= 0) {
					sg_entries(drm_fd, heaps[i],
						   sizes[s] * 1024);
					continue;
				}
				printf("@@ SG %s %s %lu skipped %s\n", label,
				       heaps[i], sizes[s], errno_name(drm_err));
			}
		return 0;
	}
	printf("# dma-heap-bench: %s, %d rounds after a warm-up, page %ld, heaps:",
	       label, rounds, sysconf(_SC_PAGESIZE));
	for (i = 0; i < nheaps; i++)
		printf(" %s", heaps[i]);
	printf("%s\n", nheaps ? "" : " none");

	for (s = 0; s < nsizes; s++) {
		size_t len = sizes[s] * 1024;

		bench_memset(len);
		bench_kzero(len);
		bench_udmabuf(len);
		for (i = 0; i < nheaps; i++)
			bench_heap(heaps[i], len);
	}
	return 0;
}
