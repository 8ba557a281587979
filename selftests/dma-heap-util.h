/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the DMA-BUF heap kselftests and the benchmark: find
 * the heaps in /dev/dma_heap, allocate, sync, count open fds and, for the
 * kselftests, register one kselftest_harness variant per heap at run time.
 *
 * The variant registration is there only when kselftest_harness.h was
 * included first.
 */
#ifndef DMA_HEAP_UTIL_H
#define DMA_HEAP_UTIL_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <drm/drm.h>
#include <linux/dma-buf.h>
#include <linux/dma-heap.h>

#define DMA_HEAP_DIR	"/dev/dma_heap"
#define MAX_HEAPS	16
#define ONE_MIB		(1024UL * 1024)

static inline size_t page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

static inline int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

/*
 * The names of the entries of directory @dir, sorted; returns how many, 0
 * when it cannot be read.  The names are allocated and live as long as
 * the process.
 */
static inline int list_dir(const char *dir, char **names, int max)
{
	struct dirent *de;
	DIR *d;
	int n = 0;

	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max) {
		if (de->d_name[0] == '.')
			continue;
		names[n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_str);
	return n;
}

/* The names of the heaps in /dev/dma_heap, sorted; returns how many. */
static inline int find_heaps(char **names, int max)
{
	return list_dir(DMA_HEAP_DIR, names, max);
}

static inline int heap_open(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", DMA_HEAP_DIR, name);
	return open(path, O_RDONLY | O_CLOEXEC);
}

/* DMA_HEAP_IOCTL_ALLOC; returns the dma-buf fd, or -errno. */
static inline int heap_alloc_flags(int heap_fd, uint64_t len, uint32_t fd_flags,
			    uint64_t heap_flags)
{
	struct dma_heap_allocation_data data = {
		.len = len,
		.fd_flags = fd_flags,
		.heap_flags = heap_flags,
	};

	if (ioctl(heap_fd, DMA_HEAP_IOCTL_ALLOC, &data) < 0)
		return -errno;
	return (int)data.fd;
}

static inline int heap_alloc(int heap_fd, uint64_t len)
{
	return heap_alloc_flags(heap_fd, len, O_RDWR | O_CLOEXEC, 0);
}

/* DMA_BUF_IOCTL_SYNC; returns 0 or -errno. */
static inline int buf_sync(int buf_fd, uint64_t flags)
{
	struct dma_buf_sync sync = { .flags = flags };

	if (ioctl(buf_fd, DMA_BUF_IOCTL_SYNC, &sync) < 0)
		return -errno;
	return 0;
}

/* How many fds the process has open (not counting the directory's own). */
static inline int count_fds(void)
{
	struct dirent *de;
	DIR *d;
	int n = 0;

	d = opendir("/proc/self/fd");
	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;
}

/* A field of /proc/meminfo in KiB, or -1. */
static inline long meminfo_kib(const char *field)
{
	char line[256];
	size_t len = strlen(field);
	long val = -1;
	FILE *f;

	f = fopen("/proc/meminfo", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, field, len) && line[len] == ':') {
			val = strtol(line + len + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return val;
}

/*
 * MemAvailable after asking the kernel to drop its clean caches, so that
 * page cache, dentries and inodes freed meanwhile do not blur the reading.
 */
static inline long mem_available_kib(void)
{
	FILE *f = fopen("/proc/sys/vm/drop_caches", "w");

	if (f) {
		fputs("3\n", f);
		fclose(f);
	}
	return meminfo_kib("MemAvailable");
}

/* A number at the start of a file, or -1. */
static inline long read_long(const char *path)
{
	long val = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &val) != 1)
		val = -1;
	fclose(f);
	return val;
}

/* vgem, the DRM driver without hardware that imports dma-bufs. */
static inline int is_vgem(int fd)
{
	char name[5] = {};
	struct drm_version version = {
		.name_len = 4,
		.name = name,
	};

	if (ioctl(fd, DRM_IOCTL_VERSION, &version) || version.name_len != 4)
		return 0;
	return !strcmp(name, "vgem");
}

