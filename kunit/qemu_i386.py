# SPDX-License-Identifier: GPL-2.0
# kunit.py --qemu_config for the 32-bit run: i386 with 2 GiB, of which a
# HIGHMEM4G kernel maps less than 1 GiB directly (lowmem), so the heaps get
# highmem pages and kmap/vmap really map them.  kunit.py takes the
# architecture (make ARCH=, qemu-system-) from linux_arch and qemu_arch here
# and ignores --arch.  DMA_HEAPS_ACCEL, DMA_HEAPS_CMA and DMA_HEAPS_CPU as in
# qemu_x86_64.py.  vmalloc= ends lowmem at 0x37000000, a pageblock (4 MiB)
# boundary, instead of at 0x373fe000: x86 reserves the default CMA area
# top-down, so the area then ends where highmem begins, and dma_heap_cma's
# a_range_from_lowmem_into_highmem_is_zeroed can take the last pages of
# lowmem with the first of highmem.  SeaBIOS, not qboot: under
# qemu-system-i386 with qboot the kernel hangs at "i8042: Probing ports
# directly." (6.1, TCG).  DMA_HEAPS_SMP: the CPUs of the guest, 2 unless
# set, as on x86_64; the kernel finds them in ACPI's MADT (i386.config).
import os

from ..qemu_config import QemuArchParams

_accel = os.environ.get('DMA_HEAPS_ACCEL', 'tcg')
_cpu = os.environ.get('DMA_HEAPS_CPU') or ('host' if _accel == 'kvm' else '')
# The carveout heap's range, 8 MiB of RAM that dma_heap.carveout= reserves
# as the command line is parsed, in every boot.  Below 16 MiB, where the
# kernel is never placed, KASLR or not (LOAD_PHYSICAL_ADDR): above it, the
# kernel could sit on the range, which is then refused.  The heaps the
# carveout suite makes of their own take RAM from the page allocator.
_carveout = 'dma_heap.carveout=8M@0x800000'

QEMU_ARCH = QemuArchParams(linux_arch='i386',
			   kconfig='''
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y''',
			   qemu_arch='i386',
			   kernel_path='arch/x86/boot/bzImage',
			   kernel_command_line='console=ttyS0 vmalloc=0x7bfe000 ' +
					       _carveout + ' cma=' +
					       os.environ.get('DMA_HEAPS_CMA', '64M'),
			   extra_qemu_params=['-m', '2048', '-smp', os.environ.get('DMA_HEAPS_SMP', '2'),
					      '-accel', _accel] +
					     (['-cpu', _cpu] if _cpu else []))
