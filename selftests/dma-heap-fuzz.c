// SPDX-License-Identifier: GPL-2.0
/*
 * A seeded, bounded fuzzer for DMA-BUF heaps, typed like a syzkaller
 * program: every heap in /dev/dma_heap and every dma-buf fd it returns,
 * through allocation with random lengths and flags, raw ioctls of random
 * numbers and sizes, DMA_BUF_IOCTL_SYNC with random flags,
 * DMA_BUF_SET_NAME, sync_file export and import, llseek, poll, mmap,
 * mremap and munmap with random offsets, lengths and protections, import
 * into vgem and export back, close and dup racing in two threads, fds
 * passed over a socket to another process and back, and fail-nth before
 * an operation.
 *
 *   dma-heap-fuzz [-s seed] [-n iterations] [-r] [-v]
 *
 * -r runs only the race's bookkeeping in each forced order of its two
 * threads (no heap needed), which every run does first.
 *
 * The program (each operation and its arguments) is a function of the seed
 * alone, so that -s and -n reproduce a run; the racing threads' interleaving
 * is not.  Each result is checked against what the ABI allows for its
 * arguments, each touched page of a mapping must read back what was written
 * and a page past the buffer's end must fault with SIGBUS; at the end every
 * fd is closed and every heap's buffers and bytes in sysfs must be back
 * where they started.  The kernel's side (KASAN, lockdep, kmemleak, a
 * WARN with panic_on_warn) is the boot's to judge.
 *
 * Coverage is counted as the distinct (operation, result) pairs seen.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <linux/fs.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "kselftest.h"
#include "dma-heap-util.h"

#define DEFAULT_SEED	1
#define DEFAULT_ITERS	5000

#define MAX_RES		48	/* fds the program holds */
#define MAX_MAPS	24
#define MAX_ERRNO	134
#define BYTES_CAP	(192 * ONE_MIB)	/* allocated bytes before closing first */
#define DMA_BUF_NAME_LEN 32

/* ---- the program's randomness ---------------------------------------- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	/* splitmix64 */
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

static bool one_in(unsigned int n)
{
	return below(n) == 0;
}

/* ---- what the program holds ------------------------------------------ */

enum kind { HEAP_FD, BUF_FD };

struct res {
	int fd;
	enum kind kind;
	int heap;		/* index in heaps[] */
	int accmode;		/* the file's O_ACCMODE bits */
	uint64_t len;		/* a buffer's size */
	ino_t ino;		/* a buffer's identity, shared by its fds */
};

struct map {
	char *addr;
	size_t len;		/* the mapping's length */
	size_t buf_len;		/* the buffer's size */
	off_t off;		/* the mapping's offset in the buffer */
	int prot;
};

static struct res res[MAX_RES];
static int nres;
static struct map maps[MAX_MAPS];
static int nmaps;

static char *heaps[MAX_HEAPS];
static int heap_fds[MAX_HEAPS];
static long heap_max[MAX_HEAPS];	/* max_contiguous of contiguous heaps */
static uint64_t heap_granule[MAX_HEAPS];	/* what a size is rounded to */
static int nheaps;
static uint64_t held_bytes;

static int vgem_fd = -1, sock_fd = -1, fail_fd = -1;
static size_t pgsz;

/* ---- results --------------------------------------------------------- */

enum op {
	OP_ALLOC, OP_IOCTL, OP_SYNC, OP_SET_NAME, OP_SYNC_FILE, OP_LLSEEK,
	OP_POLL, OP_MMAP, OP_MREMAP, OP_MUNMAP, OP_VGEM, OP_RACE, OP_SEND,
	OP_DUP, OP_CLOSE, OP_OPEN, OP_RW, NR_OPS
};

static const char *const op_names[NR_OPS] = {
	"alloc", "ioctl", "sync", "set_name", "sync_file", "llseek", "poll",
	"mmap", "mremap", "munmap", "vgem", "race", "send", "dup", "close",
	"open", "read_write",
};

/* Weights: allocation and use often, the rest now and then. */
static const unsigned int op_weight[NR_OPS] = {
	[OP_ALLOC] = 16, [OP_IOCTL] = 8, [OP_SYNC] = 8, [OP_SET_NAME] = 4,
	[OP_SYNC_FILE] = 3, [OP_LLSEEK] = 3, [OP_POLL] = 2, [OP_MMAP] = 10,
	[OP_MREMAP] = 4, [OP_MUNMAP] = 5, [OP_VGEM] = 4, [OP_RACE] = 3,
	[OP_SEND] = 3, [OP_DUP] = 4, [OP_CLOSE] = 10, [OP_OPEN] = 2,
	[OP_RW] = 2,
};

static bool seen[NR_OPS][MAX_ERRNO + 1];
static unsigned long op_count[NR_OPS];
static unsigned long bad;	/* results the ABI does not allow */
static uint64_t iter;
static bool verbose;

static void record(enum op op, int err)
{
	if (err < 0)
		err = -err;
	if (err > MAX_ERRNO)
		err = MAX_ERRNO;
	seen[op][err] = true;
}