static inline int open_vgem(void)
{
	char path[64];
	int i, fd;

	for (i = 0; i < 16; i++) {
		snprintf(path, sizeof(path), "/dev/dri/card%d", i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (is_vgem(fd))
			return fd;
		close(fd);
	}
	return -1;
}

/*
 * The scatterlist entries of a dma-buf as an importer gets them: the
 * orig_nents of the sg_table that dma_buf_map_attachment() returns when
 * vgem imports it, which the kprobe event dmaheap_sg records:
 *
 *   r:dmaheap_sg dma_buf_map_attachment nents=+8($retval):u32
 *     orig=+12($retval):u32
 *
 * set up in tracefs by sg_probe_setup().  Returns the entries, or -errno.
 */
#define TRACEFS		"/sys/kernel/tracing"
#define TRACE_FILE	TRACEFS "/trace"

static inline int sg_probe_setup(void)
{
	static const char ev[] = "r:dmaheap_sg dma_buf_map_attachment "
				 "nents=+8($retval):u32 orig=+12($retval):u32\n";
	int fd, err = 0;

	if (!access(TRACEFS "/events/kprobes/dmaheap_sg/enable", W_OK))
		goto enable;
	fd = open(TRACEFS "/kprobe_events", O_WRONLY | O_APPEND);
	if (fd < 0)
		return -errno;
	if (write(fd, ev, sizeof(ev) - 1) != (ssize_t)sizeof(ev) - 1)
		err = -errno;
	close(fd);
	if (err)
		return err;
enable:
	fd = open(TRACEFS "/events/kprobes/dmaheap_sg/enable", O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, "1", 1) != 1)
		err = -errno;
	close(fd);
	return err;
}

/* The orig_nents the last dmaheap_sg event in the trace recorded, or -errno. */
static inline long last_sg_entries(void)
{
	static char buf[1 << 16];
	long entries = -ENOENT;
	size_t got = 0;
	ssize_t n;
	char *p;
	int fd;

	fd = open(TRACE_FILE, O_RDONLY);
	if (fd < 0)
		return -errno;
	while (got < sizeof(buf) - 1 &&
	       (n = read(fd, buf + got, sizeof(buf) - 1 - got)) > 0)
		got += n;
	close(fd);
	buf[got] = '\0';
	for (p = buf; (p = strstr(p, "dmaheap_sg:")); p++) {
		char *o = strstr(p, " orig=");
		char *eol = strchr(p, '\n');

		if (o && (!eol || o < eol))
			entries = strtol(o + 6, NULL, 0);
	}
	return entries;
}

/* Import @buf_fd into vgem (@drm_fd) and count its entries; -errno. */
static inline long dmabuf_sg_entries(int drm_fd, int buf_fd)
{
	struct drm_prime_handle prime = { .fd = buf_fd };
	struct drm_gem_close gem_close = { 0 };
	long entries;
	int fd;

	/* Writing nothing to the trace file with O_TRUNC clears it. */
	fd = open(TRACE_FILE, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return -errno;
	close(fd);
	if (ioctl(drm_fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &prime))
		return -errno;
	entries = last_sg_entries();
	gem_close.handle = prime.handle;
	ioctl(drm_fd, DRM_IOCTL_GEM_CLOSE, &gem_close);
	return entries;
}

/* A heap's statistics and properties (sysfs-kernel-dma-heap). */
#define HEAP_SYSFS	"/sys/kernel/dma_heap"

/*
 * The first line of HEAP_SYSFS/<heap>/<file> into buf, without its newline:
 * 0, or -1 when it cannot be read.
 */
static inline int heap_file(const char *heap, const char *file, char *buf,
			    size_t len)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), HEAP_SYSFS "/%s/%s", heap, file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* A number from /sys/kernel/dma_heap/<heap>/<file>, or -1 without it. */
static inline long heap_stat(const char *heap, const char *file)
{
	char path[256];

	snprintf(path, sizeof(path), HEAP_SYSFS "/%s/%s", heap, file);
	return read_long(path);
}

/*
 * What the heaps keep in pools (the system heap's zeroed and freed
 * chunks), in KiB: /sys/kernel/dma_heap/total_pools_kb, 0 without it.
 */
#define TOTAL_POOLS_KB	"/sys/kernel/dma_heap/total_pools_kb"

