// SPDX-License-Identifier: GPL-2.0
/*
 * dma-heap-info: list the DMA-BUF heaps with their properties and
 * statistics, one line a heap, the way lsblk lists disks.
 *
 *   dma-heap-info [-b]
 *   dma-heap-info --load FILE [--heap NAME] [--check]
 *
 * Reads /dev/dma_heap for the heaps and /sys/kernel/dma_heap/<heap>/ for
 * what each is (Documentation/ABI/testing/sysfs-kernel-dma-heap).  Sizes
 * are shown in K, M and G unless -b asks for bytes; "-" marks a file the
 * heap does not have (size for a heap bounded only by the system's memory,
 * pool for a heap without a pool).  Exits 1 when a heap has no sysfs
 * directory, 2 on bad usage.
 *
 * --load reads FILE (a file or a block device) into a new buffer of heap
 * NAME (default system) with DMA_HEAP_IOCTL_RW_FILE: direct I/O into the
 * buffer's pages, nothing through the page cache.  The buffer is the
 * file's size rounded up to a page, and so is the length asked for: the
 * read stops at the end of the file (a call that a signal ends early is
 * made again from where it stopped).  It prints the bytes loaded and the
 * time taken; --check then reads the file with read() and compares.  Exits
 * 1 when the load fails or the bytes differ.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <linux/fs.h>

#include "dma-heap-util.h"

/* More than the tests' MAX_HEAPS: a lister for any system. */
#define MAX_LISTED	64

static int bytes_mode;

/* A size for a column: bytes, or K/M/G with one decimal where it helps. */
static void fmt_size(const char *heap, const char *file, char *out,
		     size_t len)
{
	static const char units[] = "BKMGT";
	unsigned long long v;
	char buf[64];
	double d;
	int u = 0;

	if (heap_file(heap, file, buf, sizeof(buf))) {
		snprintf(out, len, "-");
		return;
	}
	v = strtoull(buf, NULL, 10);
	if (bytes_mode) {
		snprintf(out, len, "%llu", v);
		return;
	}
	d = v;
	while (d >= 1024 && u < 4) {
		d /= 1024;
		u++;
	}
	if (u == 0 || d >= 100 || d == (unsigned long long)d)
		snprintf(out, len, "%.0f%c", d, units[u]);
	else
		snprintf(out, len, "%.1f%c", d, units[u]);
}

static void fmt_text(const char *heap, const char *file, char *out,
		     size_t len)
{
	if (heap_file(heap, file, out, len))
		snprintf(out, len, "-");
}

/* The columns after NAME: a file of the heap's directory each. */
static const struct {
	const char *head;
	const char *file;
	int width;
	int is_size;
} cols[] = {
	{ "KIND", "kind", -13, 0 },
	{ "CONTIG", "contiguous", 6, 0 },
	{ "MAXSEG", "max_contiguous", 8, 1 },
	{ "CACHED", "cached", 6, 0 },
	{ "ZEROED", "zeroed", 6, 0 },
	{ "SIZE", "size", 8, 1 },
	{ "USED", "bytes", 8, 1 },
	{ "BUFFERS", "buffers", 7, 0 },
	{ "PEAK", "peak_bytes", 8, 1 },
	{ "POOL", "pool_bytes", 8, 1 },
};

static const char *const failures[] = { "einval", "enomem", "eintr", "other" };

/* Whether the buffer's first @len bytes are the file's, read with read(). */
static int check_load(int file, int buf, size_t len)
{
	size_t off = 0;
	char *p, *q;
	ssize_t r;
	int same;

	p = mmap(NULL, len, PROT_READ, MAP_SHARED, buf, 0);
	q = malloc(len);
	if (p == MAP_FAILED || !q) {
		perror("check");
		exit(1);
	}
	while (off < len && (r = pread(file, q + off, len - off, off)) > 0)
		off += r;
	same = off == len && !memcmp(p, q, len);
	munmap(p, len);
	free(q);
	return same;
}