/* A result outside what the arguments allow. */
static void wrong(enum op op, const char *fmt, ...)
{
	va_list ap;

	bad++;
	printf("# iteration %llu, %s: ", (unsigned long long)iter, op_names[op]);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* ---- the table ------------------------------------------------------- */

static enum op cur_op;
static unsigned long send_on_race_fd;
static int race_freed_fd = -1;	/* the number the last race closed */

/* Forget the entry at @i, whose fd is closed (or no longer ours). */
static void drop_res(int i)
{
	if (res[i].kind == BUF_FD)
		held_bytes -= res[i].len;
	res[i] = res[--nres];
}

static int find_res(int fd)
{
	int i;

	for (i = 0; i < nres; i++)
		if (res[i].fd == fd)
			return i;
	return -1;
}

/*
 * After each operation, every fd of the table is still open, the same
 * file, and in the table once; one that is not is a bug of the program's
 * bookkeeping (or a file table the kernel broke): named, and forgotten so
 * that it does not cascade.
 */
static void check_table(enum op op)
{
	struct stat st;
	int i, k;

	for (i = nres - 1; i >= 0; i--) {
		if (!fstat(res[i].fd, &st) && st.st_ino == res[i].ino)
			continue;
		wrong(op, "fd %d of the table is %s", res[i].fd,
		      fcntl(res[i].fd, F_GETFD) < 0 ? "closed" : "another file");
		drop_res(i);
	}
	/* Left: entries of the right file; of one number twice, keep one. */
	for (i = nres - 1; i >= 0; i--) {
		for (k = 0; k < i && res[k].fd != res[i].fd; k++)
			;
		if (k == i)
			continue;
		wrong(op, "fd %d is in the table twice", res[i].fd);
		drop_res(i);
	}
}

/*
 * Take in a new fd; @len is what the program expects a buffer's size to
 * be, which the fd must confirm.
 */
static struct res *add_res(int fd, enum kind kind, int heap, uint64_t len)
{
	struct stat st;
	struct res *r;
	off_t size;
	int i;

	/* A number held twice: the old entry's fd was closed behind its back. */
	i = find_res(fd);
	if (i >= 0) {
		wrong(cur_op, "new fd %d is in the table already", fd);
		drop_res(i);
	}
	if (fd == race_freed_fd) {
		send_on_race_fd += cur_op == OP_SEND;
		race_freed_fd = -1;
	}
	if (nres == MAX_RES) {
		close(fd);
		return NULL;
	}
	r = &res[nres++];
	r->fd = fd;
	r->kind = kind;
	r->heap = heap;
	r->accmode = fcntl(fd, F_GETFL) & O_ACCMODE;
	r->len = len;
	r->ino = fstat(fd, &st) ? 0 : st.st_ino;
	if (kind == BUF_FD) {
		size = lseek(fd, 0, SEEK_END);
		if (size < 0 || (uint64_t)size != len)
			wrong(cur_op, "fd %d: a buffer of %lld bytes, not %llu",
			      fd, (long long)size, (unsigned long long)len);
		r->len = size < 0 ? 0 : size;
		held_bytes += r->len;
	}
	return r;
}

/* A random entry of @kind (or any kind for -1), or -1 without one. */
static int pick(int kind)
{
	int i, n = 0, idx[MAX_RES];

	for (i = 0; i < nres; i++)
		if (kind < 0 || res[i].kind == (enum kind)kind)
			idx[n++] = i;
	return n ? idx[below(n)] : -1;
}

/*
 * An fd for an operation: mostly one of @kind, sometimes one of the other
 * kind, a base heap fd, or one that is not ours or not open.  *@r is the
 * entry, or NULL.
 */
static int pick_fd(int kind, struct res **r)
{
	int i;

	*r = NULL;
	switch (below(20)) {
	case 0:
		return one_in(2) ? -1 : 0;	/* not an fd, /dev/null */
	case 1:
		return 1000 + (int)below(24);	/* not open */
	case 2:
		return nheaps ? heap_fds[below(nheaps)] : -1;
	case 3:
		i = pick(-1);
		break;
	default:
		i = pick(kind);
		if (i < 0 && kind == HEAP_FD && nheaps)
			return heap_fds[below(nheaps)];
		break;
	}
	if (i < 0)
		return -1;
	*r = &res[i];
	return res[i].fd;
}

static int heap_of_fd(int fd)
{
	int i;

	for (i = 0; i < nheaps; i++)
		if (heap_fds[i] == fd)
			return i;
	i = find_res(fd);
	return i >= 0 && res[i].kind == HEAP_FD ? res[i].heap : -1;
}

/* Is @fd one of the program's own, not to be adopted or closed? */
static bool is_own_fd(int fd)
{
	int i;

	if (fd <= 2 || fd == vgem_fd || fd == sock_fd || fd == fail_fd)
		return true;
	for (i = 0; i < nheaps; i++)
		if (heap_fds[i] == fd)
			return true;
	return find_res(fd) >= 0;
}

/*
 * After an operation that may have made fds the program does not know of
 * (a raw ioctl that allocated, exported a sync_file): take in the dma-bufs,
 * close the rest.
 */
static void adopt_new_fds(void)
{
	char path[64], line[128];
	struct dirent *de;
	int fd, fds[64], n = 0, i;
	DIR *d;
	FILE *f;

	d = opendir("/proc/self/fd");
	if (!d)
		return;
	while ((de = readdir(d)) && n < 64) {
		fd = atoi(de->d_name);
		if (de->d_name[0] != '.' && fd != dirfd(d) && !is_own_fd(fd))
			fds[n++] = fd;
	}
	closedir(d);
	for (i = 0; i < n; i++) {
		bool dmabuf = false;

		snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fds[i]);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f))
			dmabuf |= !strncmp(line, "exp_name:", 9);
		if (f)
			fclose(f);
		if (dmabuf)
			add_res(fds[i], BUF_FD, -1, lseek(fds[i], 0, SEEK_END));
		else
			close(fds[i]);
	}
}

/* ---- fail-nth -------------------------------------------------------- */

/* Now and then, fail the nth allocation of the next operation. */
static bool maybe_fail_nth(void)
{
	if (fail_fd < 0 || !one_in(12))
		return false;
	return fail_nth_set(fail_fd, 1 + below(40)) == 0;
}

static void fail_nth_off(bool armed)
{
	if (armed)
		fail_nth_clear(fail_fd);
}

/* ---- lengths and flags ----------------------------------------------- */

static uint64_t page_up(uint64_t len)
{
	return (len + pgsz - 1) & ~(uint64_t)(pgsz - 1);
}

static uint64_t random_len(void)
{
	static const uint64_t edges[] = {
		0, 1, 4095, 4096, 4097, UINT64_MAX, UINT64_MAX - 4095,
		UINT64_MAX - 4096, 1ULL << 63, 1ULL << 32, (1ULL << 32) + 1,
		SIZE_MAX / 2,
	};

	switch (below(16)) {
	case 0:
		return edges[below(sizeof(edges) / sizeof(edges[0]))];
	case 1:
		return (1 + below(16)) * ONE_MIB;	/* up to 16 MiB */
	case 2:
	case 3:
		return (1 + below(1024)) * pgsz;	/* up to 4 MiB, whole pages */
	default:
		return 1 + below(256 * 1024);		/* up to 256 KiB, any */
	}
}

static uint32_t random_fd_flags(void)
{
	static const uint32_t ok[] = {
		O_RDWR | O_CLOEXEC, O_RDWR, O_RDONLY | O_CLOEXEC, O_RDONLY,
		O_WRONLY | O_CLOEXEC,
	};

	if (one_in(10))
		return (uint32_t)rnd();
	if (one_in(10))
		return ok[below(5)] | (1U << below(32));
	return ok[below(5)];
}

/* ---- faults on touched pages ----------------------------------------- */

static sigjmp_buf touch_jmp;
static volatile sig_atomic_t touch_sig;

static void on_fault(int sig)
{
	touch_sig = sig;
	siglongjmp(touch_jmp, 1);
}

/* Read (and write, when @write) the first word of the page at @p: the signal, or 0. */
static int touch(volatile uint32_t *p, bool write, uint32_t val, uint32_t *got)
{
	touch_sig = 0;
	if (sigsetjmp(touch_jmp, 1))
		return touch_sig;
	if (write)
		*p = val;
	*got = *p;
	return 0;
}

/*
 * Touch each page of a mapping: a page within the buffer must read back
 * what was written, one past its end must raise SIGBUS.
 */