static inline long total_pools_kib(void)
{
	long kb = read_long(TOTAL_POOLS_KB);

	return kb < 0 ? 0 : kb;
}

/*
 * The pages that a debugfs file of our heaps says are waiting to be zeroed
 * or being zeroed (lines with "dirty pages: N" and "zeroing pages: N":
 * dma_heap_system_pool, dma_heap_cma_cache), or -1 without the file
 * (upstream's kernel).
 */
static inline long unzeroed_pages(const char *path)
{
	char line[256], *p;
	long total = 0, v;
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		p = strstr(line, "dirty pages: ");
		if (p && sscanf(p, "dirty pages: %ld", &v) == 1)
			total += v;
		p = strstr(line, "zeroing pages: ");
		if (p && sscanf(p, "zeroing pages: %ld", &v) == 1)
			total += v;
	}
	fclose(f);
	return total;
}

#define CMA_DEBUGFS	"/sys/kernel/debug/cma"
#define MAX_CMA_AREAS	16
#define CMA_NAME_LEN	64

/*
 * A number of the CMA area @area's debugfs directory (CONFIG_CMA_DEBUGFS):
 * "used" and "count" are in pages.  -1 when there is no such file.
 */
static inline long cma_area_read(const char *area, const char *what)
{
	char path[256];

	snprintf(path, sizeof(path), CMA_DEBUGFS "/%s/%s", area, what);
	return read_long(path);
}

/* The names of the CMA areas in the CMA debugfs, sorted; returns how many. */
static inline int find_cma_areas(char **names, int max)
{
	return list_dir(CMA_DEBUGFS, names, max);
}

/*
 * The CMA area that heap @heap (open as @heap_fd) allocates from, copied to
 * @area: the area of the same name if there is one, else the one area
 * whose used pages go up while the heap holds a one-page buffer (the
 * default_cma_region heap).  Returns 0, or -1 for a heap on no CMA area
 * (the system heap) or with no CMA debugfs to tell.
 */
static inline int heap_cma_area(int heap_fd, const char *heap, char *area,
				size_t size)
{
	char *names[MAX_CMA_AREAS];
	long used[MAX_CMA_AREAS];
	int i, n, fd, found = -1;

	if (cma_area_read(heap, "used") >= 0) {
		snprintf(area, size, "%s", heap);
		return 0;
	}
	n = find_cma_areas(names, MAX_CMA_AREAS);
	for (i = 0; i < n; i++)
		used[i] = cma_area_read(names[i], "used");
	fd = heap_alloc(heap_fd, page_size());
	for (i = 0; fd >= 0 && i < n; i++) {
		if (cma_area_read(names[i], "used") > used[i]) {
			found = found < 0 ? i : -2;
		}
	}
	if (fd >= 0)
		close(fd);
	if (found >= 0)
		snprintf(area, size, "%s", names[found]);
	for (i = 0; i < n; i++)
		free(names[i]);
	return found >= 0 ? 0 : -1;
}

/*
 * Free pages, the per-cpu page lists included, summed over the zones of
 * /proc/zoneinfo, after /proc/sys/vm/stat_refresh has folded the per-cpu
 * counter deltas into the zone counters.  Pages freed into a per-cpu list
 * leave NR_FREE_PAGES lower until the list is drained; counting the lists
 * takes that noise out.  -1 without /proc/zoneinfo.
 */
static inline long free_pages_with_pcp(void)
{
	char line[256];
	long total = 0, v;
	FILE *f;

	f = fopen("/proc/sys/vm/stat_refresh", "w");
	if (f) {
		fputs("1\n", f);
		fclose(f);
	}
	f = fopen("/proc/zoneinfo", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, " pages free %ld", &v) == 1 ||
		    sscanf(line, " count: %ld", &v) == 1)
			total += v;
	}
	fclose(f);
	return total;
}

/*
 * The free pages with the pages the heaps keep in pools: freeing a system
 * heap buffer moves its chunks to the pool, not to the free lists, and the
 * pool's worker zeroing them moves nothing out of the pool.
 */
static inline long free_or_pooled_pages(void)
{
	long free = free_pages_with_pcp();

	if (free < 0)
		return -1;
	return free + total_pools_kib() * 1024 / (long)page_size();
}