static int load(const char *path, const char *heap, int check)
{
	struct dma_heap_rw_file_data d = { 0 };
	struct timespec t0, t1;
	uint64_t size, len, done = 0;
	int file, heap_fd, buf;
	struct stat st;
	double ms;

	file = open(path, O_RDONLY | O_CLOEXEC);
	if (file < 0 || fstat(file, &st)) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return 1;
	}
	size = st.st_size;
	if (S_ISBLK(st.st_mode) && ioctl(file, BLKGETSIZE64, &size)) {
		fprintf(stderr, "%s: BLKGETSIZE64: %s\n", path, strerror(errno));
		return 1;
	}
	len = (size + page_size() - 1) / page_size() * page_size();
	heap_fd = heap_open(heap);
	if (heap_fd < 0) {
		fprintf(stderr, "%s: %s\n", heap, strerror(errno));
		return 1;
	}
	buf = heap_alloc(heap_fd, len ? len : page_size());
	if (buf < 0) {
		fprintf(stderr, "%s: %llu bytes: %s\n", heap,
			(unsigned long long)len, strerror(-buf));
		return 1;
	}
	d.dmabuf_fd = buf;
	d.file_fd = file;
	d.direction = DMA_HEAP_RW_FILE_READ;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* A signal may end a call early, with a count: go on from there. */
	while (done < size) {
		d.file_offset = d.buf_offset = done;
		d.len = len - done;
		if (ioctl(heap_fd, DMA_HEAP_IOCTL_RW_FILE, &d)) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "%s: DMA_HEAP_IOCTL_RW_FILE: %s\n", path,
				strerror(errno));
			return 1;
		}
		if (!d.done)
			break;
		done += d.done;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
	printf("loaded %llu bytes of %s into a %llu-byte buffer of %s in %.1f ms (%.0f MiB/s)\n",
	       (unsigned long long)done, path, (unsigned long long)len, heap,
	       ms, ms > 0 ? done / 1048576.0 / (ms / 1e3) : 0);
	if (done != size) {
		fprintf(stderr, "%s: %llu bytes of %llu\n", path,
			(unsigned long long)done, (unsigned long long)size);
		return 1;
	}
	if (check && size) {
		if (!check_load(file, buf, size)) {
			fprintf(stderr, "%s: the buffer differs from read()\n",
				path);
			return 1;
		}
		printf("the buffer holds what read() gives\n");
	}
	close(buf);
	close(heap_fd);
	close(file);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "load", required_argument, NULL, 'l' },
		{ "heap", required_argument, NULL, 'H' },
		{ "check", no_argument, NULL, 'c' },
		{ 0 }
	};
	char *names[MAX_LISTED], val[64], file[32];
	const char *load_path = NULL, *heap = "system";
	int n, i, c, opt, rc = 0, check = 0;

	while ((opt = getopt_long(argc, argv, "bl:H:c", opts, NULL)) != -1) {
		switch (opt) {
		case 'b':
			bytes_mode = 1;
			break;
		case 'l':
			load_path = optarg;
			break;
		case 'H':
			heap = optarg;
			break;
		case 'c':
			check = 1;
			break;
		default:
			fprintf(stderr, "usage: %s [-b]\n"
				"       %s --load FILE [--heap NAME] [--check]\n",
				argv[0], argv[0]);
			return 2;
		}
	}
	if (load_path)
		return load(load_path, heap, check);

	n = list_dir(DMA_HEAP_DIR, names, MAX_LISTED);
	if (!n && access(DMA_HEAP_DIR, R_OK | X_OK)) {
		fprintf(stderr, "%s: %s\n", DMA_HEAP_DIR, strerror(errno));
		return 1;
	}

	printf("%-20s", "NAME");
	for (c = 0; c < (int)(sizeof(cols) / sizeof(cols[0])); c++)
		printf(" %*s", cols[c].width, cols[c].head);
	printf(" FAILED(EINVAL/ENOMEM/EINTR/OTHER)\n");
	for (i = 0; i < n; i++) {
		const char *h = names[i];

		if (heap_file(h, "kind", val, sizeof(val))) {
			fprintf(stderr, "%s: no %s/%s/kind\n", h, HEAP_SYSFS,
				h);
			rc = 1;
			continue;
		}
		printf("%-20s", h);
		for (c = 0; c < (int)(sizeof(cols) / sizeof(cols[0])); c++) {
			if (cols[c].is_size)
				fmt_size(h, cols[c].file, val, sizeof(val));
			else
				fmt_text(h, cols[c].file, val, sizeof(val));
			printf(" %*s", cols[c].width, val);
		}
		for (c = 0; c < 4; c++) {
			snprintf(file, sizeof(file), "failures/%s", failures[c]);
			fmt_text(h, file, val, sizeof(val));
			printf("%s%s", c ? "/" : " ", val);
		}
		printf("\n");
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	return rc;
}