static void touch_map(enum op op, struct map *m)
{
	size_t off;

	for (off = 0; off < m->len; off += pgsz) {
		bool inside = m->off + off < m->buf_len;
		bool write = (m->prot & PROT_WRITE) && inside;
		uint32_t val = (uint32_t)rnd(), got = 0;
		int sig;

		if (!(m->prot & PROT_READ))
			break;
		sig = touch((volatile uint32_t *)(m->addr + off), write, val, &got);
		if (inside && sig)
			wrong(op, "signal %d at page %zu of a %zu-byte buffer",
			      sig, (size_t)(m->off + off) / pgsz, m->buf_len);
		else if (!inside && sig != SIGBUS)
			wrong(op, "page %zu past a %zu-byte buffer: %s",
			      (size_t)(m->off + off) / pgsz, m->buf_len,
			      sig ? "wrong signal" : "mapped");
		else if (write && got != val)
			wrong(op, "page %zu read %#x after writing %#x",
			      (size_t)(m->off + off) / pgsz, got, val);
		if (!inside)
			break;
		/* Touch a few pages of a large mapping, not each one. */
		if (m->len > 64 * pgsz)
			off += below(16) * pgsz;
	}
}

/* ---- the operations -------------------------------------------------- */

static void op_alloc(void)
{
	struct dma_heap_allocation_data data = {
		.len = random_len(),
		.fd_flags = random_fd_flags(),
		.heap_flags = one_in(12) ? rnd() : 0,
		.fd = one_in(16) ? (uint32_t)rnd() : 0,
	};
	bool invalid, armed;
	struct res *r;
	int fd, h, err;

	fd = pick_fd(HEAP_FD, &r);
	h = heap_of_fd(fd);
	/* Lengths past 1 GiB are refused at once; the others are capped. */
	if (held_bytes + data.len > BYTES_CAP && data.len <= (1ULL << 30))
		data.len = 1 + below(64 * 1024);
	invalid = !data.len || data.len > SIZE_MAX - (pgsz - 1) || data.fd ||
		  (data.fd_flags & ~(O_CLOEXEC | O_ACCMODE)) || data.heap_flags;
	armed = maybe_fail_nth();
	err = ioctl(fd, DMA_HEAP_IOCTL_ALLOC, &data) ? errno : 0;
	fail_nth_off(armed);
	record(OP_ALLOC, err);

	if (h < 0) {
		/* Not a heap: the dma-buf's ioctl, or not an fd. */
		if (!err)
			wrong(OP_ALLOC, "succeeded on fd %d, not a heap", fd);
		return;
	}
	if (err) {
		bool ok = err == EINVAL ? invalid ||
			  (heap_max[h] && data.len > (uint64_t)heap_max[h]) :
			  err == ENOMEM && !invalid;

		if (!ok)
			wrong(OP_ALLOC, "%s for len %llu fd_flags %#x heap_flags %#llx fd %u",
			      strerror(err), (unsigned long long)data.len,
			      data.fd_flags, (unsigned long long)data.heap_flags,
			      data.fd);
		return;
	}
	if (invalid)
		wrong(OP_ALLOC, "succeeded for len %llu fd_flags %#x heap_flags %#llx",
		      (unsigned long long)data.len, data.fd_flags,
		      (unsigned long long)data.heap_flags);
	if (!!(fcntl(data.fd, F_GETFD) & FD_CLOEXEC) != !!(data.fd_flags & O_CLOEXEC))
		wrong(OP_ALLOC, "FD_CLOEXEC does not follow fd_flags %#x",
		      data.fd_flags);
	if ((fcntl(data.fd, F_GETFL) & O_ACCMODE) != (int)(data.fd_flags & O_ACCMODE))
		wrong(OP_ALLOC, "file flags %#x for fd_flags %#x",
		      fcntl(data.fd, F_GETFL), data.fd_flags);
	if ((uint64_t)lseek(data.fd, 0, SEEK_END) !=
	    (data.len + heap_granule[h] - 1) / heap_granule[h] * heap_granule[h])
		wrong(OP_ALLOC, "size %lld for len %llu from %s",
		      (long long)lseek(data.fd, 0, SEEK_END),
		      (unsigned long long)data.len, heaps[h]);
	add_res(data.fd, BUF_FD, h, lseek(data.fd, 0, SEEK_END));
}

static bool known_ioctl(unsigned int cmd)
{
	return _IOC_TYPE(cmd) == DMA_HEAP_IOC_MAGIC || _IOC_TYPE(cmd) == DMA_BUF_BASE;
}

/*
 * What an ioctl number that neither a heap nor a buffer knows may return:
 * ENOTTY, except for the numbers the VFS serves itself for every file
 * before the file's own ioctl (do_vfs_ioctl()).  Of those, only FIBMAP
 * and FIGETBSZ have a type the program draws; FIGETBSZ succeeds on any
 * file whose superblock has a block size, a heap's and a buffer's too.
 */
static bool unknown_ioctl_result_ok(unsigned int cmd, int err)
{
	if (cmd == FIBMAP || cmd == FIGETBSZ)
		return true;
	return err == ENOTTY || err == EBADF;
}

/*
 * The rule above, held against the kernel: each number in @cmds, on @fd
 * (a file of the kind the program draws fds of), must get a result the
 * rule allows.
 */
static bool check_unknown_ioctls(int fd, const char *what)
{
	static const unsigned int cmds[] = {
		_IO(0, 0), _IO(0, 1), _IO(0, 2), _IO(0, 3), _IO('d', 2),
		_IOW(0, 2, int), _IOR(0, 2, int),
	};
	int arg, err, failed = 0;
	unsigned int i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		arg = 0;
		err = ioctl(fd, cmds[i], &arg) ? errno : 0;
		if (unknown_ioctl_result_ok(cmds[i], err))
			continue;
		ksft_print_msg("ioctl %#x on %s: %s, which the rule does not allow\n",
			       cmds[i], what, err ? strerror(err) : "success");
		failed++;
	}
	return !failed;
}

/*
 * Whether @fd is still a heap's or a buffer's: the race thread may have
 * closed the number picked and another open taken it (vgem's, whose
 * ioctls ignore the type), and then the result says nothing of ours.
 */
