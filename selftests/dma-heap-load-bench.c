// SPDX-License-Identifier: GPL-2.0
/*
 * dma-heap-load-bench: how long loading a file into a heap buffer takes,
 * four ways, side by side in one boot (selftests/run-bench-load.sh).
 *
 *   dma-heap-load-bench [-r rounds] [-H heap] DIR SIZE_MIB...
 *
 * For each size, a file of that many MiB is written in DIR (synced), and a
 * buffer of the heap (default system) of the same size allocated and
 * mapped.  Then, cold (page cache dropped before each round) and warm (the
 * file read through the page cache first), each way is timed:
 *   read     read() into the buffer's mapping
 *   copy     read() into anonymous memory, then memcpy() into the mapping
 *   odirect  O_DIRECT read() into anonymous memory: what the device gives,
 *            with no copy and no buffer (the limit)
 *   rwfile   DMA_HEAP_IOCTL_RW_FILE into the buffer
 * The CPU's writes to the mapping are bracketed by DMA_BUF_IOCTL_SYNC.
 * Each line is "@@ LOAD SIZE_MIB cold|warm WAY median_ms min_ms
 * cached_kib", cached_kib the median growth of Cached in /proc/meminfo over
 * one load.  The buffer is checked after every rwfile load.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/dma-buf.h>
#include <linux/dma-heap.h>

#define MIB		(1UL << 20)
#define MAX_ROUNDS	16

enum way { W_READ, W_COPY, W_ODIRECT, W_RWFILE, NR_WAYS };
static const char *const way_name[NR_WAYS] = {
	"read", "copy", "odirect", "rwfile",
};

static void die(const char *what)
{
	perror(what);
	printf("@@ LOAD-FAILED %s\n", what);
	exit(1);
}

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static long cached_kib(void)
{
	char line[128];
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Cached: %ld kB", &v) == 1)
			break;
	if (f)
		fclose(f);
	return v;
}

static void drop_caches(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);

	sync();
	if (fd < 0 || write(fd, "3", 1) != 1)
		die("drop_caches");
	close(fd);
}

static void pattern(uint32_t *w, size_t len, size_t from)
{
	size_t i;

	for (i = 0; i < len / 4; i++)
		w[i] = (uint32_t)(i + from / 4) * 2654435761u;
}

static void read_all(int fd, char *p, size_t len)
{
	size_t off = 0;
	ssize_t r;

	while (off < len) {
		r = read(fd, p + off, len - off);
		if (r <= 0)
			die("read");
		off += r;
	}
}

static void sync_buf(int buf, uint64_t flags)
{
	struct dma_buf_sync s = { .flags = flags };

	if (ioctl(buf, DMA_BUF_IOCTL_SYNC, &s))
		die("DMA_BUF_IOCTL_SYNC");
}

/* One load of @path, @len bytes, the way @w; returns the milliseconds. */
static double load(enum way w, const char *path, size_t len, int heap,
		   int buf, char *map, char *anon)
{
	struct dma_heap_rw_file_data d = { 0 };
	double t0, t1;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | (w == W_ODIRECT ? O_DIRECT : 0));
	if (fd < 0)
		die(path);
	t0 = now_ms();
	switch (w) {
	case W_READ:
		sync_buf(buf, DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE);
		read_all(fd, map, len);
		sync_buf(buf, DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE);
		break;
	case W_COPY:
		read_all(fd, anon, len);
		sync_buf(buf, DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE);
		memcpy(map, anon, len);
		sync_buf(buf, DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE);
		break;
	case W_ODIRECT:
		read_all(fd, anon, len);
		break;
	default:
		d.len = len;
		d.dmabuf_fd = buf;
		d.file_fd = fd;
		d.direction = DMA_HEAP_RW_FILE_READ;
		if (ioctl(heap, DMA_HEAP_IOCTL_RW_FILE, &d) || d.done != len)
			die("DMA_HEAP_IOCTL_RW_FILE");
		break;
	}
	t1 = now_ms();
	close(fd);
	return t1 - t0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	const char *heap_name = "system";
	int rounds = 3, opt, i, heap, buf, fd, w, warm, r;
	double ms[MAX_ROUNDS];
	long kib[MAX_ROUNDS], before;
	char path[256], hpath[128];
	char *map, *anon;
	size_t len, off;
	uint32_t *chunk;

	while ((opt = getopt(argc, argv, "r:H:")) != -1) {
		if (opt == 'r')
			rounds = atoi(optarg);
		else if (opt == 'H')
			heap_name = optarg;
		else
			break;
	}
	if (optind + 2 > argc || rounds < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "usage: %s [-r rounds] [-H heap] DIR SIZE_MIB...\n",
			argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(hpath, sizeof(hpath), "/dev/dma_heap/%s", heap_name);
	heap = open(hpath, O_RDONLY | O_CLOEXEC);
	if (heap < 0)
		die(hpath);
	chunk = malloc(8 * MIB);
	if (!chunk)
		die("malloc");
	for (i = optind + 1; i < argc; i++) {
		struct dma_heap_allocation_data a = { .fd_flags = O_RDWR | O_CLOEXEC };

		len = strtoul(argv[i], NULL, 0) * MIB;
		snprintf(path, sizeof(path), "%s/load-%s", argv[optind], argv[i]);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0)
			die(path);
		for (off = 0; off < len; off += 8 * MIB) {
			pattern(chunk, 8 * MIB, off);
			if (write(fd, chunk, 8 * MIB) != (ssize_t)(8 * MIB))
				die("write");
		}
		if (fsync(fd))
			die("fsync");
		close(fd);
		a.len = len;
		if (ioctl(heap, DMA_HEAP_IOCTL_ALLOC, &a))
			die("DMA_HEAP_IOCTL_ALLOC");
		buf = a.fd;
		map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, buf, 0);
		anon = mmap(NULL, len, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (map == MAP_FAILED || anon == MAP_FAILED)
			die("mmap");
		for (warm = 0; warm < 2; warm++) {
			for (w = 0; w < NR_WAYS; w++) {
				for (r = 0; r < rounds; r++) {
					drop_caches();
					if (warm)
						load(W_READ, path, len, heap, buf,
						     map, anon);
					if (w == W_RWFILE) {
						/* So that the check sees this load. */
						memset(map, 0, 4096);
						memset(map + len - 4096, 0, 4096);
					}
					before = cached_kib();
					ms[r] = load(w, path, len, heap, buf, map,
						     anon);
					kib[r] = cached_kib() - before;
					if (w != W_RWFILE)
						continue;
					pattern(chunk, 4096, len - 4096);
					if (((uint32_t *)map)[1] != 2654435761u ||
					    memcmp(map + len - 4096, chunk, 4096))
						die("rwfile: the buffer is not the file");
				}
				qsort(ms, rounds, sizeof(ms[0]), cmp_double);
				qsort(kib, rounds, sizeof(kib[0]), cmp_long);
				printf("@@ LOAD %s %s %s %.1f %.1f %ld\n", argv[i],
				       warm ? "warm" : "cold", way_name[w],
				       ms[rounds / 2], ms[0], kib[rounds / 2]);
			}
		}
		munmap(map, len);
		munmap(anon, len);
		close(buf);
		unlink(path);
	}
	printf("@@ LOAD-DONE\n");
	return 0;
}
