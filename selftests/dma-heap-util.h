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
 * The names of the heaps in /dev/dma_heap, sorted; returns how many.
 * The names are allocated and live as long as the process.
 */
static inline int find_heaps(char **names, int max)
{
	struct dirent *de;
	DIR *d;
	int n = 0;

	d = opendir(DMA_HEAP_DIR);
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

#ifdef __KSELFTEST_HARNESS_H
/*
 * Register one variant of @fixture per heap, named after the heap, with
 * @set_name storing the name in the variant's data (of @size bytes).  With
 * no heap at all, one variant "no_heap" with a NULL name is registered, so
 * that every test fails in its setup instead of the binary passing empty.
 */
static inline void register_heap_variants(struct __fixture_metadata *fixture,
				   size_t size,
				   void (*set_name)(void *data, const char *name))
{
	char *names[MAX_HEAPS];
	int i, n;

	n = find_heaps(names, MAX_HEAPS);
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
				       set_variant_name);		\
		return test_harness_run(argc, argv);			\
	}

#endif /* __KSELFTEST_HARNESS_H */

#endif /* DMA_HEAP_UTIL_H */