static bool still_ours(int fd)
{
	char path[64], link[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return false;
	link[n] = '\0';
	return !strncmp(link, "/dev/dma_heap/", 14) ||
	       !strncmp(link, "/dmabuf:", 8);
}

static void op_ioctl(void)
{
	static const unsigned int types[] = {
		DMA_HEAP_IOC_MAGIC, DMA_BUF_BASE, 'd', 0,
	};
	uint8_t arg[256];
	unsigned int cmd, size, i;
	struct res *r;
	void *p;
	int fd, err;

	fd = pick_fd(one_in(2) ? HEAP_FD : BUF_FD, &r);
	for (i = 0; i < sizeof(arg); i++)
		arg[i] = (uint8_t)rnd();
	/* Mostly a small length, so that an allocation is not huge. */
	if (one_in(2))
		memset(arg, 0, 8), arg[2] = (uint8_t)below(64);
	size = one_in(4) ? (unsigned int)below(_IOC_SIZEMASK + 1) :
			   (unsigned int)below(sizeof(arg) + 1);
	cmd = _IOC((unsigned int)below(4), types[below(4)],
		   (unsigned int)below(one_in(8) ? 256 : 4), size);
	p = one_in(8) ? (one_in(2) ? NULL : (void *)1) : arg;
	if (size > sizeof(arg) && p == arg)
		p = NULL;
	err = ioctl(fd, cmd, p) ? errno : 0;
	record(OP_IOCTL, err);
	if (!known_ioctl(cmd) && fd >= 0 && !unknown_ioctl_result_ok(cmd, err) &&
	    still_ours(fd))
		wrong(OP_IOCTL, "%s for cmd %#x on fd %d, not ENOTTY",
		      err ? strerror(err) : "success", cmd, fd);
	if (!err)
		adopt_new_fds();
}

static void op_sync(void)
{
	uint64_t flags = one_in(4) ? rnd() & (one_in(2) ? 0xff : ~0ULL) :
			 (one_in(2) ? DMA_BUF_SYNC_END : DMA_BUF_SYNC_START) |
			 below(4);
	bool valid = !(flags & ~DMA_BUF_SYNC_VALID_FLAGS_MASK) &&
		     (flags & DMA_BUF_SYNC_RW);
	struct res *r;
	int fd, err;

	fd = pick_fd(BUF_FD, &r);
	err = -buf_sync(fd, flags);
	record(OP_SYNC, err);
	if (!r || r->kind != BUF_FD)
		return;
	if (valid ? err != 0 : err != EINVAL)
		wrong(OP_SYNC, "%s for flags %#llx", err ? strerror(err) : "success",
		      (unsigned long long)flags);
}

/* The name that fdinfo shows for @fd, "" without one. */
static void fdinfo_name(int fd, char *name, size_t size)
{
	char path[64], line[128];
	FILE *f;

	name[0] = '\0';
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "name:\t", 6)) {
			size_t n = strcspn(line + 6, "\n");

			n = n < size ? n : size - 1;
			memcpy(name, line + 6, n);
			name[n] = '\0';
		}
	if (f)
		fclose(f);
}

static void op_set_name(void)
{
	char name[64], shown[64];
	size_t len = below(one_in(3) ? sizeof(name) : DMA_BUF_NAME_LEN), i;
	struct res *r;
	int fd, err;
	void *p;

	for (i = 0; i < len; i++)
		name[i] = 'a' + (char)below(26);
	name[len] = '\0';
	p = one_in(10) ? (void *)8 : name;
	fd = pick_fd(BUF_FD, &r);
	err = ioctl(fd, one_in(2) ? DMA_BUF_SET_NAME_A : DMA_BUF_SET_NAME_B, p) ?
	      errno : 0;
	record(OP_SET_NAME, err);
	if (!r || r->kind != BUF_FD)
		return;
	if (p != name ? err != EFAULT : len >= DMA_BUF_NAME_LEN ? err != EINVAL : err)
		wrong(OP_SET_NAME, "%s for a name of %zu", err ? strerror(err) : "success",
		      len);
	if (!err) {
		fdinfo_name(fd, shown, sizeof(shown));
		if (strcmp(shown, name))
			wrong(OP_SET_NAME, "fdinfo says \"%s\", not \"%s\"", shown, name);
	}
}

static void op_sync_file(void)
{
	struct dma_buf_export_sync_file exp = {
		.flags = one_in(4) ? (uint32_t)rnd() : DMA_BUF_SYNC_READ + below(3),
		.fd = -1,
	};
	struct dma_buf_import_sync_file imp = { 0 };
	bool valid = !(exp.flags & ~DMA_BUF_SYNC_RW) && (exp.flags & DMA_BUF_SYNC_RW);
	struct res *r, *r2;
	int fd, fd2, err;

	fd = pick_fd(BUF_FD, &r);
	err = ioctl(fd, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &exp) ? errno : 0;
	record(OP_SYNC_FILE, err);
	if (r && r->kind == BUF_FD && (valid ? err != 0 : err != EINVAL))
		wrong(OP_SYNC_FILE, "export: %s for flags %#x",
		      err ? strerror(err) : "success", exp.flags);
	if (err)
		return;
	/* Back, into the same or another buffer. */
	fd2 = pick_fd(BUF_FD, &r2);
	imp.fd = one_in(8) ? fd2 : exp.fd;
	imp.flags = one_in(4) ? (uint32_t)rnd() : DMA_BUF_SYNC_READ + below(3);
	err = ioctl(fd2, DMA_BUF_IOCTL_IMPORT_SYNC_FILE, &imp) ? errno : 0;
	record(OP_SYNC_FILE, err);
	if (r2 && r2->kind == BUF_FD && imp.fd == exp.fd &&
	    (!(imp.flags & ~DMA_BUF_SYNC_RW) && (imp.flags & DMA_BUF_SYNC_RW) ?
	     err != 0 : err != EINVAL))
		wrong(OP_SYNC_FILE, "import: %s for flags %#x",
		      err ? strerror(err) : "success", imp.flags);
	close(exp.fd);
}

static void op_llseek(void)
{
	static const int whences[] = { SEEK_SET, SEEK_CUR, SEEK_END, SEEK_DATA, 7 };
	int whence = whences[below(5)];
	off_t off = one_in(2) ? 0 : (off_t)rnd(), got;
	struct res *r;
	int fd, err;

	fd = pick_fd(BUF_FD, &r);
	got = lseek(fd, off, whence);
	err = got < 0 ? errno : 0;
	record(OP_LLSEEK, err);
	if (!r || r->kind != BUF_FD)
		return;
	if (off == 0 && whence == SEEK_END ? got != (off_t)r->len :
	    off == 0 && whence == SEEK_SET ? got != 0 : err != EINVAL)
		wrong(OP_LLSEEK, "%lld for offset %lld whence %d", (long long)got,
		      (long long)off, whence);
}

static void op_poll(void)
{
	struct pollfd p = { .events = (short)rnd() };
	struct res *r;
	int err;

	p.fd = pick_fd(BUF_FD, &r);
	err = poll(&p, 1, 0) < 0 ? errno : 0;
	record(OP_POLL, err);
	if (err)
		wrong(OP_POLL, "%s", strerror(err));
}