/*
 * fail-nth (Documentation/fault-injection/fault-injection.rst): writing N
 * to /proc/thread-self/fail-nth fails the N-th fault-injection point that
 * the calling thread reaches (failslab, fail_page_alloc, ...); reading it
 * gives 0 once that failure was injected, the calls still to go if not.
 */
#define FAIL_NTH	"/proc/thread-self/fail-nth"

static inline int fail_nth_open(void)
{
	return open(FAIL_NTH, O_RDWR | O_CLOEXEC);
}

static inline int fail_nth_set(int fd, unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	return pwrite(fd, buf, len, 0) == len ? 0 : -1;
}

/*
 * Read back, then disarm: 1 when the armed failure was injected, 0 when
 * the task reached fewer injection points than armed, -1 on error.  No
 * allocation happens in either syscall, so none is counted.
 */
static inline int fail_nth_clear(int fd)
{
	char buf[16] = "";
	ssize_t r = pread(fd, buf, sizeof(buf) - 1, 0);

	if (r <= 0 || fail_nth_set(fd, 0))
		return -1;
	return strtoul(buf, NULL, 10) == 0;
}

/* How many mappings the process has (lines of /proc/self/maps). */
static inline int count_maps(void)
{
	char line[512];
	int n = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strchr(line, '\n'))
			n++;
	fclose(f);
	return n;
}

#ifdef __KSELFTEST_HARNESS_H
/*
 * Register one variant of @fixture per heap, named after the heap, with
 * @set_name storing the name in the variant's data (of @size bytes): every
 * heap, or with heap names as arguments (@argc, @argv), only those (the
 * swiotlb boot runs dma-heap-seed for the carveout heap alone).  With no
 * heap at all, or none of those named, one variant "no_heap" with a NULL
 * name is registered, so that every test fails in its setup instead of the
 * binary passing empty.
 */
static inline void register_heap_variants(struct __fixture_metadata *fixture,
				   size_t size,
				   void (*set_name)(void *data, const char *name),
				   int argc, char **argv)
{
	char *names[MAX_HEAPS];
	int i, j, n, kept = 0;

	n = find_heaps(names, MAX_HEAPS);
	for (i = 0; i < n; i++) {
		for (j = 1; j < argc && strcmp(argv[j], names[i]); j++)
			;
		if (argc <= 1 || j < argc)
			names[kept++] = names[i];
	}
	n = kept;
	for (i = 0; i < (n ? n : 1); i++) {
		struct __fixture_variant_metadata *v = calloc(1, sizeof(*v));
		void *data = calloc(1, size);

		if (!v || !data)
			abort();
		set_name(data, n ? names[i] : NULL);
		v->name = n ? names[i] : "no_heap";
		v->data = data;
		__register_fixture_variant(fixture, v);
	}
}

/* The main() of a test binary whose fixture has per-heap variants. */
#define HEAP_HARNESS_MAIN(fixture)					\
	static void set_variant_name(void *data, const char *name)	\
	{								\
		((FIXTURE_VARIANT(fixture) *)data)->heap = name;	\
	}								\
	static void __attribute__((constructor))			\
	__constructor_order_last(void)					\
	{								\
		if (!__constructor_order)				\
			__constructor_order = _CONSTRUCTOR_ORDER_BACKWARD; \
	}								\
	int main(int argc, char **argv)					\
	{								\
		setvbuf(stdout, NULL, _IOLBF, 0);			\
		register_heap_variants(&_##fixture##_fixture_object,	\
				       sizeof(FIXTURE_VARIANT(fixture)), \
				       set_variant_name, argc, argv);	\
		return test_harness_run(argc, argv);			\
	}

#endif /* __KSELFTEST_HARNESS_H */

/*
 * Whether len bytes at p are all zero; if not, *at (when at is not NULL) is
 * the offset of the first that is not.
 */
static inline int all_zero(const void *p, size_t len, size_t *at)
{
	const unsigned char *b = p;
	size_t i;

	if (!len || (!b[0] && !memcmp(b, b + 1, len - 1)))
		return 1;
	for (i = 0; !b[i]; i++)
		;
	if (at)
		*at = i;
	return 0;
}

#endif /* DMA_HEAP_UTIL_H */
