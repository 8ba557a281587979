// SPDX-License-Identifier: GPL-2.0
/*
 * dma-heap-info: list the DMA-BUF heaps with their properties and
 * statistics, one line a heap, the way lsblk lists disks.
 *
 *   dma-heap-info [-b]
 *
 * Reads /dev/dma_heap for the heaps and /sys/kernel/dma_heap/<heap>/ for
 * what each is (Documentation/ABI/testing/sysfs-kernel-dma-heap).  Sizes
 * are shown in K, M and G unless -b asks for bytes; "-" marks a file the
 * heap does not have (size for a heap bounded only by the system's memory,
 * pool for a heap without a pool).  Exits 1 when a heap has no sysfs
 * directory, 2 on bad usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

int main(int argc, char **argv)
{
	char *names[MAX_LISTED], val[64], file[32];
	int n, i, c, opt, rc = 0;

	while ((opt = getopt(argc, argv, "b")) != -1) {
		if (opt != 'b') {
			fprintf(stderr, "usage: %s [-b]\n", argv[0]);
			return 2;
		}
		bytes_mode = 1;
	}

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