static void op_mmap(void)
{
	static const int flags[] = { MAP_SHARED, MAP_PRIVATE, MAP_SHARED_VALIDATE };
	struct res *r;
	struct map m;
	int fd, f, err, expect;
	bool armed;

	fd = pick_fd(BUF_FD, &r);
	if (nmaps == MAX_MAPS)
		return;
	m.buf_len = r ? r->len : 0;
	m.prot = (int)below(8);
	f = flags[below(3)];
	m.off = one_in(8) ? (off_t)below(pgsz) + 1 :
		(off_t)(below((m.buf_len / pgsz) + 2) * pgsz);
	m.len = one_in(4) ? below(2 * m.buf_len + 2 * pgsz) :
		m.buf_len > (size_t)m.off ? m.buf_len - m.off : pgsz;
	armed = maybe_fail_nth();
	m.addr = mmap(NULL, m.len, m.prot, f, fd, m.off);
	fail_nth_off(armed);
	err = m.addr == MAP_FAILED ? errno : 0;
	record(OP_MMAP, err);
	if (!r || r->kind != BUF_FD)
		goto done;
	/*
	 * In the order mmap() checks: the arguments, the file's mode, the
	 * dma-buf core's bound, and the heap's refusal of private mappings,
	 * which would be copies no device sees.
	 */
	if (!m.len || (m.off & (pgsz - 1)))
		expect = EINVAL;
	else if (r->accmode != O_RDONLY && r->accmode != O_RDWR)
		expect = EACCES;
	else if (f != MAP_PRIVATE && (m.prot & PROT_WRITE) && r->accmode != O_RDWR)
		expect = EACCES;
	else if ((uint64_t)m.off + page_up(m.len) > m.buf_len)
		expect = EINVAL;
	else if (f == MAP_PRIVATE)
		expect = EINVAL;
	else
		expect = 0;
	if (err != expect && !(err == ENOMEM && armed))
		wrong(OP_MMAP, "%s, not %s, for offset %lld length %zu prot %d flags %#x of a %zu-byte %s buffer",
		      err ? strerror(err) : "success",
		      expect ? strerror(expect) : "success", (long long)m.off,
		      m.len, m.prot, f, m.buf_len,
		      r->accmode == O_RDWR ? "O_RDWR" :
		      r->accmode == O_RDONLY ? "O_RDONLY" :
		      r->accmode == O_WRONLY ? "O_WRONLY" : "O_ACCMODE");
done:
	if (err)
		return;
	maps[nmaps] = m;
	touch_map(OP_MMAP, &maps[nmaps]);
	nmaps++;
}

static void op_mremap(void)
{
	struct map *m;
	size_t len;
	void *addr;
	int err;

	if (!nmaps)
		return;
	m = &maps[below(nmaps)];
	len = one_in(2) ? (1 + below(2 * m->len / pgsz + 2)) * pgsz :
	      1 + below(2 * m->len + 1);
	addr = mremap(m->addr, m->len, len, one_in(4) ? 0 : MREMAP_MAYMOVE);
	err = addr == MAP_FAILED ? errno : 0;
	record(OP_MREMAP, err);
	/* A mapping of a buffer cannot grow (VM_DONTEXPAND); it can shrink. */
	if (err != (page_up(len) > page_up(m->len) ? EFAULT : 0))
		wrong(OP_MREMAP, "%s for %zu bytes to %zu",
		      err ? strerror(err) : "success", m->len, len);
	if (err)
		return;
	m->addr = addr;
	m->len = len;
	touch_map(OP_MREMAP, m);
}

static void op_munmap(void)
{
	int i;

	if (!nmaps)
		return;
	i = (int)below(nmaps);
	record(OP_MUNMAP, munmap(maps[i].addr, maps[i].len) ? errno : 0);
	maps[i] = maps[--nmaps];
}

static void op_vgem(void)
{
	struct drm_prime_handle imp = { .fd = -1 }, exp = { 0 };
	struct drm_gem_close gc = { 0 };
	struct res *r;
	int err;

	if (vgem_fd < 0)
		return;
	imp.fd = pick_fd(BUF_FD, &r);
	err = ioctl(vgem_fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &imp) ? errno : 0;
	record(OP_VGEM, err);
	if (r && r->kind == BUF_FD && err && err != ENOMEM)
		wrong(OP_VGEM, "import: %s", strerror(err));
	if (err)
		return;
	exp.handle = imp.handle;
	exp.flags = one_in(2) ? DRM_CLOEXEC : DRM_CLOEXEC | DRM_RDWR;
	err = ioctl(vgem_fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &exp) ? errno : 0;
	record(OP_VGEM, err);
	if (err)
		wrong(OP_VGEM, "export: %s", strerror(err));
	else
		add_res(exp.fd, BUF_FD, r ? r->heap : -1, r ? r->len : 0);
	gc.handle = imp.handle;
	if (ioctl(vgem_fd, DRM_IOCTL_GEM_CLOSE, &gc))
		wrong(OP_VGEM, "GEM_CLOSE: %s", strerror(errno));
}

/*
 * Close and dup (or dup2 onto) the same fd in two threads.
 *
 * The fds the race leaves are its dups and, when a dup2() came after the
 * close, the closed number itself.  One number can be both: dup() takes
 * the file before it takes the lowest free number, and the close may come
 * between the two and free exactly that number; a dup2() onto the closed
 * number then replaces that dup.  So the race's fds are taken in once
 * each, by what fstat() says they are, not by which call made them.
 */
enum race_kind { RACE_DUP, RACE_DUP2, RACE_SYNC, RACE_MMAP, NR_RACE_KINDS };

static const char *const race_names[NR_RACE_KINDS] = {
	"dup", "dup2", "sync", "mmap",
};

struct race_span {
	uint64_t t[2];
	enum race_kind kind;
};

struct race {
	int fd, other, dups[8], ndups;
	bool dup2;
	size_t len;
	void *maps[4];
	int nmaps;
	pthread_barrier_t go;
	uint64_t close_t[2];	/* when the close began and ended */
	struct race_span spans[32];	/* the other thread's calls */
	int nspans;
	/*
	 * A forced order (check_race_orders()): the close comes before the
	 * other thread's call @script, or, with @straddle, inside that dup,
	 * after it took the file and before it took a number.  -1: threads.
	 */
	int script;
	bool straddle, closed;
};

/* How often each of the other thread's calls overlapped the close. */
static unsigned long race_calls[NR_RACE_KINDS], race_overlap[NR_RACE_KINDS];
static unsigned long races, race_inside, race_reopened, race_same_fd;
static unsigned long sends_back;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void race_do_close(struct race *rc)
{
	rc->close_t[0] = now_ns();
	close(rc->fd);
	rc->close_t[1] = now_ns();
	rc->closed = true;
}

static void *race_close(void *arg)
{
	struct race *rc = arg;

	pthread_barrier_wait(&rc->go);
	race_do_close(rc);
	return NULL;
}

/* Before the other thread's call: its time, and a forced close. */
static struct race_span *race_begin(struct race *rc, enum race_kind kind)
{
	struct race_span *s = &rc->spans[rc->nspans];

	if (rc->script == rc->nspans && !rc->straddle)
		race_do_close(rc);
	s->kind = kind;
	s->t[0] = now_ns();
	return s;
}

static void race_end(struct race *rc, struct race_span *s)
{
	s->t[1] = now_ns();
	rc->nspans++;
}

static int race_one_dup(struct race *rc)
{
	int tmp, d;

	if (rc->script != rc->nspans || !rc->straddle)
		return dup(rc->fd);
	/* The dup took the file before the close, and its number after. */
	tmp = dup(rc->fd);
	race_do_close(rc);
	if (tmp < 0)
		return -1;
	d = dup2(tmp, rc->fd);
	close(tmp);
	return d;
}

