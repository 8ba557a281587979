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
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HEAP_DEV	"/dev/dma_heap"
#define HEAP_SYSFS	"/sys/kernel/dma_heap"
#define MAX_HEAPS	64

static int bytes_mode;

/* @file of @heap's sysfs directory, newline stripped; 0, or -1 if absent. */
static int heap_file(const char *heap, const char *file, char *buf,
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

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

int main(int argc, char **argv)
{
	char kind[32], contig[8], maxc[24], cached[8], zeroed[8], size[24];
	char bytes[24], buffers[24], peak[24], pool[24];
	char einval[24], enomem[24], eintr[24], other[24];
	char *names[MAX_HEAPS];
	struct dirent *de;
	int n = 0, i, opt, rc = 0;
	DIR *d;

	while ((opt = getopt(argc, argv, "b")) != -1) {
		if (opt != 'b') {
			fprintf(stderr, "usage: %s [-b]\n", argv[0]);
			return 2;
		}
		bytes_mode = 1;
	}

	d = opendir(HEAP_DEV);
	if (!d) {
		fprintf(stderr, "%s: %s\n", HEAP_DEV, strerror(errno));
		return 1;
	}
	while ((de = readdir(d)) && n < MAX_HEAPS)
		if (de->d_name[0] != '.')
			names[n++] = strdup(de->d_name);
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_name);

	printf("%-20s %-13s %6s %8s %6s %6s %8s %8s %7s %8s %8s %s\n",
	       "NAME", "KIND", "CONTIG", "MAXSEG", "CACHED", "ZEROED",
	       "SIZE", "USED", "BUFFERS", "PEAK", "POOL",
	       "FAILED(EINVAL/ENOMEM/EINTR/OTHER)");
	for (i = 0; i < n; i++) {
		const char *h = names[i];

		if (heap_file(h, "kind", kind, sizeof(kind))) {
			fprintf(stderr, "%s: no %s/%s/kind\n", h, HEAP_SYSFS,
				h);
			rc = 1;
			continue;
		}
		fmt_text(h, "contiguous", contig, sizeof(contig));
		fmt_size(h, "max_contiguous", maxc, sizeof(maxc));
		fmt_text(h, "cached", cached, sizeof(cached));
		fmt_text(h, "zeroed", zeroed, sizeof(zeroed));
		fmt_size(h, "size", size, sizeof(size));
		fmt_size(h, "bytes", bytes, sizeof(bytes));
		fmt_text(h, "buffers", buffers, sizeof(buffers));
		fmt_size(h, "peak_bytes", peak, sizeof(peak));
		fmt_size(h, "pool_bytes", pool, sizeof(pool));
		fmt_text(h, "failures/einval", einval, sizeof(einval));
		fmt_text(h, "failures/enomem", enomem, sizeof(enomem));
		fmt_text(h, "failures/eintr", eintr, sizeof(eintr));
		fmt_text(h, "failures/other", other, sizeof(other));
		printf("%-20s %-13s %6s %8s %6s %6s %8s %8s %7s %8s %8s %s/%s/%s/%s\n",
		       h, kind, contig, maxc, cached, zeroed, size, bytes,
		       buffers, peak, pool, einval, enomem, eintr, other);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	return rc;
}
