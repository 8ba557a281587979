// SPDX-License-Identifier: GPL-2.0
/*
 * The seed's flow, for every heap in /dev/dma_heap: allocate 1 MiB, mmap and
 * fill it inside DMA_BUF_IOCTL_SYNC start/end, import it into vgem with
 * DRM_IOCTL_PRIME_FD_TO_HANDLE, then close everything, once with the
 * dma-buf going first and once with the importer going first; and import
 * a buffer of 64 MiB as well.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/mman.h>

#include <drm/drm.h>

#include "kselftest_harness.h"
#include "dma-heap-util.h"

FIXTURE(seed) {
	int heap_fd;
	int buf_fd;
	int vgem_fd;
	uint32_t handle;
	unsigned char *map;
	int fds_before;
};

FIXTURE_VARIANT(seed) {
	const char *heap;
};

FIXTURE_SETUP(seed)
{
	struct drm_prime_handle import = {};
	size_t i;

	ASSERT_NE(NULL, variant->heap) TH_LOG("no heap in " DMA_HEAP_DIR);
	self->fds_before = count_fds();
	self->heap_fd = heap_open(variant->heap);
	ASSERT_LE(0, self->heap_fd);
	self->buf_fd = heap_alloc(self->heap_fd, ONE_MIB);
	ASSERT_LE(0, self->buf_fd) TH_LOG("alloc: %s", strerror(-self->buf_fd));

	self->map = mmap(NULL, ONE_MIB, PROT_READ | PROT_WRITE, MAP_SHARED,
			 self->buf_fd, 0);
	ASSERT_NE(MAP_FAILED, self->map);
	ASSERT_EQ(0, buf_sync(self->buf_fd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW));
	for (i = 0; i < ONE_MIB; i++)
		self->map[i] = i * 7 + 1;
	ASSERT_EQ(0, buf_sync(self->buf_fd, DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW));

	self->vgem_fd = open_vgem();
	ASSERT_LE(0, self->vgem_fd) TH_LOG("no vgem card in /dev/dri");
	import.fd = self->buf_fd;
	ASSERT_EQ(0, ioctl(self->vgem_fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &import))
		TH_LOG("PRIME_FD_TO_HANDLE: %s", strerror(errno));
	ASSERT_NE(0, import.handle);
	self->handle = import.handle;

	/* The contents survive the import. */
	ASSERT_EQ(0, buf_sync(self->buf_fd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ));
	for (i = 0; i < ONE_MIB; i += 4093)
		ASSERT_EQ((unsigned char)(i * 7 + 1), self->map[i]);
	ASSERT_EQ(0, buf_sync(self->buf_fd, DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ));
}

FIXTURE_TEARDOWN(seed)
{
	/* Each test closes everything itself; this only checks it did. */
	EXPECT_EQ(self->fds_before, count_fds());
}

static void gem_close(int vgem_fd, uint32_t handle)
{
	struct drm_gem_close close_arg = { .handle = handle };

	ioctl(vgem_fd, DRM_IOCTL_GEM_CLOSE, &close_arg);
}

/* Exporter's side first: the importer's handle keeps the buffer alive. */
TEST_F(seed, close_dmabuf_first)
{
	struct drm_prime_handle import = {};

	ASSERT_EQ(0, munmap(self->map, ONE_MIB));
	ASSERT_EQ(0, close(self->buf_fd));
	ASSERT_EQ(0, close(self->heap_fd));
	/* vgem still holds the buffer: exporting it again gives a new fd. */
	import.handle = self->handle;
	import.flags = DRM_CLOEXEC;
	ASSERT_EQ(0, ioctl(self->vgem_fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &import));
	ASSERT_LE(0, import.fd);
	ASSERT_EQ(0, close(import.fd));
	gem_close(self->vgem_fd, self->handle);
	ASSERT_EQ(0, close(self->vgem_fd));
}

/* Importer first: the dma-buf and its mapping stay usable. */
TEST_F(seed, close_vgem_first)
{
	size_t i;

	gem_close(self->vgem_fd, self->handle);
	ASSERT_EQ(0, close(self->vgem_fd));
	ASSERT_EQ(0, buf_sync(self->buf_fd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW));
	memset(self->map, 0x5a, ONE_MIB);
	for (i = 0; i < ONE_MIB; i += 4093)
		ASSERT_EQ(0x5a, self->map[i]);
	ASSERT_EQ(0, buf_sync(self->buf_fd, DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW));
	ASSERT_EQ(0, close(self->buf_fd));
	ASSERT_EQ(0, close(self->heap_fd));
	ASSERT_EQ(0, munmap(self->map, ONE_MIB));
}

#define BIG_LEN		(64 * ONE_MIB)

/*
 * A buffer of 64 MiB imports too, and keeps its contents: where every DMA
 * mapping bounces (run-selftests.sh's swiotlb boot), through bounce
 * buffers of at most 256 KiB, only if no entry of vgem's table is longer.
 * Skipped for a heap that cannot hold it with room to spare: one whose
 * buffers are contiguous up to less, or that is smaller than 128 MiB.
 */
TEST_F(seed, a_64_mib_buffer_imports_too)
{
	struct drm_prime_handle import = {};
	long size = heap_stat(variant->heap, "size");
	unsigned char *p;
	int fd, ret;
	size_t i;

	/* The fixture's 1 MiB buffer goes first. */
	gem_close(self->vgem_fd, self->handle);
	ASSERT_EQ(0, munmap(self->map, ONE_MIB));
	ASSERT_EQ(0, close(self->buf_fd));
	if (heap_stat(variant->heap, "contiguous") == 1 &&
	    heap_stat(variant->heap, "max_contiguous") < (long)BIG_LEN) {
		close(self->vgem_fd);
		close(self->heap_fd);
		SKIP(return, "%s: its buffers are contiguous up to %ld bytes",
		     variant->heap, heap_stat(variant->heap, "max_contiguous"));
	}
	if (size >= 0 && size < 2 * (long)BIG_LEN) {
		close(self->vgem_fd);
		close(self->heap_fd);
		SKIP(return, "%s: %ld bytes, less than 128 MiB", variant->heap,
		     size);
	}

	fd = heap_alloc(self->heap_fd, BIG_LEN);
	ASSERT_LE(0, fd) TH_LOG("alloc 64 MiB: %s", strerror(-fd));
	p = mmap(NULL, BIG_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, buf_sync(fd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE));
	for (i = 0; i < BIG_LEN; i += 4093)
		p[i] = i * 7 + 1;
	ASSERT_EQ(0, buf_sync(fd, DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE));
	import.fd = fd;
	ret = ioctl(self->vgem_fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &import);
	EXPECT_EQ(0, ret) TH_LOG("PRIME_FD_TO_HANDLE of 64 MiB: %s",
				 strerror(errno));
	ASSERT_EQ(0, buf_sync(fd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ));
	for (i = 0; i < BIG_LEN; i += 4093)
		ASSERT_EQ((unsigned char)(i * 7 + 1), p[i]);
	ASSERT_EQ(0, buf_sync(fd, DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ));
	if (!ret)
		gem_close(self->vgem_fd, import.handle);
	ASSERT_EQ(0, munmap(p, BIG_LEN));
	ASSERT_EQ(0, close(fd));
	ASSERT_EQ(0, close(self->vgem_fd));
	ASSERT_EQ(0, close(self->heap_fd));
}

HEAP_HARNESS_MAIN(seed)