static void *race_dup(void *arg)
{
	struct race *rc = arg;
	struct race_span *s;
	int i, d;

	if (rc->script < 0)
		pthread_barrier_wait(&rc->go);
	for (i = 0; i < 8; i++) {
		if (rc->dup2 && i == 4) {
			s = race_begin(rc, RACE_DUP2);
			dup2(rc->other, rc->fd);
			race_end(rc, s);
			continue;
		}
		s = race_begin(rc, RACE_DUP);
		d = race_one_dup(rc);
		race_end(rc, s);
		if (d >= 0)
			rc->dups[rc->ndups++] = d;
		s = race_begin(rc, RACE_SYNC);
		buf_sync(rc->fd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ);
		race_end(rc, s);
		s = race_begin(rc, RACE_SYNC);
		buf_sync(rc->fd, DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ);
		race_end(rc, s);
		if (i % 3 == 0 && rc->nmaps < 4 && rc->len) {
			void *p;

			s = race_begin(rc, RACE_MMAP);
			p = mmap(NULL, rc->len, PROT_READ, MAP_SHARED, rc->fd, 0);
			race_end(rc, s);
			if (p != MAP_FAILED)
				rc->maps[rc->nmaps++] = p;
		}
	}
	/* A forced close after the last call. */
	if (rc->script >= 0 && !rc->closed)
		race_do_close(rc);
	return NULL;
}

/* Count which of the other thread's calls the close overlapped. */
static void race_count(struct race *rc)
{
	int i;

	races++;
	for (i = 0; i < rc->nspans; i++) {
		struct race_span *s = &rc->spans[i];

		race_calls[s->kind]++;
		if (s->t[0] < rc->close_t[1] && rc->close_t[0] < s->t[1])
			race_overlap[s->kind]++;
	}
	if (rc->nspans && rc->spans[0].t[0] < rc->close_t[1] &&
	    rc->close_t[0] < rc->spans[rc->nspans - 1].t[1])
		race_inside++;
	for (i = 0; i < rc->ndups; i++)
		race_same_fd += rc->dups[i] == rc->fd;
}

/* Take in the fds the race left: each number once, by its file. */
static void race_settle(struct race *rc, const struct res *copy)
{
	int fds[9], n = 0, i, k, j;
	struct stat st;

	for (i = 0; i < rc->ndups; i++)
		fds[n++] = rc->dups[i];
	fds[n++] = rc->fd;
	for (i = 0; i < n; i++) {
		for (k = 0; k < i && fds[k] != fds[i]; k++)
			;
		if (k < i || fstat(fds[i], &st))
			continue;	/* taken in already, or closed */
		if (fds[i] == rc->fd && rc->script < 0)
			race_reopened++;
		j = find_res(rc->other);
		if (j >= 0 && st.st_ino == res[j].ino) {
			add_res(fds[i], BUF_FD, res[j].heap, res[j].len);
		} else if (st.st_ino == copy->ino) {
			add_res(fds[i], BUF_FD, copy->heap, copy->len);
		} else {
			wrong(OP_RACE, "fd %d is neither buffer", fds[i]);
			close(fds[i]);
		}
	}
	if (fcntl(rc->fd, F_GETFD) < 0)
		race_freed_fd = rc->fd;
}

/* Race the table's entry @i against a close; @j's fd is dup2()'s source. */
static void race_run(int i, int j, bool dup2, int script, bool straddle)
{
	struct race rc = { .script = script, .straddle = straddle };
	struct res copy = res[i];
	pthread_t a, b;
	int k;

	rc.fd = copy.fd;
	rc.len = copy.len;
	rc.other = j >= 0 && j != i ? res[j].fd : -1;
	rc.dup2 = dup2 && rc.other >= 0;
	drop_res(i);
	if (script >= 0) {
		race_dup(&rc);
	} else {
		pthread_barrier_init(&rc.go, NULL, 2);
		pthread_create(&a, NULL, race_close, &rc);
		pthread_create(&b, NULL, race_dup, &rc);
		pthread_join(a, NULL);
		pthread_join(b, NULL);
		pthread_barrier_destroy(&rc.go);
		race_count(&rc);
	}
	race_settle(&rc, &copy);
	for (k = 0; k < rc.nmaps; k++)
		munmap(rc.maps[k], rc.len);
}

static void op_race(void)
{
	int i, j;
	bool dup2;

	i = pick(BUF_FD);
	if (i < 0)
		return;
	dup2 = one_in(3);
	j = pick(BUF_FD);
	race_run(i, j, dup2, -1, false);
	record(OP_RACE, 0);
}

/*
 * The race's bookkeeping, in each order the two threads can take, forced
 * in one thread on two memfds (the table holds nothing else yet): after
 * it, each fd of the table is open, the file it was taken in as, and in
 * the table once, and no fd is open that the table does not hold.
 */
static bool check_race_orders(void)
{
	unsigned long bad_before = bad, b;
	int script, before, orders = 0, failed = 0, m, fd, k;

	cur_op = OP_RACE;
	for (script = 0; script <= 33; script++) {
		for (m = 0; m < 4; m++) {
			b = bad;
			before = count_fds();
			for (k = 0; k < 2; k++) {
				fd = memfd_create("race", MFD_CLOEXEC);
				if (fd < 0 || ftruncate(fd, (k + 1) * pgsz))
					return false;
				add_res(fd, BUF_FD, -1, (k + 1) * pgsz);
			}
			race_run(0, 1, m & 1, script, m & 2);
			orders++;
			check_table(OP_RACE);
			while (nres)
				close(res[nres - 1].fd), drop_res(nres - 1);
			if (count_fds() != before)
				wrong(OP_RACE, "%d fds open that the table did not hold",
				      count_fds() - before);
			if (bad == b)
				continue;
			ksft_print_msg("forced order wrong: the close before call %d%s%s\n",
				       script, m & 2 ? ", inside it if a dup" : "",
				       m & 1 ? ", with dup2" : "");
			failed++;
		}
	}
	bad = bad_before;
	race_freed_fd = -1;
	ksft_print_msg("race: %d forced orders of close and the other thread, %d wrong\n",
		       orders, failed);
	return !failed;
}

/* ---- the other process ------------------------------------------------ */

struct msg {
	int what;		/* 0: a heap fd, allocate from it; 1: a buffer */
	int status;		/* the child's reply: 0 or an errno */
	uint64_t len;
};

static int send_fd(int sock, const struct msg *msg, int fd)
{
	char ctl[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = (void *)msg, .iov_len = sizeof(*msg) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	if (fd >= 0) {
		mh.msg_control = ctl;
		mh.msg_controllen = sizeof(ctl);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	return sendmsg(sock, &mh, 0) == sizeof(*msg) ? 0 : -1;
}

static int recv_fd(int sock, struct msg *msg, int *fd)
{
	char ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = msg, .iov_len = sizeof(*msg) };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl, .msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *c;

	*fd = -1;
	if (recvmsg(sock, &mh, MSG_CMSG_CLOEXEC) != sizeof(*msg))
		return -1;
	c = CMSG_FIRSTHDR(&mh);
	if (c && c->cmsg_type == SCM_RIGHTS)
		memcpy(fd, CMSG_DATA(c), sizeof(int));
	return 0;
}

/*
 * The child: for a heap fd, allocate, map, check that the buffer reads as
 * zeroes, write, and send the buffer back; for a buffer, map it, read it
 * between syncs.
 */
static void child(int sock)
{
	struct msg msg;
	int fd, buf;
	char *p;

	while (!recv_fd(sock, &msg, &fd)) {
		buf = -1;
		msg.status = 0;
		if (fd < 0) {
			msg.status = EBADF;
		} else if (msg.what == 0) {
			buf = heap_alloc(fd, msg.len);
			if (buf < 0) {
				msg.status = -buf;
				buf = -1;
			}
		} else {
			buf = dup(fd);
		}
		if (buf >= 0) {
			p = mmap(NULL, msg.len, PROT_READ | PROT_WRITE, MAP_SHARED,
				 buf, 0);
			if (p == MAP_FAILED) {
				/* A buffer the parent holds read-only. */
				p = mmap(NULL, msg.len, PROT_READ, MAP_SHARED, buf, 0);
			}
			if (p == MAP_FAILED) {
				msg.status = errno;
			} else {
				buf_sync(buf, DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW);
				if (msg.what == 0 && !all_zero(p, msg.len, NULL))
					msg.status = EIO;	/* not zeroed */
				buf_sync(buf, DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW);
				munmap(p, msg.len);
			}
		}
		if (fd >= 0)
			close(fd);
		if (send_fd(sock, &msg, msg.what == 0 ? buf : -1))
			break;
		if (buf >= 0)
			close(buf);
	}
	_exit(0);
}

static void op_send(void)
{
	struct msg msg = { 0 };
	struct res *r;
	int fd, back;

	if (sock_fd < 0)
		return;
	msg.what = one_in(2);
	fd = msg.what ? pick_fd(BUF_FD, &r) : pick_fd(HEAP_FD, &r);
	if (msg.what && (!r || r->kind != BUF_FD))
		return;
	msg.len = msg.what ? r->len : (1 + below(64)) * pgsz;
	if (fd < 0 || (heap_of_fd(fd) < 0 && !msg.what))
		return;
	if (send_fd(sock_fd, &msg, fd) || recv_fd(sock_fd, &msg, &back)) {
		wrong(OP_SEND, "the other process is gone");
		close(sock_fd);
		sock_fd = -1;
		return;
	}
	record(OP_SEND, msg.status);
	/* A buffer that the parent cannot read, the child cannot map. */
	if (msg.status && msg.status != ENOMEM &&
	    !(msg.status == EACCES && msg.what && r->accmode != O_RDONLY &&
	      r->accmode != O_RDWR))
		wrong(OP_SEND, "the other process got %s", strerror(msg.status));
	if (back >= 0) {
		int h = heap_of_fd(fd);
		uint64_t g = h >= 0 ? heap_granule[h] : pgsz;

		sends_back++;
		add_res(back, BUF_FD, h, (msg.len + g - 1) / g * g);
	}
}

/* ---- fds -------------------------------------------------------------- */

static void op_dup(void)
{
	int i = pick(-1), fd;

	if (i < 0)
		return;
	fd = one_in(4) ? fcntl(res[i].fd, F_DUPFD_CLOEXEC, 100 + below(100)) :
			 dup(res[i].fd);
	record(OP_DUP, fd < 0 ? errno : 0);
	if (fd >= 0)
		add_res(fd, res[i].kind, res[i].heap, res[i].len);
}

static void op_close(void)
{
	int i = pick(-1);

	if (i < 0)
		return;
	record(OP_CLOSE, close(res[i].fd) ? errno : 0);
	drop_res(i);
}

static void op_open(void)
{
	static const int modes[] = { O_RDONLY, O_RDWR, O_WRONLY };
	char path[128];
	int h, fd, mode = modes[below(3)];

	if (!nheaps)
		return;
	h = (int)below(nheaps);
	snprintf(path, sizeof(path), DMA_HEAP_DIR "/%s", heaps[h]);
	fd = open(path, mode | O_CLOEXEC | (one_in(8) ? O_NONBLOCK : 0));
	record(OP_OPEN, fd < 0 ? errno : 0);
	if (fd < 0)
		wrong(OP_OPEN, "%s: %s", path, strerror(errno));
	else
		add_res(fd, HEAP_FD, h, 0);
}

static void op_rw(void)
{
	char b[64] = { 0 };
	struct res *r;
	ssize_t n;
	int fd;

	fd = pick_fd(-1, &r);
	n = one_in(2) ? read(fd, b, below(sizeof(b))) : write(fd, b, below(sizeof(b)));
	record(OP_RW, n < 0 ? errno : 0);
	if (r && n > 0)
		wrong(OP_RW, "%zd bytes through a %s fd", n,
		      r->kind == BUF_FD ? "dma-buf" : "heap");
}

static void (*const ops[NR_OPS])(void) = {
	[OP_ALLOC] = op_alloc, [OP_IOCTL] = op_ioctl, [OP_SYNC] = op_sync,
	[OP_SET_NAME] = op_set_name, [OP_SYNC_FILE] = op_sync_file,
	[OP_LLSEEK] = op_llseek, [OP_POLL] = op_poll, [OP_MMAP] = op_mmap,
	[OP_MREMAP] = op_mremap, [OP_MUNMAP] = op_munmap, [OP_VGEM] = op_vgem,
	[OP_RACE] = op_race, [OP_SEND] = op_send, [OP_DUP] = op_dup,
	[OP_CLOSE] = op_close, [OP_OPEN] = op_open, [OP_RW] = op_rw,
};

static enum op next_op(void)
{
	unsigned int total = 0, i, x;

	/* Over the cap or the table full: close first. */
	if ((held_bytes > BYTES_CAP || nres > MAX_RES - 4) && one_in(2))
		return OP_CLOSE;
	for (i = 0; i < NR_OPS; i++)
		total += op_weight[i];
	x = (unsigned int)below(total);
	for (i = 0; i < NR_OPS; i++) {
		if (x < op_weight[i])
			return (enum op)i;
		x -= op_weight[i];
	}
	return OP_CLOSE;
}

/* ---- main ------------------------------------------------------------- */

static bool heap_is_kind(const char *heap, const char *kind)
{
	char got[64];

	return !heap_file(heap, "kind", got, sizeof(got)) && !strcmp(got, kind);
}

static long heap_counter(int h, const char *file)
{
	return heap_stat(heaps[h], file);
}

int main(int argc, char **argv)
{
	long start_buffers[MAX_HEAPS], start_bytes[MAX_HEAPS], v;
	unsigned long long seed = DEFAULT_SEED, iters = DEFAULT_ITERS;
	struct sigaction sa = { .sa_handler = on_fault };
	unsigned int pairs = 0, ops_seen = 0, o, e;
	int fds_before, fds_after, sv[2], opt, h, i;
	bool stats_back = true, have_sock, orders_only = false, orders_ok;
	bool ioctls_ok;
	struct timespec t0, t1;
	double secs;
	pid_t pid;

	while ((opt = getopt(argc, argv, "s:n:rv")) != -1) {
		switch (opt) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			iters = strtoull(optarg, NULL, 0);
			break;
		case 'r':
			orders_only = true;
			break;
		case 'v':
			verbose = true;
			break;
		default:
			fprintf(stderr, "usage: %s [-s seed] [-n iterations] [-r] [-v]\n",
				argv[0]);
			return KSFT_FAIL;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	ksft_print_header();
	pgsz = page_size();
	rng_state = seed;
	if (orders_only) {
		ksft_set_plan(1);
		ksft_test_result(check_race_orders(),
				 "the race's bookkeeping holds in each forced order\n");
		ksft_finished();
	}
	ksft_set_plan(7);

	nheaps = find_heaps(heaps, MAX_HEAPS);
	if (nheaps <= 0)
		ksft_exit_skip("no heap in " DMA_HEAP_DIR "\n");
	fds_before = count_fds();
	for (h = 0; h < nheaps; h++) {
		heap_fds[h] = heap_open(heaps[h]);
		if (heap_fds[h] < 0)
			ksft_exit_fail_msg("open %s: %s\n", heaps[h], strerror(errno));
		if (heap_stat(heaps[h], "contiguous") == 1)
			heap_max[h] = heap_stat(heaps[h], "max_contiguous");
		/* The chunk heap's sizes are whole chunks, the rest whole pages. */
		heap_granule[h] = heap_is_kind(heaps[h], "chunk") ?
				  heap_stat(heaps[h], "max_contiguous") : pgsz;
		start_buffers[h] = heap_counter(h, "buffers");
		start_bytes[h] = heap_counter(h, "bytes");
	}
	vgem_fd = open_vgem();
	fail_fd = fail_nth_open();
	/* Without CONFIG_UNIX, no fd goes to another process. */
	pid = -1;
	if (!socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		pid = fork();
		if (pid < 0)
			ksft_exit_fail_msg("fork: %s\n", strerror(errno));
		if (!pid) {
			close(sv[0]);
			child(sv[1]);
		}
		close(sv[1]);
		sock_fd = sv[0];
	}
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);
	orders_ok = check_race_orders();
	ioctls_ok = check_unknown_ioctls(heap_fds[0], heaps[0]);
	i = heap_alloc(heap_fds[0], heap_granule[0]);
	if (i < 0)
		ksft_exit_fail_msg("allocate from %s: %s\n", heaps[0], strerror(-i));
	ioctls_ok &= check_unknown_ioctls(i, "a buffer");
	close(i);

	ksft_print_msg("seed %llu, %llu iterations, heaps:", seed, iters);
	for (h = 0; h < nheaps; h++)
		printf(" %s", heaps[h]);
	printf("%s%s%s\n", vgem_fd < 0 ? ", no vgem" : "",
	       fail_fd < 0 ? ", no fail-nth" : "",
	       sock_fd < 0 ? ", no unix socket" : "");

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (iter = 0; iter < iters; iter++) {
		enum op op = next_op();

		op_count[op]++;
		cur_op = op;
		ops[op]();
		/* The operations that juggle fds, and every 16th. */
		if (op == OP_RACE || op == OP_SEND || op == OP_IOCTL ||
		    op == OP_VGEM || op == OP_SYNC_FILE || !(iter % 16))
			check_table(op);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;

	/* Let go of everything, and the other process. */
	while (nmaps)
		munmap(maps[nmaps - 1].addr, maps[nmaps - 1].len), nmaps--;
	while (nres)
		close(res[nres - 1].fd), drop_res(nres - 1);
	have_sock = sock_fd >= 0;
	if (sock_fd >= 0)
		close(sock_fd);
	sock_fd = -1;
	i = 0;
	if (pid > 0)
		waitpid(pid, &i, 0);

	for (o = 0; o < NR_OPS; o++) {
		unsigned int n = 0;

		for (e = 0; e <= MAX_ERRNO; e++)
			n += seen[o][e];
		pairs += n;
		ops_seen += n > 0;
		if (verbose || !n) {
			printf("# %-10s %6lu runs:", op_names[o], op_count[o]);
			for (e = 0; e <= MAX_ERRNO; e++)
				if (seen[o][e])
					printf(" %s", e ? strerrorname_np(e) ?: "?" : "ok");
			printf("\n");
		}
	}
	ksft_print_msg("seed %llu: %llu iterations in %.1f s, %.0f per second; coverage: %u (operation, result) pairs over %u of %u operations\n",
		       seed, iters, secs, iters / (secs > 0 ? secs : 1), pairs,
		       ops_seen, NR_OPS);

	for (o = 0; o < NR_RACE_KINDS; o++)
		ksft_print_msg("race: close/%s interleaved %lu of %lu\n",
			       race_names[o], race_overlap[o], race_calls[o]);
	ksft_print_msg("race: the close inside the other thread's calls in %lu of %lu races\n",
		       race_inside, races);
	ksft_print_msg("race: a dup got the closed number %lu times; it was open again after %lu\n",
		       race_same_fd, race_reopened);
	ksft_print_msg("send: took a race's closed number first %lu times, of %lu fds back\n",
		       send_on_race_fd, sends_back);

	ksft_test_result(orders_ok, "the race's bookkeeping holds in each forced order\n");
	ksft_test_result(ioctls_ok, "ioctls neither heap nor buffer knows get a result the checks allow\n");
	ksft_test_result(bad == 0, "every result was one its arguments allow (%lu were not)\n",
			 bad);
	ksft_test_result(have_sock && WIFEXITED(i) && WEXITSTATUS(i) == 0,
			 "the other process lived and exited\n");
	ksft_test_result(ops_seen == NR_OPS, "every operation ran (%u of %u)\n",
			 ops_seen, NR_OPS);

	if (vgem_fd >= 0)
		close(vgem_fd);
	if (fail_fd >= 0)
		close(fail_fd);
	for (h = 0; h < nheaps; h++)
		close(heap_fds[h]);
	fds_after = count_fds();
	ksft_test_result(fds_after == fds_before, "every fd closed (%d open, %d before)\n",
			 fds_after, fds_before);
	for (h = 0; h < nheaps; h++) {
		v = heap_counter(h, "buffers");
		if (v != start_buffers[h] || heap_counter(h, "bytes") != start_bytes[h]) {
			ksft_print_msg("%s: %ld buffers, %ld bytes; %ld and %ld before\n",
				       heaps[h], v, heap_counter(h, "bytes"),
				       start_buffers[h], start_bytes[h]);
			stats_back = false;
		}
	}
	ksft_test_result(stats_back, "every buffer freed: each heap's buffers and bytes are back\n");
	if (bad || !stats_back || fds_after != fds_before)
		ksft_print_msg("reproduce with: dma-heap-fuzz -s %llu -n %llu\n",
			       seed, iters);
	ksft_finished();
}
